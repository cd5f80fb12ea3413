"""Opening a database safely: refuse what is not ours before changing anything, then migrate.

The order matters: a foreign SQLite file or a database written by a newer mneme is refused while it is
still untouched (no WAL switch, no table created); only then is the file switched to WAL and brought up
to ``SCHEMA_VERSION``. Every step waits out other processes doing the same to a new file at once.
"""

from __future__ import annotations

from pathlib import Path

import peewee

from mneme_tui import config
from mneme_tui.errors import ERR_DATABASE, MnemeError
from mneme_tui.memory.persistence.dialect import dialect_for, dialect_of
from mneme_tui.memory.persistence.migrations import SCHEMA_VERSION, pending, script_at
from mneme_tui.memory.persistence.schema import MEMORY_COLUMNS


def open_database(target: config.DbTarget, *, create: bool = True) -> peewee.Database:
    """Open the database at ``target`` with an up-to-date schema, through its dialect (``dialect_for``): a SQLite
    file (created with its folders if ``create``, 0600, in WAL mode) or a PostgreSQL database named by a
    ``postgresql://`` URL (which must exist).

    Raises ERR_DATABASE with one readable line for a path that cannot be created, a file that is not a
    mneme database (nothing in it is changed), a server that cannot be reached or a database written by a
    newer mneme, and (without ``create``) a file that does not exist: nothing is created then. A URL's
    password never appears in the message.
    """
    dialect = dialect_for(target)
    db = dialect.connect(target, create)
    shown = dialect.database_file(target) or config.describe_target(target)
    try:
        db.connect(reuse_if_open=True)
        version = dialect.retry_busy(lambda: _checked_version(db, shown))
        dialect.retry_busy(lambda: dialect.enable_wal(db))
        if version < SCHEMA_VERSION:
            dialect.retry_busy(lambda: _migrate(db))
    except MnemeError:
        db.close()
        raise
    except dialect.DATABASE_ERRORS as exc:
        db.close()
        raise dialect.database_error(target, exc) from None
    return db


def _checked_version(db: peewee.Database, path: Path | str) -> int:
    """The database's schema version, after refusing a foreign or newer database (read-only): tables but
    none called ``memories``, or a ``memories`` table without the spec's columns (another application's)."""
    dialect = dialect_of(db)
    version = dialect.schema_version(db)
    tables = dialect.table_names(db)
    if tables and "memories" not in tables:
        raise MnemeError(ERR_DATABASE, f"{path} is not a mneme database (it has tables, but no memories table)")
    if version and not tables:
        raise MnemeError(ERR_DATABASE, f"{path} is not a mneme database (schema version {version}, but no tables)")
    columns = set(dialect.column_names(db, "memories")) if tables else set(MEMORY_COLUMNS)
    missing = [column for column in MEMORY_COLUMNS if column not in columns]
    if missing:
        raise MnemeError(
            ERR_DATABASE,
            f"{path} is not a mneme database (its memories table lacks the spec's columns {', '.join(missing)})",
        )
    if version > SCHEMA_VERSION:
        raise MnemeError(ERR_DATABASE, f"{path} was written by a newer mneme (schema {version} > {SCHEMA_VERSION})")
    return version


def _migrate(db: peewee.Database) -> None:
    """Apply the migrations the database still needs (re-read: another process may have done them)."""
    dialect = dialect_of(db)
    steps = pending(dialect.schema_version(db))
    if steps:
        now = config.now().isoformat(sep=" ")
        dialect.migrate(db, [(step.version, script_at(step, now, dialect.NAME)) for step in steps])
