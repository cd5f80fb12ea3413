"""Every table the store keeps: the spec's ``memories`` DDL (verbatim, spec §3) and our side tables.

``memories`` is created from the spec's DDL text; everything else lives in tables that point at
``memories.id``:

- ``memory_audit``: every status change (memory id, from, to, when, why, and who: ``actor``, schema 5).
- ``task_access``: which (task_id, memory_id) pairs already reinforced ``access_count``.
- ``mneme_meta``: this database's identity (``db_uuid``), which keys the on-disk index snapshot.
- ``memory_revision``: filled by a trigger on every update of ``memories``. With ``MAX(id)`` (ids only
  grow: AUTOINCREMENT, nothing is deleted) it tells an in-memory index in any process which rows are new
  and which changed since it last looked.
- ``legion_records``: the link between a mirrored Legion record and its memory (``legion/mirror/record_mapping.py``
  describes the columns).
- ``task_sync_ledger``: one row per learning a verified task sync wrote (so a re-sync writes nothing twice).
- ``memory_pins`` and ``curation_decisions``: pinned memories and review decisions (schema 6).
- ``memory_provenance``: where each memory came from (source and detail; schema 4) and who minted it
  (``actor``, schema 5), written with the mint and never changed after it.

The DDL texts are used by the migrations (``migrations.py``); ``tables.py`` declares the shape they build (and a
test checks both dialects against it); the column tuples below derive from that declaration, and the peewee
models are views of the same tables for queries.
"""

from __future__ import annotations

from dataclasses import dataclass

import peewee

from mneme_tui.memory.persistence import tables

MEMORIES_INDEXES_DDL = """
CREATE INDEX IF NOT EXISTS idx_memories_topic ON memories(topic);
CREATE INDEX IF NOT EXISTS idx_memories_status ON memories(status);
CREATE INDEX IF NOT EXISTS idx_memories_repo ON memories(repo_id);
CREATE INDEX IF NOT EXISTS idx_memories_kind ON memories(kind);
CREATE INDEX IF NOT EXISTS idx_memories_repo_kind_status ON memories(repo_id, kind, status);
"""
"""The spec's five indexes on ``memories`` (the same on both backends)."""

MEMORIES_DDL = (
    """
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
"""
    + MEMORIES_INDEXES_DDL
)

AUDIT_DDL = """
CREATE TABLE IF NOT EXISTS memory_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id INTEGER NOT NULL REFERENCES memories(id),
    from_status TEXT NOT NULL,
    to_status TEXT NOT NULL,
    at DATETIME NOT NULL,
    reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS idx_memory_audit_memory ON memory_audit(memory_id);
"""

TASK_ACCESS_DDL = """
CREATE TABLE IF NOT EXISTS task_access (
    task_id TEXT NOT NULL,
    memory_id INTEGER NOT NULL REFERENCES memories(id),
    at DATETIME NOT NULL,
    PRIMARY KEY (task_id, memory_id)
);
"""

META_DDL = """
CREATE TABLE IF NOT EXISTS mneme_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT OR IGNORE INTO mneme_meta(key, value) VALUES ('db_uuid', lower(hex(randomblob(16))));
"""

REVISION_DDL = """
CREATE TABLE IF NOT EXISTS memory_revision (
    memory_id INTEGER PRIMARY KEY,
    seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memory_revision_seq ON memory_revision(seq);
"""

REVISION_TRIGGER = """
CREATE TRIGGER IF NOT EXISTS memories_revision_{event} AFTER {event_upper} ON memories BEGIN
    INSERT OR REPLACE INTO memory_revision(memory_id, seq)
    VALUES (NEW.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM memory_revision));
END;
"""

LEGION_RECORDS_DDL = """
CREATE TABLE IF NOT EXISTS legion_records (
    memory_id INTEGER PRIMARY KEY REFERENCES memories(id),
    project TEXT NOT NULL,
    family TEXT NOT NULL,
    source_file TEXT NOT NULL,
    kind TEXT NOT NULL,
    identity TEXT NOT NULL,
    occurrence INTEGER NOT NULL DEFAULT 0,
    record_id TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL,
    columns TEXT NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    origin TEXT NOT NULL DEFAULT 'file',
    state TEXT NOT NULL DEFAULT 'linked',
    sync_status TEXT NOT NULL DEFAULT 'active',
    sync_superseded_by INTEGER NOT NULL DEFAULT 0,
    synced_at DATETIME NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_legion_records_identity ON legion_records(project, family, kind, identity);
"""

