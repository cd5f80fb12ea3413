"""The handshake ranks memories' heads (``Store.active_heads``) read from one covering index, and reads only
the memories it shows: the heads say what the memories say, the ranking is the plain sort of every pitfall
(TC-MEM-12's cooling, pins first), on both backends; SQLite reads the heads from the index alone, and an existing
SQLite store gains the index by migration (PostgreSQL: ``tests/pg/test_pg_handshake.py``)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from handshake_rows import INDEX_COLUMNS, NOW, mixed_items, orientation_index_step

from mneme_tui.memory.learning.graduation import graduation_candidates
from mneme_tui.memory.learning.orientation import COOLING_DAYS, orientation
from mneme_tui.memory.learning.scope import in_scope, split_topic
from mneme_tui.memory.persistence.migrations import MIGRATIONS, script_at
from mneme_tui.memory.records import Memory
from mneme_tui.memory.store import Store

KINDS = ("pitfall", "pattern", "practice", "error")
INDEX = "idx_memories_orientation"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("MNEME_NOW", NOW.isoformat())


@pytest.fixture
def mixed(store: Store) -> Store:
    """300 memories of every kind the handshake reads (and one it does not), several repositories, gates
    spelled two ways, tasks with spaces or none, some tombstoned, some pinned."""
    rng = random.Random(24)
    ids = store.mint_ids(mixed_items(rng, 300))
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
    store.mint_ids(mixed_items(random.Random(7), 50))
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


def test_an_existing_sqlite_store_gains_the_index(tmp_path: Path):
    step = orientation_index_step()
    path = tmp_path / "old.db"
    connection = sqlite3.connect(path)
    connection.executescript(
        "".join(script_at(m, "2026-03-01 09:00:00") for m in MIGRATIONS[:step])
        + f"PRAGMA user_version = {MIGRATIONS[step - 1].version};"
    )
    connection.close()
    Store(path).close()
    connection = sqlite3.connect(path)
    assert tuple(r[2] for r in connection.execute(f"PRAGMA index_info({INDEX})")) == INDEX_COLUMNS
    connection.close()
