"""Deciding proposals: accept runs the store's audited operations (supersede, dismiss) with the reason
``review: …``, reject remembers the proposal so it is not proposed again while its memories are unchanged, and
undo reverses either. Every decision is a row of ``curation_decisions`` with who and when."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mneme_tui import config
from mneme_tui.errors import ERR_NOT_FOUND, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.curation.choices import DECISIONS, UNDO, UNDONE
from mneme_tui.memory.curation.proposals import Proposal, open_proposals
from mneme_tui.memory.persistence.curation import DecisionRow
from mneme_tui.memory.records import StatusChange

if TYPE_CHECKING:
    from mneme_tui.memory.store import Store


@dataclass(frozen=True)
class Decision:
    """What deciding a proposal did: the decision as recorded and the status changes it made."""

    record: DecisionRow
    change: StatusChange

    def to_json(self) -> dict[str, object]:
        """What ``mneme review accept|reject|undo --json`` prints."""
        record = self.record
        return {
            "proposal": record.proposal_id,
            "kind": record.kind,
            "decision": record.decision,
            "memory_ids": list(record.memory_ids),
            "changed": self.change.ids,
            "actor": record.actor,
        }


def decide(
    store: Store,
    proposal_id: str,
    decision: str,
    *,
    actor: str | None = None,
    repo: str | None = None,
    root: Path | None = None,
) -> Decision:
    """Accept or reject one open proposal of ``repo`` (None: any repo); ERR_NOT_FOUND when it is not open
    (decided already, or its memories changed)."""
    return decide_many(store, [proposal_id], decision, actor=actor, repo=repo, root=root)[0]


def decide_many(
    store: Store,
    proposal_ids: Sequence[str],
    decision: str,
    *,
    actor: str | None = None,
    repo: str | None = None,
    root: Path | None = None,
) -> list[Decision]:
    """``decide`` for several proposals in one transaction: every id is checked to be open first, and if one
    action fails (two proposals over one memory) nothing is decided."""
    if decision not in DECISIONS:
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown decision {decision!r} (valid: {', '.join(DECISIONS)})")
    if not proposal_ids:
        raise MnemeError(ERR_VALIDATION_FAILED, "no proposal ids given")
    proposals = _open(store, [pid.strip() for pid in proposal_ids], repo, root)
    who = actor or store.actor

    def write() -> list[Decision]:
        decided = []
        for proposal in proposals:
            change = _accept(store, proposal) if decision == "accept" else StatusChange()
            record = DecisionRow(
                proposal.id,
                proposal.kind,
                decision,
                proposal.memory_ids,
                change.changed,
                proposal.reason,
                config.now().isoformat(sep=" "),
                who,
            )
            store.decisions.record(record)
            decided.append(Decision(record, change))
        return decided

    return store.run_transaction(write)


def undo(store: Store, proposal_id: str, *, actor: str | None = None) -> Decision:
    """Reverse the last decision on a proposal: an accept's status changes are put back (audited), a rejection
    is forgotten (the proposal is open again)."""
    who = actor or store.actor

    def write() -> Decision:
        row = store.decisions.get(proposal_id.strip())
        if row is None or row.decision == UNDONE:
            raise MnemeError(ERR_NOT_FOUND, f"no decision on proposal {proposal_id!r} to undo")
        change = store.undo(StatusChange(row.changes), reason=f"review undo: {row.decision} of {row.proposal_id}")
        record = DecisionRow(
            row.proposal_id, row.kind, UNDONE, row.memory_ids, (), row.reason, config.now().isoformat(sep=" "), who
        )
        store.decisions.record(record)
        return Decision(record, change)

    return store.run_transaction(write)


def _open(store: Store, wanted: list[str], repo: str | None, root: Path | None) -> list[Proposal]:
    """The open proposals with these ids, in that order; ERR_NOT_FOUND naming the first that is not open."""
    found = {proposal.id: proposal for proposal in open_proposals(store, repo, root=root)}
    for proposal_id in wanted:
        if proposal_id in found:
            continue
        with store.sqlite_errors():
            row = store.decisions.get(proposal_id)
        if row is not None and row.decision != UNDONE:
            raise MnemeError(
                ERR_NOT_FOUND,
                f"proposal {proposal_id} is already decided ({row.decision}ed by {row.actor}); nothing decided",
            )
        raise MnemeError(
            ERR_NOT_FOUND,
            f"no open proposal {proposal_id!r} (see `mneme review`; a proposal's id "
            "changes when its memories do); nothing decided",
        )
    return [found[proposal_id] for proposal_id in dict.fromkeys(wanted)]


def _accept(store: Store, proposal: Proposal) -> StatusChange:
    """Run the proposal's action through the store's audited operations."""
    if proposal.action in ("merge", "supersede") and proposal.keep_id is not None:
        keep = proposal.keep_id
        why = (
            f"review: duplicate of #{keep}"
            if proposal.kind == "duplicate"
            else f"review: {proposal.kind}, superseded by #{keep}"
        )
        changed: list[tuple[int, str]] = []
        for other in proposal.memory_ids:
            if other != keep:
                changed += store.mark_superseded(other, keep, reason=why).changed
        return StatusChange(tuple(changed))
    return store.dismiss(list(proposal.memory_ids), reason=f"review: {proposal.kind}: {proposal.reason}")


def decide_document(
    store: Store, proposal_ids: Sequence[str], decision: str, *, actor: str | None = None, root: Path | None = None
) -> dict[str, Any]:
    """Accept, reject or undo (``decision``) proposals in one transaction, as ``mneme review accept|reject|undo
    --json`` prints it and the MCP tool ``review_decide`` returns it: ``{"decisions": [...]}``."""
    if decision == UNDO:
        decisions = store.run_transaction(lambda: [undo(store, pid, actor=actor) for pid in proposal_ids])
    else:
        decisions = decide_many(store, proposal_ids, decision, actor=actor, root=root)
    return {"decisions": [item.to_json() for item in decisions]}


def pin_document(store: Store, ids: Sequence[int], *, pin: bool) -> dict[str, list[int]]:
    """Pin or unpin memories, as ``mneme pin|unpin --json`` prints it and the MCP tools return it:
    ``{"pinned"|"unpinned": ids changed, "unchanged": the others}``."""
    changed = store.pin(ids) if pin else store.unpin(ids)
    return {"pinned" if pin else "unpinned": changed, "unchanged": [i for i in dict.fromkeys(ids) if i not in changed]}
