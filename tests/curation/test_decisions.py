"""Accept runs the store's audited operations, reject is remembered, undo reverses either; pins."""

from __future__ import annotations

import pytest

from mneme_tui.errors import MnemeError
from mneme_tui.memory.curation.proposals import open_proposals
from mneme_tui.memory.curation.review import decide, undo
from mneme_tui.memory.store import Store

from .conftest import mint

TEXT = "Freeze MNEME_NOW in every snapshot test so ages never change."


def test_accept_merges_with_an_audited_reason_and_undo_restores(store: Store) -> None:
    a, b, keep = (mint(store, TEXT, created=f"2026-10-0{n}") for n in (1, 2, 3))
    [proposal] = open_proposals(store, "acme")
    decision = decide(store, proposal.id, "accept")
    assert decision.change.ids == [a, b]
    assert store.get(a).status == "superseded" and store.get(a).superseded_by == keep
    entry = store.history(a)[-1]
    assert entry.reason == f"review: duplicate of #{keep}" and entry.actor == "tester@ci"
    assert {m.id for m in store.detail(keep).supersedes} == {a, b}
    assert open_proposals(store, "acme") == []
    undone = undo(store, proposal.id)
    assert sorted(undone.change.ids) == [a, b] and store.get(a).status == "active"
    assert [p.id for p in open_proposals(store, "acme")] == [proposal.id]


def test_a_rejected_proposal_stays_rejected_until_its_memories_change(store: Store) -> None:
    a = mint(store, TEXT)
    mint(store, TEXT)
    [proposal] = open_proposals(store, "acme")
    decide(store, proposal.id, "reject", actor="reviewer")
    assert open_proposals(store, "acme") == []
    with pytest.raises(MnemeError, match="already decided"):
        decide(store, proposal.id, "accept")
    mint(store, TEXT)  # a third copy: a new proposal over three memories
    [again] = open_proposals(store, "acme")
    assert again.id != proposal.id and len(again.memory_ids) == 3
    decide(store, again.id, "reject")
    store.update_content(a, content=TEXT + " ")  # same normalised text, but the memory changed
    assert [p.memory_ids for p in open_proposals(store, "acme")] == [again.memory_ids]


def test_accepting_a_cold_proposal_dismisses_it(store: Store) -> None:
    old = mint(store, "Nobody read this in a year", created="2025-10-01")
    [proposal] = open_proposals(store, "acme", kinds=frozenset({"cold"}))
    decide(store, proposal.id, "accept")
    assert store.get(old).status == "tombstoned" and store.history(old)[-1].reason.startswith("review: cold: ")


def test_unknown_proposal_and_decision_are_errors(store: Store) -> None:
    with pytest.raises(MnemeError, match="no open proposal"):
        decide(store, "0123456789", "accept")
    with pytest.raises(MnemeError, match="unknown decision"):
        decide(store, "0123456789", "maybe")
    with pytest.raises(MnemeError, match="no decision"):
        undo(store, "0123456789")


def test_pin_and_unpin_are_audited_and_checked(store: Store) -> None:
    a = mint(store, TEXT)
    assert store.pin([a, a]) == [a] and store.pin([a]) == []
    assert store.pinned_ids() == {a} and store.history(a)[-1].reason == "pinned"
    with pytest.raises(MnemeError, match="no memory with id 99"):
        store.pin([99])
    assert store.unpin([a]) == [a] and store.pinned_ids() == set()
