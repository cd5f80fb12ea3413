"""The Store API: save validation, dismissal, per-task reinforcement (TC-MEM-05, 06, 09, 10)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from provenances import SYNCED

from mneme_reference import NOW, raw_rows
from mneme_tui import config
from mneme_tui.bench.synthetic import generate
from mneme_tui.errors import ERR_CONFIG, ERR_DATABASE, ERR_NOT_FOUND, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory import kinds as K
from mneme_tui.memory.store import Store


def _code(call) -> str:
    with pytest.raises(MnemeError) as caught:
        call()
    return caught.value.code


# ----------------------------------------------------------------------------------- save
def test_save_defaults(store: Store):
    memory = store.save("defaults apply")
    assert (memory.kind, memory.topic, memory.repo_id, memory.task_id) == ("reflection", "General", "global", "")
    assert (memory.status, memory.superseded_by, memory.access_count) == ("active", 0, 0)
    assert memory.created_at == NOW
    assert store.get(memory.id) == memory
    row = raw_rows(store.path)[0]
    assert (row["repo_id"], row["kind"], row["topic"], row["status"]) == ("global", "reflection", "General", "active")
    assert (row["superseded_by"], row["access_count"], row["task_id"]) == (0, 0, "")


@pytest.mark.parametrize("content", ["", " ", "   \n\t  ", "\n"])
def test_tc_mem_05_empty_content_rejected_by_api(store: Store, content):
    with pytest.raises(MnemeError) as caught:
        store.save(content)
    assert caught.value.code == ERR_VALIDATION_FAILED
    assert "empty" in caught.value.message
    assert raw_rows(store.path) == []


@pytest.mark.parametrize("kind", ["pitfall", "pattern", "release", "task", "commit", "review", "legacy_spec"])
def test_tc_mem_06_statutory_kinds_rejected_by_save(store: Store, kind):
    assert _code(lambda: store.save("fake", kind=kind)) == ERR_VALIDATION_FAILED
    assert raw_rows(store.path) == []
    # the internal write path (task sync, Legion import) may mint them
    assert store.mint("verified", provenance=SYNCED, kind=kind).kind == kind


def test_statutory_and_advisory_kind_lists_match_spec():
    assert set(K.ADVISORY_KINDS) == {"reflection", "axiom", "decision", "fact", "preference", "architecture"}
    assert set(K.STATUTORY_KINDS) == {"pitfall", "pattern", "release", "task", "commit", "review", "legacy_spec"}


@pytest.mark.parametrize("kind", K.ADVISORY_KINDS)
def test_advisory_kinds_accepted(store: Store, kind):
    assert store.save("advisory", kind=kind).kind == kind


def test_unknown_kind_rejected_with_valid_kinds_listed(store: Store):
    with pytest.raises(MnemeError) as caught:
        store.save("x", kind="bogus")
    assert caught.value.code == ERR_VALIDATION_FAILED
    for kind in K.ADVISORY_KINDS:
        assert kind in caught.value.message
    assert _code(lambda: store.mint("x", provenance=SYNCED, kind="bogus")) == ERR_VALIDATION_FAILED
    assert raw_rows(store.path) == []


def test_mint_many_is_all_or_nothing(store: Store):
    items = [dict(content="fine", kind="reflection"), dict(content="  ", kind="reflection")]
    assert _code(lambda: store.mint_many(items)) == ERR_VALIDATION_FAILED
    assert raw_rows(store.path) == []


def test_mint_keeps_given_fields(store: Store):
    when = NOW - timedelta(days=3, hours=4)
    memory = store.mint(
        "old pitfall",
        provenance=SYNCED,
        kind="pitfall",
        topic="Verification",
        repo_id="nomos",
        task_id="INT-734",
        created_at=when,
        access_count=7,
    )
    fetched = store.get(memory.id)
    assert fetched == memory
    assert (fetched.created_at, fetched.access_count, fetched.task_id) == (when, 7, "INT-734")


def test_bad_clock_is_err_config(store: Store, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MNEME_NOW", "next tuesday")
    assert _code(lambda: store.save("x")) == ERR_CONFIG
    assert _code(lambda: store.recall("x", repo="global", profile="spec")) == ERR_CONFIG
    assert raw_rows(store.path) == []


def test_get_unknown_id_is_not_found(store: Store):
    assert _code(lambda: store.get(42)) == ERR_NOT_FOUND


# ------------------------------------------------------------------------------- dismiss
def test_tc_mem_09_dismiss_tombstones_and_excludes_from_active_recall(store: Store):
    keep = store.save("redis cache eviction policy", repo_id="nomos")
    gone = store.save("redis cache eviction is lru", repo_id="nomos")
    before = [r.memory.id for r in store.recall("redis cache eviction", repo="nomos", profile="spec")]
    assert set(before) == {keep.id, gone.id}

    change = store.dismiss([gone.id])
    assert change.ids == [gone.id]
    assert store.get(gone.id).status == "tombstoned"
    for cross in (False, True):
        after = [
            r.memory.id for r in store.recall("redis cache eviction", repo="nomos", cross_repo=cross, profile="spec")
        ]
        assert after == [keep.id]
    # nothing deleted; the change is audited
    assert len(raw_rows(store.path)) == 2
    history = store.history(gone.id)
    assert [(h.from_status, h.to_status) for h in history] == [("active", "tombstoned")]
    assert [m.id for m in store.list()] == [keep.id]
    assert [m.id for m in store.list(status="tombstoned")] == [gone.id]


def test_dismiss_superseded_memory(store: Store):
    old = store.save("old advice")
    new = store.save("new advice")
    store.mark_superseded(old.id, new.id)
    assert store.get(old.id).superseded_by == new.id
    store.dismiss([old.id])
    assert store.get(old.id).status == "tombstoned"


def test_dismiss_unknown_ids_changes_nothing(store: Store):
    a = store.save("first")
    b = store.save("second")
    with pytest.raises(MnemeError) as caught:
        store.dismiss([a.id, 999, b.id, 1000])
    assert caught.value.code == ERR_NOT_FOUND
    assert "999" in caught.value.message and "1000" in caught.value.message
    assert [row["status"] for row in raw_rows(store.path)] == ["active", "active"]
    assert store.history(a.id) == []


def test_dismiss_twice_is_a_no_op(store: Store):
    memory = store.save("x")
    assert store.dismiss([memory.id]).ids == [memory.id]
    assert store.dismiss([memory.id]).ids == []
    assert len(store.history(memory.id)) == 1


def test_dismiss_nothing_is_validation_error(store: Store):
    assert _code(lambda: store.dismiss([])) == ERR_VALIDATION_FAILED


def test_undo_reverts_a_dismissal(store: Store):
    memory = store.save("undo me")
    change = store.dismiss([memory.id])
    store.undo(change)
    assert store.get(memory.id).status == "active"
    assert [(h.from_status, h.to_status) for h in store.history(memory.id)] == [
        ("active", "tombstoned"),
        ("tombstoned", "active"),
    ]


# --------------------------------------------------------------------------- reinforcement
def _access(store: Store, memory_id: int) -> int:
    return raw_rows(store.path, "id = ?", (memory_id,))[0]["access_count"]


def _task_access(store: Store) -> set[tuple[str, int]]:
    return set(store.db.execute_sql("SELECT task_id, memory_id FROM task_access").fetchall())


def test_tc_mem_10_read_only_recall_does_not_change_access_count(store: Store):
    memory = store.save("flaky test quarantine", repo_id="nomos")
    for _ in range(3):
        assert [r.memory.id for r in store.recall("flaky test", repo="nomos", profile="spec")] == [memory.id]
        assert [r.memory.id for r in store.recall("flaky test", repo="x", cross_repo=True, profile="spec")] == [
            memory.id
        ]
    assert _access(store, memory.id) == 0
    assert _task_access(store) == set()


def test_tc_mem_10_task_recall_reinforces_once_per_distinct_task(store: Store):
    a = store.save("flaky test quarantine", repo_id="nomos")
    b = store.save("flaky integration test retries", repo_id="nomos")
    store.save("unrelated", repo_id="other")

    store.recall("flaky test", repo="nomos", task_id="INT-1", profile="spec")
    assert (_access(store, a.id), _access(store, b.id)) == (1, 1)
    store.recall("flaky test", repo="nomos", task_id="INT-1", profile="spec")  # same task again: +0
    assert (_access(store, a.id), _access(store, b.id)) == (1, 1)
    store.recall("flaky test", repo="nomos", task_id="INT-2", profile="spec")  # another task: +1
    assert (_access(store, a.id), _access(store, b.id)) == (2, 2)
    store.recall("flaky test", repo="nomos", profile="spec")  # read-only: +0
    assert (_access(store, a.id), _access(store, b.id)) == (2, 2)
    assert _task_access(store) == {("INT-1", a.id), ("INT-1", b.id), ("INT-2", a.id), ("INT-2", b.id)}
    assert store.task_ids_for(a.id) == ["INT-1", "INT-2"]


def test_tc_mem_10_reinforce_api(store: Store):
    a = store.save("one")
    b = store.save("two")
    assert store.reinforce("SUB-1212", [a.id, a.id, b.id]) == [a.id, b.id]
    assert store.reinforce("SUB-1212", [a.id, b.id]) == []
    assert store.reinforce("SUB-1213", [b.id]) == [b.id]
    assert (_access(store, a.id), _access(store, b.id)) == (1, 2)
    assert _task_access(store) == {("SUB-1212", a.id), ("SUB-1212", b.id), ("SUB-1213", b.id)}
    assert _code(lambda: store.reinforce("  ", [a.id])) == ERR_VALIDATION_FAILED


def test_reinforce_counts_only_new_pairs_in_the_order_given_past_one_query_of_ids(db_target):
    store = Store(db_target)
    try:
        ids = store.mint_ids(generate(1_100, now=config.now()))  # more than two IN lists of 500
        before = {m.id: m.access_count for m in store.list(status="all", limit=None, order="id")}
        store.reinforce("T-1", ids[5:8])
        wanted = [ids[9], ids[6], *ids[::-1][:1_000], ids[9]]
        counted = store.reinforce("T-1", wanted)
        assert counted == [i for i in dict.fromkeys(wanted) if i not in ids[5:8]]
        assert store.reinforce("T-1", wanted) == []
        assert store.reinforce("T-2", [ids[6]]) == [ids[6]]
        added = {m.id: m.access_count - before[m.id] for m in store.list(status="all", limit=None, order="id")}
        twice = {ids[6]}
        once = (set(counted) | set(ids[5:8])) - twice
        assert {i for i, n in added.items() if n == 2} == twice
        assert {i for i, n in added.items() if n == 1} == once
        assert sum(added.values()) == len(once) + 2
        assert store.task_ids_for(ids[6]) == ["T-1", "T-2"]
    finally:
        store.close()


def test_dismissing_many_at_once_changes_and_audits_each_once_in_order_and_undoes(db_target):
    store = Store(db_target)
    try:
        store.mint_ids(generate(700, now=config.now()))
        active = [m.id for m in store.list(status="active", limit=None, order="id")]
        store.dismiss(active[:3])
        wanted = [*active[:3], *active[::-1][:620]]  # past one IN list of 500 and many audit inserts
        change = store.dismiss(wanted, reason="bulk")
        changed = [i for i in wanted if i not in active[:3]]
        assert change.changed == tuple((i, "active") for i in changed)
        assert {store.get(i).status for i in wanted} == {"tombstoned"}
        audited = store.db.execute_sql(
            "SELECT memory_id, from_status, to_status FROM memory_audit WHERE reason = ? ORDER BY id", ("bulk",)
        ).fetchall()
        assert [tuple(row) for row in audited] == [(i, "active", "tombstoned") for i in changed]
        store.undo(change)
        assert {store.get(i).status for i in changed} == {"active"}
        assert {store.get(i).status for i in active[:3]} == {"tombstoned"}
    finally:
        store.close()


def test_reinforcement_is_seen_by_the_next_recall(store: Store):
    store.save("reinforced memory text", repo_id="nomos")
    first = store.recall("reinforced memory", repo="nomos", task_id="T-1", profile="spec")[0]
    assert first.components["reinforcement"] == 1.0
    second = store.recall("reinforced memory", repo="nomos", profile="spec")[0]
    assert second.memory.access_count == 1
    assert second.components["reinforcement"] == pytest.approx(1.05)
    assert second.score == pytest.approx(first.score * 1.05)


# ---------------------------------------------------------------------------------- list
def test_list_filters_and_order(store: Store):
    t0 = NOW - timedelta(days=10)
    ids = [
        store.mint(f"m{i}", provenance=SYNCED, kind="reflection", repo_id=repo, created_at=t0 + timedelta(days=i)).id
        for i, repo in enumerate(["nomos", "acme", "global", "nomos"])
    ]
    assert [m.id for m in store.list()] == ids[::-1]  # newest first
    assert [m.id for m in store.list(repo_id="nomos")] == [ids[3], ids[0]]
    assert [m.id for m in store.list(repo_id="nomos", include_global=True)] == [ids[3], ids[2], ids[0]]
    assert [m.id for m in store.list(limit=2)] == [ids[3], ids[2]]
    assert [m.id for m in store.list(order="oldest")] == ids
    assert _code(lambda: store.list(status="bogus")) == ERR_VALIDATION_FAILED
    assert _code(lambda: store.list(order="bogus")) == ERR_VALIDATION_FAILED
    assert store.status_counts() == {"active": 4, "superseded": 0, "tombstoned": 0, "all": 4}


@pytest.mark.sqlite_only
def test_read_only_connection_gives_err_database(store: Store, tmp_path):
    """A database the process may not write to: writes fail with one ERR_DATABASE, reads still work."""
    memory = store.save("readable")
    store.db.execute_sql("PRAGMA query_only = 1")
    with pytest.raises(MnemeError) as caught:
        store.save("not written")
    assert caught.value.code == ERR_DATABASE
    assert "\n" not in caught.value.message
    assert _code(lambda: store.dismiss([memory.id])) == ERR_DATABASE
    assert [r.memory.id for r in store.recall("readable", repo="global", profile="spec")] == [memory.id]
    assert store.get(memory.id).status == "active"


def test_created_at_is_the_fixed_clock(store: Store, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MNEME_NOW", "2030-01-02T03:04:05Z")
    assert store.save("x").created_at == datetime(2030, 1, 2, 3, 4, 5)
    monkeypatch.setenv("MNEME_NOW", "2030-01-02T05:04:05+02:00")
    assert store.save("y").created_at == datetime(2030, 1, 2, 3, 4, 5)
