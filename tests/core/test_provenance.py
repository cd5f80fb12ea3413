"""Provenance (issue 12): every memory says where it came from, statutory kinds only from task sync, and the
schema 4 migration of stores written before it (the Mneme spec 3.1: kind is an "enumeration partitioned by
write provenance"; statutory kinds are "minted strictly by 2PC task sync")."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.markdown.schemas import ERRORS, OUTCOMES, PATTERNS
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory import kinds as K
from mneme_tui.memory.persistence.migrations import MIGRATIONS, script_at
from mneme_tui.memory.records import LEGION_IMPORT, TASK_SYNC, Provenance
from mneme_tui.memory.store import Store

SCHEMA1_FIXTURE = Path(__file__).resolve().parents[1] / "data" / "mneme_schema1.db"
NOW = "2026-03-01T09:00:00"
SYNCED = Provenance(TASK_SYNC, "INT-734")
PROVENANCE = next(migration for migration in MIGRATIONS if migration.version == 4)
"""The schema-4 migration: every memory's provenance, and the re-typing of imported statutory kinds."""


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEME_NOW", NOW)


def _code(call) -> str:
    with pytest.raises(MnemeError) as caught:
        call()
    return caught.value.code


# --------------------------------------------------------------------------------- minting
def test_every_write_path_records_its_provenance(tmp_path: Path):
    store = Store(tmp_path / "m.db")
    saved = store.save("Prefer small PRs", kind="preference", repo_id="acme")
    from_tui = store.save("Typed in the TUI", repo_id="acme", source="tui")
    pattern = store.mint("Blueprint", kind="pattern", topic="pattern:src", repo_id="acme", provenance=SYNCED)
    imported = store.mint(
        "Wave tests", kind="practice", repo_id="acme", provenance=Provenance(LEGION_IMPORT, "PATTERNS.md#P-003")
    )
    assert store.get(saved.id).provenance == Provenance("save")
    assert store.get(from_tui.id).provenance == Provenance("tui")
    assert store.get(pattern.id) == pattern and pattern.verified
    assert store.get(imported.id).provenance.detail == "PATTERNS.md#P-003" and not imported.verified
    assert imported.to_json()["provenance"] == {
        "source": "legion-import",
        "detail": "PATTERNS.md#P-003",
        "verified": False,
    }
    assert pattern.to_json()["provenance"] == {"source": "task-sync", "detail": "INT-734", "verified": True}
    assert pattern.from_line() == "From: task sync · INT-734 (verified)"
    assert imported.from_line() == "From: Legion import · PATTERNS.md P-003 (not task-verified)"
    assert saved.from_line() == "From: mneme save"


@pytest.mark.parametrize("kind", K.STATUTORY_KINDS)
def test_statutory_kinds_are_minted_strictly_by_task_sync(tmp_path: Path, kind: str):
    """Spec 3.1: statutory kinds are "minted strictly by 2PC task sync"."""
    store = Store(tmp_path / "m.db")
    imported = Provenance(LEGION_IMPORT, "PATTERNS.md#P-001")
    assert _code(lambda: store.mint("x", kind=kind, provenance=imported)) == ERR_VALIDATION_FAILED
    assert _code(lambda: store.mint("x", kind=kind, provenance=Provenance("save"))) == ERR_VALIDATION_FAILED
    assert store.count() == 0
    assert store.mint("x", kind=kind, provenance=SYNCED).kind == kind


@pytest.mark.parametrize("kind", K.IMPORTED_KINDS)
def test_imported_kinds_come_only_from_the_legion_import(tmp_path: Path, kind: str):
    store = Store(tmp_path / "m.db")
    assert _code(lambda: store.save("x", kind=kind)) == ERR_VALIDATION_FAILED
    assert _code(lambda: store.mint("x", kind=kind, provenance=SYNCED)) == ERR_VALIDATION_FAILED
    assert store.count() == 0


def test_a_mint_without_provenance_is_refused_and_writes_nothing(tmp_path: Path):
    store = Store(tmp_path / "m.db")
    items = [dict(content="ok", kind="fact", provenance=SYNCED), dict(content="no origin", kind="fact")]
    with pytest.raises(MnemeError) as caught:
        store.mint_many(items)
    assert caught.value.code == ERR_VALIDATION_FAILED and "where it came from" in caught.value.message
    assert _code(lambda: store.save("x", source="cron")) == ERR_VALIDATION_FAILED
    assert store.count() == 0


def test_list_reads_provenance_with_the_rows(tmp_path: Path):
    store = Store(tmp_path / "m.db")
    store.mint_many([dict(content=f"note {i}", kind="fact", repo_id="acme", provenance=SYNCED) for i in range(3)])
    assert {m.provenance for m in store.list(repo_id="acme")} == {SYNCED}


# ------------------------------------------------------------------------------- migration
def test_schema_1_store_gets_unknown_provenance_and_nothing_counts_as_verified(tmp_path: Path):
    path = tmp_path / "old.db"
    shutil.copy(SCHEMA1_FIXTURE, path)
    store = Store(path)
    memories = store.list(status="all", limit=None)
    assert len(memories) == 7
    assert {m.provenance.source for m in memories} == {"unknown"}
    assert not any(m.verified for m in memories)