TASK_SYNC_LEDGER_DDL = """
CREATE TABLE IF NOT EXISTS task_sync_ledger (
    repo_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    learning TEXT NOT NULL,
    gate TEXT NOT NULL,
    path TEXT NOT NULL,
    memory_id INTEGER NOT NULL REFERENCES memories(id),
    synced_at DATETIME NOT NULL,
    PRIMARY KEY (repo_id, task_id, learning, gate, path)
);
"""
"""``learning`` is ``pitfall`` or ``pattern``; ``path`` is the cited file ('' when none) or the pattern's
scope; ``gate`` is '' for patterns."""

PROVENANCE_DDL = """
CREATE TABLE IF NOT EXISTS memory_provenance (
    memory_id INTEGER PRIMARY KEY REFERENCES memories(id),
    source TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS idx_memory_provenance_source ON memory_provenance(source);
"""
"""``source``: task-sync (detail: the task id), legion-import (detail: ``FILE#ID``, ``FILE#~fingerprint`` for
an ID-less row), save, tui, mcp (detail: the client), demo, bench, or unknown (rows older than schema 4
whose origin nothing recorded)."""

RETYPED_IMPORT_KINDS = (("task", "outcome"), ("review", "outcome"), ("pattern", "practice"), ("pitfall", "error"))
"""Statutory kind → imported kind, for Legion rows that schema 3 minted with a statutory kind."""

NOW_TOKEN = "datetime('now')"
"""Replaced by the clock's time (``config.now``, quoted) when ``open_database`` runs a migration, so audit rows
follow ``MNEME_NOW``; the script stays valid SQL without the replacement."""


def _retype_case() -> str:
    whens = " ".join(f"WHEN '{old}' THEN '{new}'" for old, new in RETYPED_IMPORT_KINDS)
    return f"CASE kind {whens} END"


_RETYPED_OLD = ", ".join(f"'{old}'" for old, _ in RETYPED_IMPORT_KINDS)
_NOT_YET = "NOT EXISTS (SELECT 1 FROM mneme_meta WHERE key = 'provenance_version')"
_IMPORTED_NOW = (
    f"kind IN ({_RETYPED_OLD}) AND id IN (SELECT memory_id FROM memory_provenance WHERE source = 'legion-import')"
    f" AND {_NOT_YET}"
)

PROVENANCE_MIGRATION = (
    PROVENANCE_DDL
    + f"""
INSERT OR IGNORE INTO memory_provenance(memory_id, source, detail)
    SELECT memory_id, 'task-sync', MIN(task_id) FROM task_sync_ledger GROUP BY memory_id;
INSERT OR IGNORE INTO memory_provenance(memory_id, source, detail)
    SELECT memory_id, 'legion-import', (CASE WHEN source_file != '' THEN source_file ELSE family END) || '#' || identity
    FROM legion_records WHERE origin = 'file';
INSERT INTO memory_audit(memory_id, from_status, to_status, at, reason)
    SELECT id, status, status, {NOW_TOKEN},
           'kind ' || kind || '→' || {_retype_case()} || ': imported Legion record, not task-sync verified'
    FROM memories WHERE {_IMPORTED_NOW} ORDER BY id;
UPDATE memories SET kind = {_retype_case()} WHERE {_IMPORTED_NOW};
INSERT OR IGNORE INTO memory_provenance(memory_id, source, detail) SELECT id, 'unknown', '' FROM memories;
INSERT OR IGNORE INTO mneme_meta(key, value) VALUES ('provenance_version', '1');
"""
)
"""Schema 4: record every memory's origin, and re-type the Legion rows schema 3 imported as statutory kinds
(ids, content, statuses and ``legion_records`` kept; one audit row each). Idempotent: every insert ignores
rows already there and the re-typing runs once (``mneme_meta.provenance_version``)."""

