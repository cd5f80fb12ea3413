"""Store operations for show / restore / supersede (issues 13 and 14): atomic, audited, nothing deleted."""

from __future__ import annotations

import pytest
from provenances import SYNCED

from mneme_tui.errors import ERR_NOT_FOUND, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.store import Store


def _error(action) -> MnemeError:
    with pytest.raises(MnemeError) as caught:
        action()
    return caught.value


def _statuses(store: Store, *ids: int) -> list[str]:
    return [store.get(i).status for i in ids]


def test_restore_brings_tombstoned_and_superseded_back(store: Store):
    gone = store.save("dismissed in an earlier session")
    old, new = store.save("old advice"), store.save("new advice")
    store.dismiss([gone.id])
    store.mark_superseded(old.id, new.id)
    change = store.restore([gone.id, old.id, new.id])
    assert change.changed == ((gone.id, "tombstoned"), (old.id, "superseded"))  # new was already active
    assert _statuses(store, gone.id, old.id, new.id) == ["active"] * 3
    assert store.get(old.id).superseded_by == 0
    assert [(h.from_status, h.to_status, h.reason) for h in store.history(gone.id)] == [
        ("active", "tombstoned", "dismissed"),
        ("tombstoned", "active", "restored"),
    ]
    assert store.recall("dismissed earlier session", repo="global", profile="spec")[0].memory.id == gone.id


def test_restore_checks_every_id_first(store: Store):
    gone = store.save("a")
    store.dismiss([gone.id])
    error = _error(lambda: store.restore([gone.id, 999]))
    assert error.code == ERR_NOT_FOUND and "999" in error.message
    assert _statuses(store, gone.id) == ["tombstoned"] and len(store.history(gone.id)) == 1
    assert _error(lambda: store.restore([])).code == ERR_VALIDATION_FAILED


def test_undo_of_a_restore_tombstones_again(store: Store):
    memory = store.save("x")
    store.dismiss([memory.id])
    store.undo(store.restore([memory.id]))
    assert _statuses(store, memory.id) == ["tombstoned"]


def test_supersede_saves_a_new_memory_and_links_the_old(store: Store):
    old = store.save("Use sqlite's default journal", kind="decision", topic="Storage", repo_id="acme", task_id="T-1")
    new = store.supersede(old.id, "Use WAL mode with a busy timeout")
    assert (new.kind, new.topic, new.repo_id, new.task_id, new.status) == (
        "decision",
        "Storage",
        "acme",
        "T-1",
        "active",
    )
    assert new.id > old.id
    assert (store.get(old.id).status, store.get(old.id).superseded_by) == ("superseded", new.id)
    assert store.get(old.id).content == "Use sqlite's default journal"  # nothing is overwritten
    assert [(h.from_status, h.to_status) for h in store.history(old.id)] == [("active", "superseded")]
    changed = store.supersede(new.id, "Use WAL mode", topic="SQLite", kind="fact")
    assert (changed.kind, changed.topic) == ("fact", "SQLite")


def test_supersede_refuses_statutory_kinds_and_inactive_memories(store: Store):
    pitfall = store.mint("a pitfall task sync learned", provenance=SYNCED, kind="pitfall", repo_id="acme")
    before = store.count()
    error = _error(lambda: store.supersede(pitfall.id, "edited by hand"))
    assert error.code == ERR_VALIDATION_FAILED and "pitfall" in error.message
    advisory = store.save("advice")
    assert _error(lambda: store.supersede(advisory.id, "x", kind="pattern")).code == ERR_VALIDATION_FAILED
    store.dismiss([advisory.id])
    assert _error(lambda: store.supersede(advisory.id, "x")).code == ERR_VALIDATION_FAILED
    assert _error(lambda: store.supersede(999, "x")).code == ERR_NOT_FOUND
    assert _error(lambda: store.supersede(store.save("y").id, "  ")).code == ERR_VALIDATION_FAILED
    assert store.count() == before + 2  # only the two saves: every refused supersede wrote nothing


def test_detail_has_history_and_both_directions_of_supersession(store: Store):
    first = store.save("v1")
    second = store.supersede(first.id, "v2")
    third = store.supersede(second.id, "v3")
    store.reinforce("T-9", [second.id])
    detail = store.detail(second.id)
    assert detail.memory.id == second.id
    assert detail.superseded_by is not None and detail.superseded_by.id == third.id
    assert [m.id for m in detail.supersedes] == [first.id]
    assert [(h.from_status, h.to_status) for h in detail.history] == [("active", "superseded")]
    assert detail.accessed_by == ("T-9",)
    document = detail.to_json()
    assert document["memory"]["id"] == second.id and document["superseded_by"]["id"] == third.id
    assert [m["id"] for m in document["supersedes"]] == [first.id] and document["accessed_by"] == ["T-9"]
    assert store.detail(first.id).supersedes == () and store.detail(third.id).superseded_by is None
    assert _error(lambda: store.detail(999)).code == ERR_NOT_FOUND


def test_revision_grows_with_every_write(store: Store):
    start = store.revision()
    memory = store.save("x")
    after_save = store.revision()
    store.dismiss([memory.id])
    assert start < after_save < store.revision()
