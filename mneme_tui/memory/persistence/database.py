"""Opening a database file safely: refuse what is not ours before changing anything, then migrate.

The order matters: a foreign SQLite file or a database written by a newer mneme is refused while it is
still untouched (no WAL switch, no table created); only then is the file switched to WAL and brought up
to ``SCHEMA_VERSION``. Every step waits out other processes doing the same to a new file at once.
"""

from __future__ import annotations

import os
from pathlib import Path

import peewee

from mneme_tui import config
from mneme_tui.errors import ERR_DATABASE, MnemeError
from mneme_tui.memory.persistence import dialect
from mneme_tui.memory.persistence.migrations import SCHEMA_VERSION, pending, script_at


def open_database(path: Path) -> peewee.Database:
    """Open (creating as needed, 0600) the database at ``path`` in WAL mode with an up-to-date schema.

    Raises ERR_DATABASE with one readable line for a path that cannot be created, a file that is not a
    mneme database (nothing in it is changed) or a database written by a newer mneme.
    """
    path = Path(path)
    _create_file(path)
    db = dialect.connect(path)
    try:
        db.connect(reuse_if_open=True)
        version = dialect.retry_busy(lambda: _checked_version(db, path))
        dialect.retry_busy(lambda: dialect.enable_wal(db))
        if version < SCHEMA_VERSION:
            dialect.retry_busy(lambda: _migrate(db))
    except MnemeError:
        db.close()
        raise
    except dialect.DATABASE_ERRORS as exc:
        db.close()
        raise dialect.database_error(path, exc) from None
    return db


def _checked_version(db: peewee.Database, path: Path) -> int:
    """The file's schema version, after refusing a foreign or newer database (read-only)."""
    version = dialect.schema_version(db)
    tables = dialect.table_names(db)
    if tables and "memories" not in tables:
        raise MnemeError(ERR_DATABASE, f"{path} is not a mneme database (it has tables, but no memories table)")
    if version > SCHEMA_VERSION:
        raise MnemeError(ERR_DATABASE, f"{path} was written by a newer mneme (schema {version} > {SCHEMA_VERSION})")
    return version


def _migrate(db: peewee.Database) -> None:
    """Apply the migrations the database still needs (re-read: another process may have done them)."""
    steps = pending(dialect.schema_version(db))
    if steps:
        now = config.now().isoformat(sep=" ")
        dialect.migrate(db, [(step.version, script_at(step, now)) for step in steps])


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
