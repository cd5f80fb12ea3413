"""The dialect contract: everything a database backend provides, as one typed ``Protocol``, and the backends.

A backend is one module whose module-level names implement ``Dialect`` (``sqlite_dialect``,
``postgres_dialect``); mypy checks each module against the contract where ``DIALECTS`` lists it. The dialect
is chosen once, from the target (``dialect_for``: a file path or a ``postgresql://`` URL), and found again
from an open database (``dialect_of``). Nothing outside the dialect modules branches on the backend
(``tests/core/test_dialect_contract.py`` checks it); docs/extending.md lists what a new backend implements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
import peewee

from mneme_tui.config import DbTarget
from mneme_tui.errors import MnemeError
from mneme_tui.memory.persistence import postgres_dialect, sqlite_dialect
from mneme_tui.memory.persistence.tables import TableShape

T = TypeVar("T")

IndexBatch = tuple[list[tuple], np.ndarray | None]
"""Rows in ``INDEX_COLUMNS`` order and, when the dialect read the embeddings apart, their float32 matrix."""


class Dialect(Protocol):
    """What a backend module provides. Raw SQL elsewhere is written with ``?`` placeholders (``sql_text``)."""

    NAME: str
    """The backend's name: shown by ``mneme db info``, and the key of its script in each migration."""
    DATABASE_ERRORS: tuple[type[BaseException], ...]
    """What a failing statement raises (the driver's errors and peewee's wrappers of them)."""
    DRIVER_ERROR: type[BaseException]
    """What only this backend's driver raises (peewee's wrapper of it holds it as its first argument)."""
    LIKE_IGNORING_CASE: str
    """The ``LIKE`` operator that ignores ASCII case."""
    COLUMN_TYPES: Mapping[str, str]
    """Each kind of column (``tables.KINDS``) → the type ``table_shape`` reports for it."""

    # choosing and opening
    def handles(self, target: DbTarget) -> bool:
        """True when ``target`` (a path or a URL) names a database of this backend."""

    def owns(self, db: peewee.Database) -> bool:
        """True when ``db`` is an open database of this backend."""

    def database_file(self, target: DbTarget) -> Path | None:
        """The one file that holds the database (it can be replaced or removed under an open store; a copy
        onto it by another name is refused), or None for a server."""

    def connect(self, target: DbTarget, create: bool = True) -> peewee.Database:
        """A peewee database for ``target`` with the backend's settings (busy timeout, session options); a
        file is created if missing only when ``create``. No statement runs yet."""

    def retry_busy(self, action: Callable[[], T]) -> T:
        """Run ``action`` (a step of opening), waiting out locks the backend does not queue on by itself."""

    def enable_wal(self, db: peewee.Database) -> None:
        """Settings the database keeps, made once when it is opened (SQLite's write-ahead log)."""

    def ensure_connected(self, db: peewee.Database) -> None:
        """Before an outermost use: drop a connection the server closed, so the next statement reconnects."""

    # the schema's bookkeeping
    def schema_version(self, db: peewee.Database) -> int:
        """The schema version recorded in the database (0 for a new one)."""

    def table_names(self, db: peewee.Database) -> set[str]:
        """The names of the database's tables."""

    def column_names(self, db: peewee.Database, table: str) -> tuple[str, ...]:
        """``table``'s column names in order, from the quickest look at the catalogue (each opening reads it)."""

    def table_shape(self, db: peewee.Database, table: str) -> TableShape:
        """``table`` as the database reports it: columns, types, NOT NULL, primary key and other indexes."""

    def database_identity(self, db: peewee.Database) -> tuple[object, ...]:
        """What tells this store from any other, whatever path or URL reaches it."""

    def migrate(self, db: peewee.Database, scripts: Sequence[tuple[int, str]]) -> None:
        """Run each ``(version, script)`` above the current version and record the last, in one transaction
        under the write lock (two processes migrating at once do each step once)."""

    # writing
    def write_transaction(self, db: peewee.Database) -> AbstractContextManager[Any]:
        """A transaction that takes the write lock first, so writers queue and ids commit in order."""

    def retry_transaction(self, action: Callable[[], T], db: peewee.Database | None = None) -> T:
        """Run ``action`` (one whole write transaction), again when the backend aborted it as safe to rerun."""

    def is_busy(self, exc: BaseException) -> bool:
        """True when ``exc`` says another connection holds a lock."""

    def database_error(self, target: DbTarget, exc: BaseException) -> MnemeError:
        """The one-line ERR_DATABASE for a failure on ``target`` (never a password)."""

    def insert_or_replace_sql(self, table: str, columns: Sequence[str], key: str) -> str:
        """An insert that replaces the row with the same primary key ``key``."""

    def insert_ignore_sql(self, table: str, columns: Sequence[str]) -> str:
        """An insert that does nothing when the row's key is already there."""

    def insert_many(self, db: peewee.Database, sql: str, rows: Sequence[tuple]) -> None:
        """Run ``sql`` once per row, in one call."""

    def insert_returning_ids(
        self, db: peewee.Database, table: str, columns: Sequence[str], rows: Sequence[tuple]
    ) -> list[int]:
        """Insert ``rows`` inside the caller's write transaction; the ids they got, in order."""

    def after_explicit_ids(self, db: peewee.Database, table: str) -> None:
        """Make new ids of ``table`` continue after ids inserted explicitly (a copy keeps a store's ids)."""

    # reading
    def timestamp_order(self, field: peewee.Field) -> Any:
        """An expression that sorts stored timestamps by their real time."""

    def index_load(self, db: peewee.Database) -> IndexBatch:
        """Every row for a cold index load, by id, in one batch."""

    def index_load_batches(self, db: peewee.Database, size: int) -> Iterator[IndexBatch]:
        """Every row for a cold index load, by id, ``size`` at a time, all from one consistent view."""

    # purging
    def secure_delete(self, db: peewee.Database) -> None:
        """Before a purge: make what the purge frees be overwritten, where the backend can."""

    def scrub(self, db: peewee.Database) -> bool:
        """After a purge: leave no freed copy of the text in the database's files; False when it could not."""


SQLITE: Dialect = sqlite_dialect
POSTGRES: Dialect = postgres_dialect
DIALECTS: tuple[Dialect, ...] = (POSTGRES, SQLITE)
"""Every backend, in the order ``dialect_for`` asks them (SQLite, which takes any path, last)."""

DATABASE_ERRORS: tuple[type[BaseException], ...] = tuple(
    error for dialect in DIALECTS for error in dialect.DATABASE_ERRORS
)
"""What a failing statement raises on any backend."""


def dialect_for(target: DbTarget) -> Dialect:
    """The backend of ``target``: the first in ``DIALECTS`` that handles it."""
    return next(dialect for dialect in DIALECTS if dialect.handles(target))


def dialect_of(db: peewee.Database) -> Dialect:
    """The backend of an open database."""
    return next(dialect for dialect in DIALECTS if dialect.owns(db))


def raised_by(dialect: Dialect, exc: BaseException | None) -> bool:
    """Whether ``dialect``'s driver raised ``exc`` (or the driver error peewee wrapped in it)."""
    inner = exc.args[0] if exc is not None and exc.args and isinstance(exc.args[0], BaseException) else exc
    return isinstance(inner, dialect.DRIVER_ERROR)