def _legion_folder(root: Path) -> LegionMemory:
    memory = LegionMemory.for_project(root, branch_provider=lambda _: "main", claude_home=root / "home")
    memory.memory_dir.mkdir(parents=True)
    (memory.memory_dir / "OUTCOMES.md").write_text(
        OUTCOMES.template
        + (
            "| O-001 | 2026-02-01 | main | 1 | 01-01 | agent-a | frontend | success | 2 | ui | done |\n"
            "| O-002 | 2026-02-02 | main | 1 | 01-02 | qa | quality-review | success | 2 | ui | review passed |\n"
        ),
        encoding="utf-8",
    )
    (memory.memory_dir / "PATTERNS.md").write_text(
        PATTERNS.template + "| P-001 | 2026-02-01 | main | Wave tests | phase 5 | 3+ plans | O-001 | testing |\n",
        encoding="utf-8",
    )
    (memory.memory_dir / "ERRORS.md").write_text(
        ERRORS.template + "| E-001 | 2026-02-02 | main | TypeError: x is undefined | guard x | agent-a | true | js |\n",
        encoding="utf-8",
    )
    return memory


OLD_KINDS = {"outcome": "task", "practice": "pattern", "error": "pitfall"}


def _as_schema_3(path: Path) -> None:
    """Turn a store back into what schema 3 wrote: no provenance table or audit actors, imported rows of
    statutory kinds (a quality review as ``review``), user_version 3."""
    connection = sqlite3.connect(path)
    whens = " ".join(f"WHEN '{new}' THEN '{old}'" for new, old in OLD_KINDS.items())
    connection.executescript(f"""
        DROP TABLE memory_provenance;
        ALTER TABLE memory_audit DROP COLUMN actor;
        DELETE FROM mneme_meta WHERE key = 'provenance_version';
        UPDATE memories SET kind = CASE WHEN topic = 'quality-review' THEN 'review' ELSE CASE kind {whens} ELSE kind
            END END WHERE kind IN ('outcome', 'practice', 'error');
        PRAGMA user_version = 3;
    """)
    connection.close()


def test_schema_3_legion_store_is_retyped_with_an_audit_row_each(tmp_path: Path):
    path = tmp_path / "legion.db"
    store = Store(path)
    pattern = store.mint(
        "Blueprint for src", kind="pattern", topic="pattern:src", repo_id="proj", task_id="INT-734", provenance=SYNCED
    )
    store.task_sync_ledger.add([("proj", "INT-734", "pattern", "", "src", pattern.id, NOW)])
    note = store.save("a reflection", repo_id="proj")
    legion = _legion_folder(tmp_path / "project")
    sync(store, legion, "proj")  # imports four rows and exports the task-sync pattern to PATTERNS.md
    before = {m.id: m for m in store.list(status="all", limit=None)}
    store.close()
    _as_schema_3(path)
    old = sqlite3.connect(path)
    old_kinds = dict(old.execute("SELECT id, kind FROM memories"))
    legion_rows = old.execute("SELECT * FROM legion_records ORDER BY memory_id").fetchall()
    old.close()
    assert sorted(old_kinds.values()) == ["pattern", "pattern", "pitfall", "reflection", "review", "task"]

    store = Store(path)
    after = {m.id: m for m in store.list(status="all", limit=None)}
    assert after.keys() == before.keys()
    for memory_id, memory in after.items():
        kept = before[memory_id]
        if memory_id == note.id:  # schema 3 recorded nothing about a saved memory
            kept = replace(kept, provenance=Provenance("unknown"))
        assert memory == kept
    assert after[pattern.id].verified
    imported = {m.provenance.detail: m for m in after.values() if m.provenance.source == LEGION_IMPORT}
    assert sorted(imported) == ["ERRORS.md#E-001", "OUTCOMES.md#O-001", "OUTCOMES.md#O-002", "PATTERNS.md#P-001"]
    assert not any(m.verified for m in imported.values())
    review = imported["OUTCOMES.md#O-002"]
    assert [(e.from_status, e.to_status, e.at.isoformat(), e.reason) for e in store.history(review.id)] == [
        ("active", "active", NOW, "kind review→outcome: imported Legion record, not task-sync verified")
    ]
    assert store.history(imported["PATTERNS.md#P-001"].id)[-1].reason.startswith("kind pattern→practice: ")
    assert store.history(pattern.id) == []  # task-sync knowledge is not touched
    # legion_records are kept, and the next sync finds every row unchanged
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT * FROM legion_records ORDER BY memory_id").fetchall() == legion_rows
    audit_rows = connection.execute("SELECT COUNT(*) FROM memory_audit").fetchone()[0]
    assert audit_rows == 4
    # idempotent: the migration run again changes nothing
    connection.executescript(script_at(PROVENANCE, NOW))
    assert connection.execute("SELECT COUNT(*) FROM memory_audit").fetchone()[0] == audit_rows
    connection.close()
    assert {m.id: m for m in store.list(status="all", limit=None)} == after
    report = sync(store, legion, "proj")
    assert not report.changed
