"""Every table of the store declared once: its columns (name, kind of value, NOT NULL), primary key and indexes.

This is the shape a database has at ``SCHEMA_VERSION``. The migrations (``migrations.py``) are the history that
builds it, one script per dialect, and ``tests/core/test_schema_declaration.py`` checks that each dialect's
scripts end in exactly this shape (asking the dialect's ``table_shape``), and that the peewee models agree. The
column tuples the queries use (``schema.MEMORY_COLUMNS`` and the rest) are derived from it.

A column's ``kind`` is one of ``KINDS``; each dialect maps it to its own type (``Dialect.COLUMN_TYPES``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

ID, INTEGER, TEXT, BLOB, TIMESTAMP, TIMESTAMP_TEXT = "id", "integer", "text", "blob", "timestamp", "timestamp-text"
KINDS = (ID, INTEGER, TEXT, BLOB, TIMESTAMP, TIMESTAMP_TEXT)
"""``id``: an integer primary key the database assigns, in increasing order. ``timestamp-text``: a time the
code writes and reads back as text (``synced_at``; SQLite declares it DATETIME, PostgreSQL keeps text)."""


@dataclass(frozen=True)
class Column:
    """One column: its name, the kind of value it holds, and whether it may be NULL."""

    name: str
    kind: str
    not_null: bool = True


@dataclass(frozen=True)
class Table:
    """One table: columns in table order, primary key, and the indexes created on it (name → columns)."""

    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    indexes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def column_names(self, *, without: tuple[str, ...] = ()) -> tuple[str, ...]:
        """The columns' names in table order, but those in ``without``."""
        return tuple(column.name for column in self.columns if column.name not in without)


@dataclass(frozen=True)
class TableShape:
    """A table as a database reports it (``Dialect.table_shape``): (name, type, NOT NULL) per column in table
    order, the primary key's columns, and every other index (name → columns)."""

    columns: tuple[tuple[str, str, bool], ...]
    primary_key: tuple[str, ...]
    indexes: Mapping[str, tuple[str, ...]]


def _texts(*names: str) -> tuple[Column, ...]:
    return tuple(Column(name, TEXT) for name in names)


MEMORIES = Table(
    "memories",
    (
        Column("id", ID),
        Column("repo_id", TEXT, not_null=False),
        *_texts("kind", "topic", "content", "task_id"),
        Column("embedding", BLOB, not_null=False),
        Column("created_at", TIMESTAMP),
        Column("status", TEXT),
        Column("superseded_by", INTEGER, not_null=False),
        Column("access_count", INTEGER),
    ),
    ("id",),
    {
        "idx_memories_topic": ("topic",),
        "idx_memories_status": ("status",),
        "idx_memories_repo": ("repo_id",),
        "idx_memories_kind": ("kind",),
        "idx_memories_repo_kind_status": ("repo_id", "kind", "status"),
        "idx_memories_orientation": ("repo_id", "kind", "status", "topic", "task_id", "created_at", "access_count"),
    },
)
"""The spec's ``memories`` table (spec §3), exactly, plus one index of ours: ``idx_memories_orientation``, the
handshake's covering index (schema 7, ``schema.ORIENTATION_INDEX_DDL``)."""

AUDIT = Table(
    "memory_audit",
    (
        Column("id", ID),
        Column("memory_id", INTEGER),
        *_texts("from_status", "to_status"),
        Column("at", TIMESTAMP),
        *_texts("reason", "actor"),
    ),
    ("id",),
    {"idx_memory_audit_memory": ("memory_id",)},
)
TASK_ACCESS = Table(
    "task_access",
    (Column("task_id", TEXT), Column("memory_id", INTEGER), Column("at", TIMESTAMP)),
    ("task_id", "memory_id"),
)
META = Table("mneme_meta", _texts("key", "value"), ("key",))
REVISION = Table(
    "memory_revision",
    (Column("memory_id", INTEGER), Column("seq", INTEGER)),
    ("memory_id",),
    {"idx_memory_revision_seq": ("seq",)},
)
LEGION_RECORDS = Table(
    "legion_records",
    (
        Column("memory_id", INTEGER),
        *_texts("project", "family", "source_file", "kind", "identity"),
        Column("occurrence", INTEGER),
        *_texts("record_id", "content_hash", "columns"),
        Column("archived", INTEGER),
        *_texts("origin", "state", "sync_status"),
        Column("sync_superseded_by", INTEGER),
        Column("synced_at", TIMESTAMP_TEXT),
    ),
    ("memory_id",),
    {"idx_legion_records_identity": ("project", "family", "kind", "identity")},
)
TASK_SYNC_LEDGER = Table(
    "task_sync_ledger",
    (
        *_texts("repo_id", "task_id", "learning", "gate", "path"),
        Column("memory_id", INTEGER),
        Column("synced_at", TIMESTAMP_TEXT),
    ),
    ("repo_id", "task_id", "learning", "gate", "path"),
)
PROVENANCE = Table(
    "memory_provenance",
    (Column("memory_id", INTEGER), *_texts("source", "detail", "actor")),
    ("memory_id",),
    {"idx_memory_provenance_source": ("source",)},
)
PINS = Table(
    "memory_pins", (Column("memory_id", INTEGER), Column("pinned_at", TIMESTAMP), Column("actor", TEXT)), ("memory_id",)
)
DECISIONS = Table(
    "curation_decisions",
    (
        *_texts("proposal_id", "kind", "decision", "memory_ids", "changes", "reason"),
        Column("decided_at", TIMESTAMP),
        Column("actor", TEXT),
    ),
    ("proposal_id",),
)
TEXT_KEYS = Table(
    "memory_text_keys",
    (Column("memory_id", INTEGER), *_texts("repo_id", "kind"), Column("text_key", INTEGER)),
    ("memory_id",),
    {"idx_memory_text_keys_repo_kind_key": ("repo_id", "kind", "text_key")},
)

TABLES: tuple[Table, ...] = (
    MEMORIES,
    AUDIT,
    TASK_ACCESS,
    META,
    REVISION,
    LEGION_RECORDS,
    TASK_SYNC_LEDGER,
    PROVENANCE,
    PINS,
    DECISIONS,
    TEXT_KEYS,
)
"""Every table a store has at ``SCHEMA_VERSION``."""
