"""The handshake ranks memories' heads (``Store.active_heads``) read from one covering index, and reads only
the memories it shows: the heads say what the memories say, the ranking is the plain sort of every pitfall
(TC-MEM-12's cooling, pins first), SQLite reads the heads from the index alone, and an existing store gains
the index by migration, on both backends."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from mneme_tui.memory.learning.graduation import graduation_candidates
from mneme_tui.memory.learning.orientation import COOLING_DAYS, orientation
from mneme_tui.memory.learning.scope import in_scope, split_topic
from mneme_tui.memory.persistence import schema
from mneme_tui.memory.persistence.migrations import MIGRATIONS, script_at
from mneme_tui.memory.records import DEMO, LEGION_IMPORT, TASK_SYNC, Memory, Provenance
from mneme_tui.memory.store import Store

NOW = datetime(2026, 3, 1, 9, 0, 0)
KINDS = ("pitfall", "pattern", "practice", "error")
INDEX = "idx_memories_orientation"
GATES = ("Cognitive Complexity", "cognitive  complexity", "Lint", "Nil Check", "Test Coverage")
SCOPES = ("src/store", "src/ui", "docs", "")


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("MNEME_NOW", NOW.isoformat())


def _item(rng: random.Random, number: int) -> dict:
    kind = rng.choice(("pitfall",) * 5 + ("pattern", "practice", "error", "decision"))
    scope = rng.choice(SCOPES)
    if kind == "pattern":
        topic = f"pattern:{scope}" if scope else "Patterns in general"
    else:
        topic = f"{rng.choice(GATES)} @ {scope}" if scope else rng.choice(GATES)
    if kind in ("practice", "error"):
        provenance = Provenance(LEGION_IMPORT, f"PRACTICES.md#P-{number:03d}")
    else:
        provenance = Provenance(rng.choice((TASK_SYNC, TASK_SYNC, DEMO)), f"T-{number}")
    return {
        "kind": kind,
        "topic": topic,
        "content": f"memory {number}\nwith a second line",
        "repo_id": rng.choice(("acme", "acme", "global", "other")),
        "task_id": rng.choice(("", " ", "T-1", "T-2 ", "T-3", f"T-{number}")),
        "created_at": NOW - timedelta(days=rng.randrange(0, 40), seconds=rng.randrange(0, 3) * 3600),
        "status": rng.choice(("active",) * 6 + ("tombstoned",)),
        "access_count": rng.choice((0, 0, 1, 3, 5)),
        "provenance": provenance,
    }


@pytest.fixture
def mixed(store: Store) -> Store:
    """300 memories of every kind the handshake reads (and one it does not), several repositories, gates
    spelled two ways, tasks with spaces or none, some tombstoned, some pinned."""
    rng = random.Random(24)
    ids = store.mint_ids(_item(rng, number) for number in range(300))
    store.pin(rng.sample(ids, 12))
    return store


def _active(store: Store, repo: str) -> list[Memory]:
    return [m for m in store.list(status="active", limit=None) if m.repo_id in (repo, "global") and m.kind in KINDS]


def test_heads_are_the_memories_without_their_text(mixed: Store):
    heads = mixed.active_heads("acme", KINDS)
    expected = _active(mixed, "acme")
    assert sorted(heads) == sorted({m.kind for m in expected})
    assert [h.id for kind in sorted(heads) for h in heads[kind]] == [
        m.id for kind in sorted(heads) for m in sorted(expected, key=lambda m: m.id) if m.kind == kind
    ]
    for head in (h for kind in heads.values() for h in kind):
        memory = mixed.get(head.id)
        assert memory is not None
        assert (head.repo_id, head.kind, head.topic, head.task_id, head.created_at, head.access_count) == (
            memory.repo_id,
            memory.kind,
            memory.topic,
            memory.task_id,
            memory.created_at,
            memory.access_count,
        )
        assert head.verified == memory.verified
    every = mixed.active_heads(None, ("pitfall",))["pitfall"]
    assert {h.id for h in every} == {m.id for m in mixed.list(status="active", kind="pitfall", limit=None)}
    patterns = mixed.active_heads("acme", ("pattern",), verified_only=("pattern",))["pattern"]
    assert patterns == [h for h in heads["pattern"] if h.verified] and len(patterns) < len(heads["pattern"])


def _reference(store: Store, repo: str, files: tuple[str, ...], limit: int | None) -> tuple[list[int], list[int]]:
    """(the pitfalls shown, the ids cooled) by the rules, from every pitfall read whole and sorted."""
    pitfalls = [m for m in _active(store, repo) if m.kind == "pitfall"]
    pinned = store.pinned_ids()
    groups: dict[tuple, list[Memory]] = {}
    for memory in pitfalls:
        gate, scope = split_topic(memory.topic)
        groups.setdefault((memory.repo_id, " ".join(gate.casefold().split()), scope), []).append(memory)
    ranked, cooled = [], []
    for (_, _, scope), members in groups.items():
        recurrence = len({m.task_id.strip() or f"memory #{m.id}" for m in members})
        matched = scope is not None and any(in_scope(path, scope) for path in files)
        for memory in members:
            age = (NOW - memory.created_at).total_seconds() / 86400
            if recurrence < 2 and age > COOLING_DAYS and not matched and memory.id not in pinned:
                cooled.append(memory.id)
            else:
                ranked.append((memory.id not in pinned, not matched, -recurrence, age, -memory.id))
    ranked.sort()
    return [-key[-1] for key in ranked][:limit], sorted(cooled)


@pytest.mark.parametrize("files", [(), ("src/store/store.py",), ("docs/index.md", "src/ui/app.py")])
def test_the_ranking_is_the_plain_sort_of_every_pitfall(mixed: Store, files: tuple[str, ...]):
    for limit in (None, 1, 5, 40):
        view = orientation(mixed, "acme", modified=files, limit=limit)
        shown, cooled = _reference(mixed, "acme", files, limit)
        assert [item.memory.id for item in view.learned_pitfalls] == shown
        assert list(view.cooled) == cooled
        everything = orientation(mixed, "acme", modified=files)
        assert view.omitted["learned_pitfalls"] == len(everything.learned_pitfalls) - len(shown)
        assert [item.memory for item in view.learned_pitfalls] == [
            mixed.get(item.memory.id) for item in view.learned_pitfalls
        ]


def test_patterns_imported_and_candidates_are_read_whole(mixed: Store):
    view = orientation(mixed, "acme", modified=("src/store/x.py",), limit=3)
    for pattern in view.verified_patterns:
        assert pattern.memory == mixed.get(pattern.memory.id) and pattern.memory.verified
    newest = sorted(
        (m for m in _active(mixed, "acme") if m.kind in ("practice", "error")),
        key=lambda m: (m.created_at, m.id),
        reverse=True,
    )
    assert [known.memory for known in view.imported] == newest[:3]
    assert [c.memory.id for c in view.graduation_candidates] == [
        c.memory.id for c in graduation_candidates(mixed, "acme")
    ]
    for candidate in view.graduation_candidates:
        assert candidate.memory == mixed.get(candidate.memory.id) and candidate.memory.verified


def test_sqlite_reads_the_heads_from_the_covering_index_alone(tmp_path: Path):
    store = Store(tmp_path / "mneme.db")
    rng = random.Random(7)
    store.mint_ids(_item(rng, number) for number in range(50))
    statements: list[str] = []
    store.db.connection().set_trace_callback(statements.append)
    orientation(store, "acme", limit=5)
    store.db.connection().set_trace_callback(None)
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT") and "FROM memories m WHERE" in s]
    plans = {s: " ".join(row[-1] for row in store.db.connection().execute("EXPLAIN QUERY PLAN " + s)) for s in reads}
    heads = [plan for s, plan in plans.items() if s.lstrip().startswith("SELECT m.id, m.topic")]
    assert heads and all(f"USING COVERING INDEX {INDEX}" in plan for plan in heads), plans
    assert not any("SCAN m" in plan or "idx_memories_status" in plan for plan in plans.values()), plans
    store.close()


def _orientation_step() -> int:
    """Where the migration that adds the covering index is in the list (its number may change at a merge)."""
    return next(i for i, m in enumerate(MIGRATIONS) if m.scripts["sqlite"] == schema.ORIENTATION_INDEX_DDL)


def test_an_existing_sqlite_store_gains_the_index(tmp_path: Path):
    step = _orientation_step()
    path = tmp_path / "old.db"
    connection = sqlite3.connect(path)
    connection.executescript(
        "".join(script_at(m, "2026-03-01 09:00:00") for m in MIGRATIONS[:step])
        + f"PRAGMA user_version = {MIGRATIONS[step - 1].version};"
    )
    connection.close()
    Store(path).close()
    connection = sqlite3.connect(path)
    assert [r[2] for r in connection.execute(f"PRAGMA index_info({INDEX})")] == [
        "repo_id",
        "kind",
        "status",
        "topic",
        "task_id",
        "created_at",
        "access_count",
    ]
    connection.close()


@pytest.mark.postgres
def test_an_existing_postgresql_store_gains_the_index(pg_database):
    step = _orientation_step()
    store = Store(pg_database.url)
    store.db.execute_sql(f"DROP INDEX {INDEX}")
    store.db.execute_sql(
        "UPDATE mneme_meta SET value = %s WHERE key = 'schema_version'", (str(MIGRATIONS[step - 1].version),)
    )
    store.close()
    store = Store(pg_database.url)
    assert store.dialect.table_shape(store.db, "memories").indexes[INDEX] == (
        "repo_id",
        "kind",
        "status",
        "topic",
        "task_id",
        "created_at",
        "access_count",
    )
    store.close()
