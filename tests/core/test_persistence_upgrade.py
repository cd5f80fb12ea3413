"""Upgrades: a database written by schema 1 (a checked-in fixture) and one of schema 2 without the tables
schema 3 added are brought up to date on open; nothing is lost and every command works afterwards."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from mneme_tui.legion.markdown.schemas import OUTCOMES
from mneme_tui.memory.persistence import schema
from mneme_tui.memory.persistence.migrations import MIGRATIONS, SCHEMA_VERSION
from mneme_tui.memory.store import Store

SCHEMA1_FIXTURE = Path(__file__).parent.parent / "data" / "mneme_schema1.db"
"""Written once by the schema-1 code's DDL (memories with its insert trigger, audit, task access, meta,
revision): seven memories (active, tombstoned, superseded), two audit rows, three task_access rows."""


def _dump(path: Path, table: str, order: str) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
    finally:
        connection.close()


def _catalogue(path: Path) -> tuple[int, set[tuple[str, str]]]:
    connection = sqlite3.connect(path)
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        names = {
            (t, n) for t, n in connection.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        }
        return version, names
    finally:
        connection.close()


def _schema2_without_side_tables(path: Path) -> None:
    """A database as schema 2 left it, before legion_records and task_sync_ledger existed."""
    connection = sqlite3.connect(path)
    scripts = "".join(m.scripts["sqlite"] for m in MIGRATIONS if m.version <= 2)
    connection.executescript(f"BEGIN;{scripts}PRAGMA user_version = 2;COMMIT;")
    connection.execute(
        "INSERT INTO memories(repo_id, kind, topic, content, task_id, created_at) VALUES (?,?,?,?,?,?)",
        ("acme", "reflection", "General", "written by schema 2", "", "2026-11-01 10:00:00"),
    )
    connection.commit()
    connection.close()


@pytest.fixture
def schema1_db(tmp_path: Path) -> Path:
    path = tmp_path / "old.db"
    shutil.copyfile(SCHEMA1_FIXTURE, path)
    return path


def test_the_fixture_is_schema_1():
    version, names = _catalogue(SCHEMA1_FIXTURE)
    assert version == 1
    assert ("trigger", "memories_revision_insert") in names
    assert ("table", "legion_records") not in names and ("table", "task_sync_ledger") not in names


def test_schema_1_upgrades_to_the_current_schema_and_keeps_every_row(schema1_db: Path):
    tables = (("memories", "id"), ("memory_audit", "id"), ("task_access", "task_id, memory_id"), ("mneme_meta", "key"))
    before = {table: _dump(schema1_db, table, order) for table, order in tables}
    assert len(before["memories"]) == 7 and len(before["task_access"]) == 3
    Store(schema1_db).close()
    version, names = _catalogue(schema1_db)
    assert version == SCHEMA_VERSION
    assert ("trigger", "memories_revision_insert") not in names  # schema 2 dropped it
    assert {
        ("trigger", "memories_revision_update"),
        ("table", "legion_records"),
        ("table", "task_sync_ledger"),
        ("index", "idx_legion_records_identity"),
        ("table", "memory_pins"),
        ("table", "curation_decisions"),
        ("table", "memory_text_keys"),
        ("index", "idx_memory_text_keys_repo_kind_key"),
    } <= names  # schema 6: curation; schema 8: the text keys
    after = {table: _dump(schema1_db, table, order) for table, order in tables}
    assert ("provenance_version", "1") in after["mneme_meta"]  # schema 4 recorded every memory's origin
    after["mneme_meta"] = [row for row in after["mneme_meta"] if row[0] != "provenance_version"]
    assert after["memory_audit"] == [(*row, "") for row in before["memory_audit"]]  # schema 5: actor '' (unknown)
    after["memory_audit"] = before["memory_audit"]
    assert after == before
    store = Store(schema1_db)
    assert store.count() == 7 and store.status_counts()["tombstoned"] == 1
    assert [(e.from_status, e.to_status, e.actor) for e in store.history(5)] == [("active", "tombstoned", "")]
    assert store.detail(5).created_by == ""
    assert store.task_ids_for(2) == ["T-1", "T-2"]
    assert store.get(6).superseded_by == 7


def test_every_command_works_after_upgrading_schema_1(schema1_db: Path, tmp_path: Path, cli):
    db = ("--db", str(schema1_db))
    found = cli("recall", "connection per thread worker", "-p", "acme", "--json", *db).json()
    assert found[0]["id"] == 1  # the rows written by schema 1 are in the index
    saved = cli("save", "written after the upgrade", "-p", "acme", "--json", *db).json()
    assert saved["id"] == 8  # ids keep growing past the old rows
    listed = cli("list", "-p", "acme", "--json", "-n", "50", *db).json()
    assert {m["id"] for m in listed} == {1, 3, 4, 7, 8}  # -p lists exactly acme; 5 and 6 are not active
    assert cli("dismiss", "3", "--json", *db).json() == {"dismissed": [3], "unchanged": []}
    shown = cli("show", "5", *db).out  # a change and a mint from before schema 5: nobody recorded who
    assert "(by unknown)" in shown and "by unknown" in shown.split("created", 1)[1].splitlines()[0]
    assert [entry["actor"] for entry in cli("show", "3", "--json", *db).json()["history"]] == ["tester@ci"]
    assert cli("recall", "written after the upgrade", "-p", "acme", "--json", *db).json()[0]["id"] == 8

    memory_dir = tmp_path / "legion" / ".planning" / "memory"
    memory_dir.mkdir(parents=True)
    (memory_dir / "OUTCOMES.md").write_text(
        OUTCOMES.template
        + "| O-001 | 2026-11-01 | main | 1 | 01-01 | agent-a | frontend | success | 2 | ui | done |\n",
        encoding="utf-8",
    )
    synced = cli("legion", "sync", "--json", "-p", "acme", "--dir", str(memory_dir), *db).json()
    assert synced["totals"]["added"] == 1

    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    pass\n")
    gates = [{"name": "Function Length", "passed": False, "message": "too long", "file": "src/app.py"}]
    report = {
        "task_id": "INT-9",
        "repo": "acme",
        "modified_files": ["src/app.py"],
        "walkthrough": "Split main.",
        "runs": [{"gates": gates}, {"gates": [{**gates[0], "passed": True}]}],
    }
    (tmp_path / "report.json").write_text(json.dumps(report))
    result = cli("task", "sync", str(tmp_path / "report.json"), "--root", str(root), "--json", *db).json()
    assert result["written"] >= 1
    again = cli("task", "sync", str(tmp_path / "report.json"), "--root", str(root), "--json", *db).json()
    assert again["written"] == 0 and again["duplicates"] == result["written"]

    store = Store(schema1_db)
    assert store.count() == 8 + 1 + result["written"]  # nothing lost, everything added
    assert store.get(5).status == "tombstoned" and store.get(3).status == "tombstoned"


def test_schema_2_without_the_new_side_tables_upgrades(tmp_path: Path, cli):
    path = tmp_path / "v2.db"
    _schema2_without_side_tables(path)
    store = Store(path)
    assert _catalogue(path)[0] == SCHEMA_VERSION
    assert [m.content for m in store.list(status="all")] == ["written by schema 2"]
    store.close()
    memory_dir = tmp_path / "m"
    memory_dir.mkdir()
    (memory_dir / "OUTCOMES.md").write_text(
        OUTCOMES.template
        + "| O-001 | 2026-11-01 | main | 1 | 01-01 | agent-a | frontend | success | 2 | ui | done |\n",
        encoding="utf-8",
    )
    synced = cli("legion", "sync", "--json", "-p", "acme", "--dir", str(memory_dir), "--db", str(path)).json()
    assert synced["totals"]["added"] == 1
    contents = {m["content"] for m in cli("list", "-p", "acme", "--json", "--db", str(path)).json()}
    assert len(contents) == 2 and "written by schema 2" in contents


def test_schema_2_with_lazily_created_side_tables_upgrades(tmp_path: Path):
    """Before schema 3 the two tables created themselves on first use: their rows survive the upgrade."""
    path = tmp_path / "v2.db"
    _schema2_without_side_tables(path)
    connection = sqlite3.connect(path)
    connection.executescript(schema.TASK_SYNC_LEDGER_DDL)
    connection.execute("INSERT INTO task_sync_ledger VALUES ('acme', 'T-1', 'pitfall', 'g', 'a.py', 1, '2026-11-01')")
    connection.commit()
    connection.close()
    store = Store(path)
    assert store.task_sync_ledger.entries("acme", "T-1") == {("pitfall", "g", "a.py"): 1}
    assert store.legion_records.for_project("acme") == []