PG_TEXT = 'TEXT COLLATE "C"'
"""PostgreSQL text that sorts by bytes, as SQLite's BINARY collation does (identical ``ORDER BY`` output)."""

PG_REVISION_FUNCTION = """CREATE OR REPLACE FUNCTION mneme_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_revision(memory_id, seq) VALUES (NEW.id, nextval('memory_revision_seq'))
    ON CONFLICT (memory_id) DO UPDATE SET seq = EXCLUDED.seq;
    RETURN NEW;
END $$;"""
"""The update trigger's function: the row's new seq from a sequence."""

PG_SCHEMA_1 = f"""
CREATE TABLE IF NOT EXISTS memories (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    repo_id {PG_TEXT} DEFAULT '',
    kind {PG_TEXT} NOT NULL,
    topic {PG_TEXT} NOT NULL,
    content {PG_TEXT} NOT NULL,
    task_id {PG_TEXT} NOT NULL,
    embedding BYTEA,
    created_at TIMESTAMP NOT NULL,
    status {PG_TEXT} NOT NULL DEFAULT 'active',
    superseded_by BIGINT DEFAULT 0,
    access_count BIGINT NOT NULL DEFAULT 0
);
{MEMORIES_INDEXES_DDL}
CREATE TABLE IF NOT EXISTS memory_audit (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    memory_id BIGINT NOT NULL REFERENCES memories(id),
    from_status {PG_TEXT} NOT NULL,
    to_status {PG_TEXT} NOT NULL,
    at TIMESTAMP NOT NULL,
    reason {PG_TEXT} NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS idx_memory_audit_memory ON memory_audit(memory_id);
CREATE TABLE IF NOT EXISTS task_access (
    task_id {PG_TEXT} NOT NULL,
    memory_id BIGINT NOT NULL REFERENCES memories(id),
    at TIMESTAMP NOT NULL,
    PRIMARY KEY (task_id, memory_id)
);
CREATE TABLE IF NOT EXISTS mneme_meta (
    key {PG_TEXT} PRIMARY KEY,
    value {PG_TEXT} NOT NULL
);
INSERT INTO mneme_meta(key, value) VALUES ('db_uuid', replace(gen_random_uuid()::text, '-', ''))
    ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS memory_revision (
    memory_id BIGINT PRIMARY KEY,
    seq BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memory_revision_seq ON memory_revision(seq);
CREATE SEQUENCE IF NOT EXISTS memory_revision_seq;
{PG_REVISION_FUNCTION}
DROP TRIGGER IF EXISTS memories_revision_update ON memories;
CREATE TRIGGER memories_revision_update AFTER UPDATE ON memories FOR EACH ROW EXECUTE FUNCTION mneme_revision();
"""
"""PostgreSQL schema 1: the spec's tables with identity ids, ``bytea`` embeddings and ``timestamp`` times; the
revision trigger takes its seq from a sequence (writers hold the write lock, so seqs commit in order)."""

PG_SCHEMA_3 = f"""
CREATE TABLE IF NOT EXISTS legion_records (
    memory_id BIGINT PRIMARY KEY REFERENCES memories(id),
    project {PG_TEXT} NOT NULL,
    family {PG_TEXT} NOT NULL,
    source_file {PG_TEXT} NOT NULL,
    kind {PG_TEXT} NOT NULL,
    identity {PG_TEXT} NOT NULL,
    occurrence BIGINT NOT NULL DEFAULT 0,
    record_id {PG_TEXT} NOT NULL DEFAULT '',
    content_hash {PG_TEXT} NOT NULL,
    columns {PG_TEXT} NOT NULL,
    archived BIGINT NOT NULL DEFAULT 0,
    origin {PG_TEXT} NOT NULL DEFAULT 'file',
    state {PG_TEXT} NOT NULL DEFAULT 'linked',
    sync_status {PG_TEXT} NOT NULL DEFAULT 'active',
    sync_superseded_by BIGINT NOT NULL DEFAULT 0,
    synced_at {PG_TEXT} NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_legion_records_identity ON legion_records(project, family, kind, identity);
CREATE TABLE IF NOT EXISTS task_sync_ledger (
    repo_id {PG_TEXT} NOT NULL,
    task_id {PG_TEXT} NOT NULL,
    learning {PG_TEXT} NOT NULL,
    gate {PG_TEXT} NOT NULL,
    path {PG_TEXT} NOT NULL,
    memory_id BIGINT NOT NULL REFERENCES memories(id),
    synced_at {PG_TEXT} NOT NULL,
    PRIMARY KEY (repo_id, task_id, learning, gate, path)
);
"""
"""PostgreSQL schema 3. ``synced_at`` stays text, as the mirror and task sync write and read it back."""

