"""The one ordered list of schema migrations, each with a script per dialect; the dialect records how far a
database got (``Dialect.schema_version``: ``PRAGMA user_version``, ``mneme_meta.schema_version``).

Each migration is idempotent SQL (``IF NOT EXISTS``), so a database that gained a table early (before
schema 3, ``legion_records`` and ``task_sync_ledger`` created themselves on first use) upgrades cleanly;
the one exception is schema 5's SQLite ``ADD COLUMN``, which has no such form and runs once by the version.
A new table, column, index or trigger is a new entry at the end; ``SCHEMA_VERSION`` follows from the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mneme_tui.memory.persistence import schema


@dataclass(frozen=True)
class Migration:
    """One step: the schema version it brings a database to, what it does, and its SQL script per dialect."""

    version: int
    description: str
    scripts: Mapping[str, str]
    """Dialect name (``Dialect.NAME``) → the step's SQL in that dialect's DDL ('' when it has nothing to do)."""


def _step(version: int, description: str, sqlite: str, postgresql: str) -> Migration:
    """A step with its SQLite and PostgreSQL scripts (a new dialect adds its script to every step)."""
    return Migration(version, description, {"sqlite": sqlite, "postgresql": postgresql})


MIGRATIONS: tuple[Migration, ...] = (
    _step(
        1,
        "the spec's memories table; audit, task access, identity and revision side tables",
        schema.MEMORIES_DDL
        + schema.AUDIT_DDL
        + schema.TASK_ACCESS_DDL
        + schema.META_DDL
        + schema.REVISION_DDL
        + schema.REVISION_TRIGGER.format(event="insert", event_upper="INSERT")
        + schema.REVISION_TRIGGER.format(event="update", event_upper="UPDATE"),
        schema.PG_SCHEMA_1,
    ),
    _step(
        2,
        "inserts are found by MAX(id): drop the per-row insert trigger",
        "DROP TRIGGER IF EXISTS memories_revision_insert;",
        "",
    ),
    _step(
        3,
        "the Legion mirror's legion_records and task sync's task_sync_ledger",
        schema.LEGION_RECORDS_DDL + schema.TASK_SYNC_LEDGER_DDL,
        schema.PG_SCHEMA_3,
    ),
    _step(
        4,
        "memory_provenance: where every memory came from; imported Legion rows lose statutory kinds",
        schema.PROVENANCE_MIGRATION,
        schema.PG_SCHEMA_4,
    ),
    _step(
        5,
        "who made each change: an actor on memory_audit and memory_provenance; PostgreSQL stops notifying",
        schema.ACTOR_MIGRATION,
        schema.PG_SCHEMA_5,
    ),
    _step(
        6,
        "curation: memory_pins and curation_decisions (review accept, reject, undo)",
        schema.CURATION_DDL,
        schema.PG_SCHEMA_6,
    ),
    _step(
        7,
        "the handshake's covering index on memories (repo, kind, status, topic, task, date, access count)",
        schema.ORIENTATION_INDEX_DDL,
        schema.ORIENTATION_INDEX_DDL,
    ),
    _step(
        8,
        "memory_text_keys: the normalised-text hash the no-new-duplicates check looks up (rows keyed after it)",
        schema.TEXT_KEYS_DDL,
        schema.PG_SCHEMA_8,
    ),
)

SCHEMA_VERSION = MIGRATIONS[-1].version


def script_at(migration: Migration, now: str, dialect_name: str = "sqlite") -> str:
    """The migration's SQL for ``dialect_name`` with the clock's time (``now``, ISO text) put in for
    ``schema.NOW_TOKEN``."""
    return migration.scripts[dialect_name].replace(schema.NOW_TOKEN, "'" + now.replace("'", "") + "'")


def pending(version: int) -> list[Migration]:
    """The migrations a database at schema ``version`` still needs, in order."""
    return [migration for migration in MIGRATIONS if migration.version > version]
