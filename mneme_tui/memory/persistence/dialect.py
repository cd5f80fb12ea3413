"""Everything specific to SQLite, in one place: connecting, pragmas, write locks, upserts, row ids,
catalogue queries and error mapping. A second backend (PostgreSQL) is one more module with these names.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import peewee

from mneme_tui.errors import ERR_DATABASE, MnemeError

NAME = "sqlite"
BUSY_TIMEOUT_MS = 10_000
DATABASE_ERRORS: tuple[type[BaseException], ...] = (sqlite3.DatabaseError, peewee.DatabaseError)
"""What a failing statement raises (the driver's errors and peewee's wrappers of them)."""
MAX_PARAMETERS = 500
"""Ids per ``IN (...)`` list: well under SQLite's limit on bound parameters."""

T = TypeVar("T")


def connect(path: Path) -> peewee.SqliteDatabase:
    """A peewee database on ``path`` with the busy timeout (no statement has run yet: nothing changes)."""
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


def retry_transaction(action: Callable[[], T]) -> T:
    """Run ``action``, one whole write transaction. Nothing to rerun on SQLite: ``BEGIN IMMEDIATE`` queues
    writers on the busy timeout, so a transaction never fails a serialization check or deadlocks."""
    return action()


def schema_version(db: peewee.Database) -> int:
    """The schema version recorded in the database (0 for a new file)."""
    return int(db.execute_sql("PRAGMA user_version").fetchone()[0])


def table_names(db: peewee.Database) -> set[str]:
    """The names of the database's tables (read only)."""
    return {row[0] for row in db.execute_sql("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()}


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


def placeholders(count: int) -> str:
    """``?, ?, ?`` for ``count`` parameters."""
    return ", ".join("?" * count)


def insert_or_replace_sql(table: str, columns: Sequence[str], key: str) -> str:
    """An insert that replaces the row with the same primary key (``key``: PostgreSQL needs to be told)."""
    return f"INSERT OR REPLACE INTO {table} ({', '.join(columns)}) VALUES ({placeholders(len(columns))})"


def insert_sql(table: str, columns: Sequence[str]) -> str:
    """A plain insert of ``columns`` (``?`` placeholders: every dialect accepts them)."""
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders(len(columns))})"


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


def database_error(path: Path, exc: BaseException) -> MnemeError:
    """A one-line ERR_DATABASE for a failure on ``path``."""
    text = str(exc).strip() or type(exc).__name__
    if "not a database" in text or "malformed" in text:
        return MnemeError(ERR_DATABASE, f"{path} is not a mneme database ({text})")
    if "readonly" in text or "read-only" in text:
        return MnemeError(ERR_DATABASE, f"{path} is read-only ({text})")
    if is_busy(exc):
        return MnemeError(ERR_DATABASE, f"{path} is busy: another process holds a write lock ({text})")
    return MnemeError(ERR_DATABASE, f"{path}: {text}")