PG_SCHEMA_4 = f"""
CREATE TABLE IF NOT EXISTS memory_provenance (
    memory_id BIGINT PRIMARY KEY REFERENCES memories(id),
    source {PG_TEXT} NOT NULL,
    detail {PG_TEXT} NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS idx_memory_provenance_source ON memory_provenance(source);
INSERT INTO memory_provenance(memory_id, source, detail) SELECT id, 'unknown', '' FROM memories ON CONFLICT DO NOTHING;
INSERT INTO mneme_meta(key, value) VALUES ('provenance_version', '1') ON CONFLICT DO NOTHING;
"""
"""PostgreSQL schema 4: provenance. No PostgreSQL store predates it (the backend arrived with schema 4), so
there are no schema-3 Legion rows to re-type."""

ACTOR_MIGRATION = """
ALTER TABLE memory_audit ADD COLUMN actor TEXT NOT NULL DEFAULT '';
ALTER TABLE memory_provenance ADD COLUMN actor TEXT NOT NULL DEFAULT '';
"""
"""Schema 5: who made each change (``config.resolve_actor``); rows written before it keep '' (shown as
``unknown``). SQLite has no ``ADD COLUMN IF NOT EXISTS``: the schema version alone keeps it from running twice."""

PG_SCHEMA_5 = f"""
ALTER TABLE memory_audit ADD COLUMN IF NOT EXISTS actor {PG_TEXT} NOT NULL DEFAULT '';
ALTER TABLE memory_provenance ADD COLUMN IF NOT EXISTS actor {PG_TEXT} NOT NULL DEFAULT '';
{PG_REVISION_FUNCTION}
DROP TRIGGER IF EXISTS memories_inserted ON memories;
DROP FUNCTION IF EXISTS mneme_notify();
"""
"""PostgreSQL schema 5: the actor columns; and the ``mneme_changed`` notifications that schema 1 sent are gone
(nothing listened: clients see other writers' changes by the revision check, ``MAX(id)`` and ``MAX(seq)``)."""


CURATION_DDL = """
CREATE TABLE IF NOT EXISTS memory_pins (
    memory_id INTEGER PRIMARY KEY REFERENCES memories(id),
    pinned_at DATETIME NOT NULL,
    actor TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS curation_decisions (
    proposal_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    decision TEXT NOT NULL,
    memory_ids TEXT NOT NULL,
    changes TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    decided_at DATETIME NOT NULL,
    actor TEXT NOT NULL DEFAULT ''
);
"""
"""Schema 6, curation (``memory/curation``): pinned memories (never cold, listed first in a handshake), and every
review decision: ``decision`` accept, reject or undone; ``memory_ids`` and ``changes`` (the status changes an
accept made, as JSON ``[[id, previous status], ...]``) so an accept can be undone and a rejected proposal is
never proposed again while its memories are unchanged (a proposal's id hashes its memories' texts)."""

PG_SCHEMA_6 = (
    CURATION_DDL.replace("INTEGER PRIMARY KEY", "BIGINT PRIMARY KEY")
    .replace("DATETIME", "TIMESTAMP")
    .replace(" TEXT", " " + PG_TEXT)
)
"""PostgreSQL schema 6: the same tables with its types."""

