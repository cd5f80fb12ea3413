"""The Store's connection: the database, its repositories, the per-thread plumbing that follows a replaced
database file or a restarted server, and the write transaction every write of ``store_writes.py`` runs in.

Writes run in one write transaction each (``BEGIN IMMEDIATE`` on SQLite) with a busy timeout, so two
processes writing at once wait for each other instead of failing or losing data; on PostgreSQL a transaction
the server aborts as a serialization failure or deadlock is run again whole (``postgres_dialect.retry_transaction``).
Every audit and provenance row records who wrote it: the store's ``actor`` (``config.resolve_actor``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TypeVar

from mneme_tui import config
from mneme_tui.errors import ERR_DATABASE, ERR_NOT_FOUND, MnemeError
from mneme_tui.memory import secrets
from mneme_tui.memory.curation.catalogue import Catalogue
from mneme_tui.memory.curation.same_text import text_key
from mneme_tui.memory.index import MemoryIndex
from mneme_tui.memory.persistence.curation import DecisionLog, PinTable
from mneme_tui.memory.persistence.database import open_database
from mneme_tui.memory.persistence.dialect import DATABASE_ERRORS, dialect_for
from mneme_tui.memory.persistence.memories import MemoryTable
from mneme_tui.memory.persistence.repositories import (
    AuditLog,
    LegionRecords,
    ProvenanceLog,
    TaskAccessLog,
    TaskSyncLedger,
)
from mneme_tui.memory.persistence.schema import bind_tables
from mneme_tui.memory.persistence.text_keys import BACKFILL_PAUSE_S, TextKeys
from mneme_tui.memory.records import Memory
from mneme_tui.validation import MAX_ID

T = TypeVar("T")


class StoreConnection:
    """The database connection, its repositories and the transactions the Store's writes run in."""

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True) -> None:
        """The store at ``path``; a SQLite file that does not exist is created only if ``create``."""
        target: config.DbTarget = path if isinstance(path, str) else Path(path)
        self._target, self._create = target, create
        self.dialect = dialect_for(target)
        self._file_path = self.dialect.database_file(target)
        """The one file holding the database (None on a server): it can be replaced or removed under this store."""
        self.path: config.DbTarget = self._file_path or config.describe_target(target)
        """Where the store lives, safe to show: a file path, or a PostgreSQL URL without its password (the open
        database keeps the full URL to connect with)."""
        self.db = open_database(target, create=create)
        self._file = self._file_identity()
        """The database file this store works on (device, inode): a path naming another one is noticed."""
        self._generation = 0
        """How often the path was found naming another file than before (0: never)."""
        self._thread = threading.local()
        """Per thread: how deep in ``sqlite_errors`` it is, and the generation its connection belongs to
        (peewee keeps one connection per thread)."""
        self.tables = bind_tables(self.db)
        self.text_keys = TextKeys(self.db, text_key)
        self.memories = MemoryTable(self.db, self.tables, self.text_keys)
        self.audit_log = AuditLog(self.tables)
        self.task_access = TaskAccessLog(self.db, self.tables)
        self.legion_records = LegionRecords(self.db)
        self.task_sync_ledger = TaskSyncLedger(self.db)
        self.provenance_log = ProvenanceLog(self.db)
        self.pins = PinTable(self.db)
        self.decisions = DecisionLog(self.db)
        self.redactions = 0
        """Secrets this store's writes replaced with ``[REDACTED:<type>]`` (policy ``redact``), for the summary."""
        self._start_index()
        self._backfill_text_keys()

    def _start_index(self) -> None:
        """A cold index and curation catalogue (at the start, and when the store's file was replaced: it held
        another database)."""
        self.index = MemoryIndex()
        self.catalogue = Catalogue()
        """Curation's features of every memory (``memory/curation``), refreshed by revision like ``index``."""

    def _backfill_text_keys(self) -> None:
        """Key the rows a store written before schema 8 holds, a batch per write transaction (other writers get
        the lock between batches; their saves are keyed as they write). Resumes where a stopped run left off."""
        with self.sqlite_errors():
            pending = self.text_keys.backfill_pending()
        while pending:
            pending = self.run_transaction(self.text_keys.backfill_batch)
            if pending:
                time.sleep(BACKFILL_PAUSE_S)

    # ------------------------------------------------------------------ plumbing
    @cached_property
    def secrets_policy(self) -> str:
        """What a write does with a secret: ``refuse`` (ERR_SECRET) or ``redact``; the config file's ``secrets``
        unless set (``--redact``). Read at the first write, like ``actor``."""
        return secrets.resolve_policy()

    def screened(self, text: str, what: str = "", policy: str | None = None) -> str:
        """``text`` as it may be stored (``secrets.screen`` under ``policy``, by default this store's), counting
        redactions."""
        text, count = secrets.screen(text, policy or self.secrets_policy, what)
        self.redactions += count
        return text

    @cached_property
    def actor(self) -> str:
        """Who this store's writes are recorded as made by (``config.resolve_actor``; read at the first write,
        so a bad setting fails a write, never a read)."""
        return config.resolve_actor()

    def _file_identity(self) -> tuple[int, int] | None:
        """The database file's device and inode as the path names it now (None: no file, or a server)."""
        if self._file_path is None:
            return None
        try:
            status = os.stat(self._file_path)
        except OSError:
            return None
        return status.st_dev, status.st_ino

    def _replaced(self) -> bool:
        """True when the path no longer names the file this store opened (deleted, or another file put there)."""
        return self._file_path is not None and self._file_identity() != self._file

    def _check_open(self) -> None:
        """Before an outermost use: follow a database file that was replaced or removed under this long-lived
        store (a connection would go on reading and writing the old, unlinked file), and reconnect to a
        PostgreSQL server that closed the connection (a restart)."""
        if self.db.transaction_depth():
            return
        replaced = self._file_path is not None and self._replaced()
        if self._file_path is not None:
            if replaced:  # checked like a new open (refused if foreign; created if missing and allowed)
                open_database(self._target, create=self._create).close()
                self._file = self._file_identity()
                self._generation += 1
                self._start_index()
            if getattr(self._thread, "generation", 0) != self._generation:
                self.close()  # this thread reconnects to the file the path names now at its next statement
                self._thread.generation = self._generation
        self.dialect.ensure_connected(self.db)
        if replaced:
            self._backfill_text_keys()  # the file put there may be an older store, just migrated

    @contextmanager
    def sqlite_errors(self) -> Iterator[None]:
        """Turn database failures inside the block into one-line ERR_DATABASE errors (the driver's error is
        kept as the cause: ``postgres_dialect.retry_transaction`` reads its code). An outermost use first makes sure
        the database is still the one at the store's path and connected (``_check_open``)."""
        depth = getattr(self._thread, "depth", 0)
        try:
            if not depth:
                self._check_open()
            self._thread.depth = depth + 1
            yield
        except DATABASE_ERRORS as exc:
            raise self.dialect.database_error(self.path, exc) from exc
        finally:
            self._thread.depth = depth

    @contextmanager
    def write_transaction(self) -> Iterator[None]:
        """One write transaction (all or nothing) that takes the write lock at once; database failures
        become ERR_DATABASE. Nested use joins the outer transaction. An outermost one that committed to a file
        replaced or removed meanwhile is ERR_DATABASE: a write is never acknowledged when it went nowhere."""
        outermost = not self.db.transaction_depth()
        with self.sqlite_errors(), self.dialect.write_transaction(self.db):
            yield
        if outermost and self._replaced():
            raise MnemeError(
                ERR_DATABASE,
                f"{self.path} was replaced or removed while this write ran: it went to the old file; run it again",
            )

    def run_transaction(self, write: Callable[[], T]) -> T:
        """``write()`` in one write transaction. An outermost one that PostgreSQL aborts as a serialization
        failure or deadlock is run again whole; nested in a caller's transaction, it joins that one (whose
        failure its owner sees)."""

        def attempt() -> T:
            with self.write_transaction():
                return write()

        return self.retried(attempt)

    def retried(self, attempt: Callable[[], T]) -> T:
        """``attempt()`` (which opens its own write transaction), run again whole when PostgreSQL aborts it as a
        serialization failure or deadlock; nested in a caller's transaction, once."""
        if self.db.transaction_depth():
            return attempt()
        return self.dialect.retry_transaction(attempt, self.db)

    def close(self) -> None:
        """Close this thread's connection."""
        if not self.db.is_closed():
            self.db.close()

    def get(self, memory_id: int) -> Memory:
        """One memory by id; ERR_NOT_FOUND when there is none."""
        memory = None
        if 0 < memory_id <= MAX_ID:
            with self.sqlite_errors():
                memory = self.memories.get(memory_id)
        if memory is None:
            raise MnemeError(ERR_NOT_FOUND, f"no memory with id {memory_id}")
        return memory
