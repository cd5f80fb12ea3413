"""The SQLite dialect (``dialect.Dialect``): one file per store, opened with a busy timeout and kept in WAL
mode; ``BEGIN IMMEDIATE`` queues writers; upserts and ``INSERT OR IGNORE``; consecutive AUTOINCREMENT ids;
``PRAGMA user_version`` records the schema version; the index reads its rows with one plain select.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import peewee

from mneme_tui.config import DbTarget
from mneme_tui.errors import ERR_DATABASE, MnemeError
from mneme_tui.memory.persistence import tables
from mneme_tui.memory.persistence.index_queries import SELECT_INDEX, index_rows
from mneme_tui.memory.persistence.read_ahead import read_ahead
from mneme_tui.memory.persistence.sql_text import insert_sql, placeholders, upsert_sql
from mneme_tui.memory.persistence.tables import TableShape

NAME = "sqlite"
BUSY_TIMEOUT_MS = 10_000
DATABASE_ERRORS: tuple[type[BaseException], ...] = (sqlite3.DatabaseError, peewee.DatabaseError)
DRIVER_ERROR: type[BaseException] = sqlite3.Error
"""What only this backend's driver raises (peewee's wrapper of it holds it as its first argument)."""
"""What a failing statement raises (the driver's errors and peewee's wrappers of them)."""
LIKE_IGNORING_CASE = "LIKE"
"""SQLite's ``LIKE`` ignores ASCII case."""
COLUMN_TYPES: Mapping[str, str] = {
    tables.ID: "INTEGER",
    tables.INTEGER: "INTEGER",
    tables.TEXT: "TEXT",
    tables.BLOB: "BLOB",
    tables.TIMESTAMP: "DATETIME",
    tables.TIMESTAMP_TEXT: "DATETIME",
}
"""The declared types of the migrations' DDL (the spec's ``memories`` DDL among them)."""

T = TypeVar("T")


def handles(target: DbTarget) -> bool:
    """Any target another dialect does not claim is a file path (``dialect.DIALECTS`` asks SQLite last)."""
    return True


def owns(db: peewee.Database) -> bool:
    """True for a peewee SQLite database."""
    return isinstance(db, peewee.SqliteDatabase)


def database_file(target: DbTarget) -> Path | None:
    """The database file the target names."""
    return Path(target)


def connect(target: DbTarget, create: bool = True) -> peewee.SqliteDatabase:
    """A peewee database on the file ``target`` with the busy timeout (no statement has run yet: nothing
    changes). Creates a missing file (0600, with its folders) when ``create``; else a missing file is
    ERR_DATABASE and nothing is created."""
    path = Path(target)
    if create:
        _create_file(path)
    elif not path.is_file():
        raise MnemeError(
            ERR_DATABASE,
            f"no database at {path} (nothing created: a command that saves, such as `mneme save`, creates it)",
        )
    return peewee.SqliteDatabase(
        str(path),
        pragmas={"busy_timeout": BUSY_TIMEOUT_MS, "foreign_keys": 0},
        timeout=BUSY_TIMEOUT_MS / 1000,
        check_same_thread=False,
    )


def write_transaction(db: peewee.Database) -> Any:
    """A transaction that takes the write lock at once (``BEGIN IMMEDIATE``), so writers queue up."""
    return db.atomic("IMMEDIATE")


def is_busy(exc: BaseException) -> bool:
    """True when ``exc`` says another connection holds a lock (worth waiting for)."""
    text = str(exc)
    return "locked" in text or "busy" in text


def retry_busy(action: Callable[[], T], timeout_s: float = BUSY_TIMEOUT_MS / 1000) -> T:
    """Run ``action``, retrying while the database is locked, for at most ``timeout_s``.

    SQLite does not call its busy handler for every lock it takes (switching to WAL, reading the schema
    of a database another process is creating), so those steps wait here instead.
    """
    deadline = time.monotonic() + timeout_s
    pause = 0.005
    while True:
        try:
            return action()
        except DATABASE_ERRORS as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def retry_transaction(action: Callable[[], T], db: peewee.Database | None = None) -> T:
    """Run ``action``, one whole write transaction. Nothing to rerun on SQLite: ``BEGIN IMMEDIATE`` queues
    writers on the busy timeout, so a transaction never fails a serialization check or deadlocks."""
    return action()


def schema_version(db: peewee.Database) -> int:
    """The schema version recorded in the database (0 for a new file)."""
    return int(db.execute_sql("PRAGMA user_version").fetchone()[0])