TEXT_KEYS_DDL = """
CREATE TABLE IF NOT EXISTS memory_text_keys (
    memory_id INTEGER PRIMARY KEY REFERENCES memories(id),
    repo_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    text_key INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_memory_text_keys_repo_kind_key ON memory_text_keys(repo_id, kind, text_key);
INSERT INTO mneme_meta(key, value) VALUES ('text_keys_after', '0') ON CONFLICT DO NOTHING;
"""
"""Schema 8, the no-new-duplicates check's key: per memory, its repo, kind and a 64-bit hash of its text after
curation's normalising (``curation/same_text.text_key``), so a save finds an active memory with the same text by one
indexed look-up instead of scanning the repository. Every memory has a row (the check joins ``memories`` for
the status, so status changes write nothing here); a purge deletes it. ``mneme_meta.text_keys_after`` is the
backfill's progress (the last id keyed): the store keys existing rows in batches after the migration
(``TextKeys.backfill``) and deletes it when done."""

PG_SCHEMA_8 = (
    TEXT_KEYS_DDL.replace("INTEGER PRIMARY KEY", "BIGINT PRIMARY KEY")
    .replace("INTEGER NOT NULL", "BIGINT NOT NULL")
    .replace(" TEXT", " " + PG_TEXT)
)
"""PostgreSQL schema 8: the same table with its types."""


ORIENTATION_INDEX_DDL = """
CREATE INDEX IF NOT EXISTS idx_memories_orientation
    ON memories(repo_id, kind, status, topic, task_id, created_at, access_count);
"""
"""Schema 7, the handshake's covering index: ``mneme handshake`` ranks every active pitfall and pattern of a
repository by topic, task, date and access count (``MemoryTable.active_heads``); with those columns in the
index it reads them from the index alone, without a visit to each row (same text in both dialects)."""


MEMORY_COLUMNS = tables.MEMORIES.column_names(without=("embedding",))
"""The columns of a ``Memory`` (everything but the embedding), in table order."""

INSERT_COLUMNS = tables.MEMORIES.column_names(without=("id",))
"""The columns a new memory row is inserted with (``id`` is assigned by the database)."""

INDEX_COLUMNS = ("id", "repo_id", "kind", "topic", "content", "embedding", "created_at", "status", "access_count")
"""The columns the in-memory index loads."""

LEGION_RECORD_COLUMNS = tables.LEGION_RECORDS.column_names()
PROVENANCE_COLUMNS = tables.PROVENANCE.column_names()
AUDIT_COLUMNS = tables.AUDIT.column_names(without=("id",))
"""The columns of ``memory_audit`` but its own id."""
TASK_ACCESS_COLUMNS = tables.TASK_ACCESS.column_names()
PIN_COLUMNS = tables.PINS.column_names()
DECISION_COLUMNS = tables.DECISIONS.column_names()
TEXT_KEY_COLUMNS = tables.TEXT_KEYS.column_names()
LEDGER_COLUMNS = tables.TASK_SYNC_LEDGER.column_names()
"""The columns of these tables in table order (``tables.py`` declares them)."""


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
    """peewee view of ``memory_audit``."""

    id = peewee.AutoField()
    memory_id = peewee.IntegerField()
    from_status = peewee.TextField()
    to_status = peewee.TextField()
    at = peewee.DateTimeField()
    reason = peewee.TextField(default="")
    actor = peewee.TextField(default="")

    class Meta:
        table_name = "memory_audit"


class TaskAccessRow(BaseModel):
    """peewee view of ``task_access``."""

    task_id = peewee.TextField()
    memory_id = peewee.IntegerField()
    at = peewee.DateTimeField()

    class Meta:
        table_name = "task_access"
        primary_key = peewee.CompositeKey("task_id", "memory_id")


@dataclass(frozen=True)
class Tables:
    """The model classes bound to one open database."""

    memory: type[MemoryRow]
    audit: type[AuditRow]
    task_access: type[TaskAccessRow]


def bind_tables(db: peewee.Database) -> Tables:
    """Subclasses of the models bound to ``db`` (thread-safe, unlike ``Model.bind``)."""

    def bound(model: type[BaseModel]) -> type:
        meta = type("Meta", (), {"database": db, "table_name": model._meta.table_name})
        return type(model.__name__, (model,), {"Meta": meta, "__module__": __name__})

    return Tables(bound(MemoryRow), bound(AuditRow), bound(TaskAccessRow))
