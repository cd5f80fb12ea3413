"""The SQLite file: the spec's exact ``memories`` DDL, our side tables, and opening the database safely.

``memories`` is created from the spec's DDL text verbatim (spec §3); everything else we need lives in
tables that point at ``memories.id``:
- ``memory_audit``: every status change (memory id, from, to, when, why).
- ``task_access``: which (task_id, memory_id) pairs already reinforced ``access_count``.
- ``mneme_meta``: this database's identity (``db_uuid``), which keys the on-disk index snapshot.
- ``memory_revision``: filled by a trigger on every update of ``memories``. With ``MAX(id)`` (ids only
  grow: AUTOINCREMENT, nothing is deleted) it tells an in-memory index in any process which rows are new
  and which changed since it last looked. (Schema 1 also logged inserts; schema 2 drops that trigger.)
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import peewee

from mneme_tui.errors import ERR_DATABASE, MnemeError

SCHEMA_VERSION = 2

MEMORIES_DDL = """
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

SIDE_TABLES_DDL = """
CREATE TABLE IF NOT EXISTS memory_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id INTEGER NOT NULL REFERENCES memories(id),
    from_status TEXT NOT NULL,
    to_status TEXT NOT NULL,
    at DATETIME NOT NULL,
    reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS idx_memory_audit_memory ON memory_audit(memory_id);

CREATE TABLE IF NOT EXISTS task_access (
    task_id TEXT NOT NULL,
    memory_id INTEGER NOT NULL REFERENCES memories(id),
    at DATETIME NOT NULL,
    PRIMARY KEY (task_id, memory_id)
);

CREATE TABLE IF NOT EXISTS mneme_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT OR IGNORE INTO mneme_meta(key, value) VALUES ('db_uuid', lower(hex(randomblob(16))));

CREATE TABLE IF NOT EXISTS memory_revision (
    memory_id INTEGER PRIMARY KEY,
    seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memory_revision_seq ON memory_revision(seq);

DROP TRIGGER IF EXISTS memories_revision_insert;
CREATE TRIGGER IF NOT EXISTS memories_revision_update AFTER UPDATE ON memories BEGIN
    INSERT OR REPLACE INTO memory_revision(memory_id, seq)
    VALUES (NEW.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM memory_revision));
END;
"""

class BaseModel(peewee.Model):
    """Unbound base: ``bind_tables`` makes per-database subclasses, so several stores can coexist."""


class MemoryRow(BaseModel):
    """peewee view of the spec's ``memories`` table (created from ``MEMORIES_DDL``, never by peewee)."""

    id = peewee.AutoField()
    repo_id = peewee.TextField(default="")
    kind = peewee.TextField()
    topic = peewee.TextField()
    content = peewee.TextField()
    task_id = peewee.TextField()
    embedding = peewee.BlobField(null=True)
    created_at = peewee.DateTimeField()
    status = peewee.TextField(default="active")
    superseded_by = peewee.IntegerField(default=0)
    access_count = peewee.IntegerField(default=0)

    class Meta:
        table_name = "memories"


class AuditRow(BaseModel):
    id = peewee.AutoField()
    memory_id = peewee.IntegerField()
    from_status = peewee.TextField()
    to_status = peewee.TextField()
    at = peewee.DateTimeField()
    reason = peewee.TextField(default="")

    class Meta:
        table_name = "memory_audit"


class TaskAccessRow(BaseModel):
    task_id = peewee.TextField()
    memory_id = peewee.IntegerField()
    at = peewee.DateTimeField()

    class Meta:
        table_name = "task_access"
        primary_key = peewee.CompositeKey("task_id", "memory_id")


class RevisionRow(BaseModel):
    memory_id = peewee.IntegerField(primary_key=True)
    seq = peewee.IntegerField()

    class Meta:
        table_name = "memory_revision"


@dataclass(frozen=True)
class Tables:
    """The model classes bound to one open database."""

    memory: type[MemoryRow]
    audit: type[AuditRow]
    task_access: type[TaskAccessRow]
    revision: type[RevisionRow]


def bind_tables(db: peewee.Database) -> Tables:
    """Subclasses of the models bound to ``db`` (thread-safe, unlike ``Model.bind``)."""

    def bound(model: type[BaseModel]) -> type:
        meta = type("Meta", (), {"database": db, "table_name": model._meta.table_name})
        return type(model.__name__, (model,), {"Meta": meta, "__module__": __name__})

    return Tables(bound(MemoryRow), bound(AuditRow), bound(TaskAccessRow), bound(RevisionRow))


BUSY_TIMEOUT_MS = 10_000


def open_database(path: Path) -> peewee.SqliteDatabase:
    """Open (creating as needed, 0600) the database at ``path`` in WAL mode and bring its schema up to date.

    Raises ERR_DATABASE with one readable line for a path that cannot be created, a file that is not a
    SQLite database, or a database written by a newer mneme.
    """
    path = Path(path)
    _create_file(path)
    db = peewee.SqliteDatabase(
        str(path),
        pragmas={"busy_timeout": BUSY_TIMEOUT_MS, "foreign_keys": 0},
        timeout=BUSY_TIMEOUT_MS / 1000,
        check_same_thread=False,
    )
    try:
        db.connect(reuse_if_open=True)
        mode = db.execute_sql("PRAGMA journal_mode=WAL").fetchone()
        version = db.execute_sql("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise MnemeError(ERR_DATABASE, f"{path} was written by a newer mneme (schema {version} > {SCHEMA_VERSION})")
        if version < SCHEMA_VERSION or mode is None:
            script = f"BEGIN IMMEDIATE;{MEMORIES_DDL}{SIDE_TABLES_DDL}PRAGMA user_version = {SCHEMA_VERSION};COMMIT;"
            db.connection().executescript(script)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise database_error(path, exc) from None
    except peewee.DatabaseError as exc:
        db.close()
        raise database_error(path, exc) from None
    return db


def database_error(path: Path, exc: BaseException) -> MnemeError:
    """A one-line ERR_DATABASE for a sqlite failure on ``path``."""
    text = str(exc).strip() or type(exc).__name__
    if "not a database" in text or "malformed" in text:
        return MnemeError(ERR_DATABASE, f"{path} is not a mneme database ({text})")
    if "readonly" in text or "read-only" in text:
        return MnemeError(ERR_DATABASE, f"{path} is read-only ({text})")
    if "locked" in text or "busy" in text:
        return MnemeError(ERR_DATABASE, f"{path} is busy: another process holds a write lock ({text})")
    return MnemeError(ERR_DATABASE, f"{path}: {text}")


def _create_file(path: Path) -> None:
    """Create parent folders and an empty 0600 database file if it does not exist yet."""
    if path.is_dir():
        raise MnemeError(ERR_DATABASE, f"{path} is a directory, not a database file")
    if path.exists():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
    except FileExistsError:
        return
    except OSError as exc:
        raise MnemeError(ERR_DATABASE, f"cannot create database {path}: {exc.strerror or exc}") from None