def table_names(db: peewee.Database) -> set[str]:
    """The names of the database's tables (read only)."""
    return {row[0] for row in db.execute_sql("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()}


def ensure_connected(db: peewee.Database) -> None:
    """Nothing to do: a SQLite connection cannot be closed by a server."""


def column_names(db: peewee.Database, table: str) -> tuple[str, ...]:
    """``table``'s column names in order (``PRAGMA table_info``)."""
    return tuple(row[1] for row in db.execute_sql(f"PRAGMA table_info({table})").fetchall())


def table_shape(db: peewee.Database, table: str) -> TableShape:
    """``table`` as SQLite reports it (``PRAGMA table_info``, ``index_list``); a primary key column counts as
    NOT NULL (SQLite does not mark it so), indexes are those ``CREATE INDEX`` made."""
    info = db.execute_sql(f"PRAGMA table_info({table})").fetchall()
    columns = tuple((name, kind, bool(not_null or pk)) for _, name, kind, not_null, _, pk in info)
    primary_key = tuple(row[1] for row in sorted((row for row in info if row[5]), key=lambda row: row[5]))
    indexes = {}
    for _, name, _, origin, _ in db.execute_sql(f"PRAGMA index_list({table})").fetchall():
        if origin == "c":
            quoted = '"' + name.replace('"', '""') + '"'
            indexes[name] = tuple(row[2] for row in db.execute_sql(f"PRAGMA index_info({quoted})").fetchall())
    return TableShape(columns, primary_key, indexes)


def database_identity(db: peewee.Database) -> tuple[object, ...]:
    """What tells this database file from any other, whatever path reaches it (a symlink, a relative path, a
    hard link): its device and inode."""
    path = db.execute_sql("PRAGMA database_list").fetchone()[2]
    status = os.stat(path)
    return NAME, status.st_dev, status.st_ino


def enable_wal(db: peewee.Database) -> None:
    """Switch the file to write-ahead logging (kept in the file: a no-op once done)."""
    if db.execute_sql("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        db.execute_sql("PRAGMA journal_mode=WAL")


def secure_delete(db: peewee.Database) -> None:
    """Make SQLite zero what a later write frees or overwrites on this connection (before a purge)."""
    db.execute_sql("PRAGMA secure_delete = ON")


def scrub(db: peewee.Database) -> bool:
    """After a purge: copy the WAL into the file and empty it, rebuild the file (no page keeps freed bytes) and
    empty the WAL again; False when another connection kept the WAL from being emptied."""
    emptied = db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
    db.execute_sql("VACUUM")
    return db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0 and emptied


def migrate(db: peewee.Database, scripts: Sequence[tuple[int, str]]) -> None:
    """Run each ``(version, script)`` and record the last version, all in one write transaction; re-reads the
    version under the write lock, so two processes migrating one file at once do each step once."""
    connection = db.connection()
    try:
        connection.execute("BEGIN IMMEDIATE")
        current = int(connection.execute("PRAGMA user_version").fetchone()[0])
        for version, script in scripts:
            if version <= current:
                continue
            for statement in statements(script):
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {int(version)}")
        connection.execute("COMMIT")
    except sqlite3.DatabaseError:
        if connection.in_transaction:
            connection.rollback()
        raise


def statements(script: str) -> list[str]:
    """The complete SQL statements of ``script`` (a ``;`` inside a string or a trigger body does not end one)."""
    found, pending = [], ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n\t;"):
                found.append(pending.strip())
            pending = ""
    return found


def insert_or_replace_sql(table: str, columns: Sequence[str], key: str) -> str:
    """An insert that replaces the row with the same primary key ``key``: an upsert, as PostgreSQL's. Every column
    is given and the key is the only unique column of each table it writes, so the row is ``INSERT OR REPLACE``'s,
    but a bulk insert of new rows is faster (a Legion sync's 10,000 companion rows: 0.10 -> 0.04 s of CPU)."""
    return upsert_sql(table, columns, key)


def insert_ignore_sql(table: str, columns: Sequence[str]) -> str:
    """An insert that does nothing when the row's key is already there."""
    return f"INSERT OR IGNORE INTO {table} ({', '.join(columns)}) VALUES ({placeholders(len(columns))})"


def insert_many(db: peewee.Database, sql: str, rows: Sequence[tuple]) -> None:
    """Run ``sql`` once per row in one call (``executemany``)."""
    db.cursor().executemany(sql, rows)


def insert_returning_ids(db: peewee.Database, table: str, columns: Sequence[str], rows: Sequence[tuple]) -> list[int]:
    """Insert ``rows`` inside the caller's write transaction; the ids they got, in order.

    The transaction holds the write lock, so AUTOINCREMENT ids of consecutive inserts are consecutive."""
    insert_many(db, insert_sql(table, columns), rows)
    last_id = int(db.execute_sql("SELECT last_insert_rowid()").fetchone()[0])
    return list(range(last_id - len(rows) + 1, last_id + 1))


def after_explicit_ids(db: peewee.Database, table: str) -> None:
    """Nothing to do: AUTOINCREMENT already continues after ids inserted explicitly."""


def timestamp_order(field: peewee.Field) -> Any:
    """An expression that sorts stored timestamps by their real time, whatever their text form."""
    return peewee.fn.julianday(field)


def database_error(path: DbTarget, exc: BaseException) -> MnemeError:
    """A one-line ERR_DATABASE for a failure on ``path``."""
    text = str(exc).strip() or type(exc).__name__
    if "not a database" in text or "malformed" in text:
        return MnemeError(ERR_DATABASE, f"{path} is not a mneme database ({text})")
    if "readonly" in text or "read-only" in text:
        return MnemeError(ERR_DATABASE, f"{path} is read-only ({text})")
    if is_busy(exc):
        return MnemeError(ERR_DATABASE, f"{path} is busy: another process holds a write lock ({text})")
    return MnemeError(ERR_DATABASE, f"{path}: {text}")


def index_load(db: peewee.Database) -> tuple[list[tuple], np.ndarray | None]:
    """Every row for a cold index load, by id, embeddings in the rows (no separate matrix)."""
    return index_rows(db), None


def index_load_batches(db: peewee.Database, size: int) -> Iterator[tuple[list[tuple], np.ndarray | None]]:
    """``index_load`` ``size`` rows at a time from one select (one read transaction: one consistent view); the
    next batch is read while the caller handles this one (``read_ahead``)."""
    cursor = db.execute_sql(SELECT_INDEX + " ORDER BY id")
    for rows in read_ahead(lambda: cursor.fetchmany(size), size):
        yield rows, None


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
