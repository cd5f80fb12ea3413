"""The SQLite file: the ``memories`` table is exactly the spec's DDL (§3), WAL, schema version, 0600."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from mneme_tui.errors import ERR_DATABASE, MnemeError
from mneme_tui.memory.persistence.migrations import SCHEMA_VERSION
from mneme_tui.memory.store import Store

# Copied verbatim from seeds/mneme-spec.txt §3 ("The SQLite persistence schema matches mem.Memory").
SPEC_DDL = """
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    repo_id TEXT DEFAULT '',
    kind TEXT NOT NULL,
    topic TEXT NOT NULL,
    content TEXT NOT NULL,
    task_id TEXT NOT NULL,
    embedding BLOB,
    created_at DATETIME NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',
    superseded_by INTEGER DEFAULT 0,
    access_count INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX IF NOT EXISTS idx_memories_topic ON memories(topic);
CREATE INDEX IF NOT EXISTS idx_memories_status ON memories(status);
CREATE INDEX IF NOT EXISTS idx_memories_repo ON memories(repo_id);
CREATE INDEX IF NOT EXISTS idx_memories_kind ON memories(kind);
CREATE INDEX IF NOT EXISTS idx_memories_repo_kind_status ON memories(repo_id, kind, status);
"""


def _table_info(connection: sqlite3.Connection) -> list[tuple]:
    # (cid, name, type, notnull, dflt_value, pk)
    return [tuple(row) for row in connection.execute("PRAGMA table_info(memories)")]


def _indexes(connection: sqlite3.Connection) -> dict[str, tuple]:
    result = {}
    for row in connection.execute("PRAGMA index_list(memories)"):
        name, unique, origin = row[1], row[2], row[3]
        columns = tuple(r[2] for r in connection.execute(f"PRAGMA index_info({name})"))
        result[name] = (unique, origin, columns)
    return result


@pytest.fixture
def spec_db(tmp_path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(tmp_path / "spec.db")
    connection.executescript(SPEC_DDL)
    yield connection
    connection.close()


@pytest.fixture
def store_db(tmp_path: Path) -> sqlite3.Connection:
    path = tmp_path / "store" / "mneme.db"
    Store(path).close()
    connection = sqlite3.connect(path)
    yield connection
    connection.close()


def test_memories_columns_equal_spec_ddl(spec_db, store_db):
    expected = _table_info(spec_db)
    assert [c[1] for c in expected] == [
        "id",
        "repo_id",
        "kind",
        "topic",
        "content",
        "task_id",
        "embedding",
        "created_at",
        "status",
        "superseded_by",
        "access_count",
    ]
    assert _table_info(store_db) == expected


def test_memories_indexes_equal_spec_ddl(spec_db, store_db):
    expected = _indexes(spec_db)
    assert set(expected) == {
        "idx_memories_topic",
        "idx_memories_status",
        "idx_memories_repo",
        "idx_memories_kind",
        "idx_memories_repo_kind_status",
    }
    assert expected["idx_memories_repo_kind_status"][2] == ("repo_id", "kind", "status")
    assert _indexes(store_db) == expected


def test_memories_is_autoincrement_like_the_spec(spec_db, store_db):
    """AUTOINCREMENT means ids are never reused (sqlite_sequence exists in both)."""
    names = lambda c: {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}  # noqa: E731
    assert "sqlite_sequence" in names(spec_db)
    assert "sqlite_sequence" in names(store_db)
    sql = lambda c: c.execute("SELECT sql FROM sqlite_master WHERE name='memories'").fetchone()[0]  # noqa: E731
    assert " ".join(sql(store_db).split()) == " ".join(sql(spec_db).split())


def test_side_tables_live_outside_memories(store_db):
    """Extra state (audit, per-task access) is in separate tables, never extra columns of memories."""
    tables = {r[0] for r in store_db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "memories",
        "task_access",
        "memory_audit",
        "mneme_meta",
        "memory_revision",
        "legion_records",
        "task_sync_ledger",
    } <= tables
    task_access = [r[1] for r in store_db.execute("PRAGMA table_info(task_access)")]
    assert {"task_id", "memory_id"} <= set(task_access)


def test_wal_mode_and_schema_version(store_db):
    assert store_db.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    assert store_db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7


def test_file_mode_0600_and_parent_folders_created(tmp_path: Path):
    path = tmp_path / "a" / "b" / "c" / "mneme.db"
    store = Store(path)
    store.save("parent folders are created on first use")
    assert path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for sidecar in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        if sidecar.exists():
            assert stat.S_IMODE(sidecar.stat().st_mode) & 0o077 == 0, sidecar
    store.close()


def test_reopening_keeps_rows_and_schema(tmp_path: Path):
    path = tmp_path / "mneme.db"
    first = Store(path)
    saved = first.save("kept across reopen")
    first.close()
    second = Store(path)
    assert second.get(saved.id).content == "kept across reopen"
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 1
    connection.close()


def test_store_opens_a_database_created_from_the_spec_ddl(tmp_path: Path):
    """A mneme.db made by another implementation of the spec (no side tables, version 0) is adopted."""
    path = tmp_path / "spec.db"
    connection = sqlite3.connect(path)
    connection.executescript(SPEC_DDL)
    connection.execute(
        "INSERT INTO memories(repo_id, kind, topic, content, task_id, created_at) VALUES (?,?,?,?,?,?)",
        ("nomos", "reflection", "General", "written elsewhere", "", "2026-11-01 10:00:00"),
    )
    connection.commit()
    connection.close()
    store = Store(path)
    assert [m.content for m in store.list(status="all")] == ["written elsewhere"]
    # a row without an embedding (NULL blob) is a zero vector: lexical match only, never NaN
    results = store.recall("written elsewhere", repo="nomos", profile="spec")
    assert [r.memory.content for r in results] == ["written elsewhere"]
    assert results[0].components["cosine"] == 0.0
    assert results[0].components["lexical"] == 1.0


def test_newer_schema_version_is_refused(tmp_path: Path):
    path = tmp_path / "mneme.db"
    Store(path).close()
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA user_version = 999")
    connection.close()
    with pytest.raises(MnemeError) as caught:
        Store(path)
    assert caught.value.code == ERR_DATABASE
