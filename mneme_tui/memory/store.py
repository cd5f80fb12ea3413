"""The Store: the one API over ``mneme.db`` that the CLI, the TUI, Legion sync and task sync use.

Every method returns plain dataclasses (``records.py``). Connections are per thread (peewee), so the
TUI's thread workers can call any method. ``store_connection.py`` holds the connection, ``store_writes.py``
the writes; this module adds listing, counting, history and recall. All SQL lives in ``persistence/``.
"""

from __future__ import annotations

import builtins
import hashlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from mneme_tui import config
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory import index_snapshot
from mneme_tui.memory import kinds as K
from mneme_tui.memory.curation.proposals import proposal_id
from mneme_tui.memory.curation.text_features import stable_hash
from mneme_tui.memory.index import days_since_epoch
from mneme_tui.memory.persistence import store_copy
from mneme_tui.memory.persistence.dialect import raised_by
from mneme_tui.memory.persistence.repositories import database_revision, database_uuid
from mneme_tui.memory.persistence.schema import LEGION_RECORD_COLUMNS
from mneme_tui.memory.ranking import DEFAULT_PROFILE, PROFILES, RankedRow, RecallQuery, rank
from mneme_tui.memory.records import AuditEntry, Memory, MemoryDetail, MemoryHead, ScoredMemory
from mneme_tui.memory.store_writes import StoreWrites
from mneme_tui.validation import MAX_CONTENT_CHARS, MAX_ID

__all__ = ["LIST_ORDERS", "MAX_CONTENT_CHARS", "MAX_ID", "Store"]

LIST_ORDERS = ("newest", "oldest", "id", "kind", "topic", "repo", "access")


class Store(StoreWrites):
    """Memories in one database: save, recall, list, dismiss, restore, supersede, audit and per-task
    reinforcement."""

    def _start_index(self) -> None:
        super()._start_index()
        self._snapshot_seq = -1

    # ---------------------------------------------------------------------- reads
    def get_many(self, ids: Sequence[int]) -> dict[int, Memory]:
        """Memories by id (missing ids are simply absent)."""
        with self.sqlite_errors():
            return self.memories.get_many(ids)

    def list(
        self,
        *,
        status: str = K.ACTIVE,
        repo_id: str | None = None,
        kind: str | None = None,
        limit: int | None = 20,
        offset: int = 0,
        order: str = "newest",
        include_global: bool = False,
        text: str = "",
    ) -> list[Memory]:
        """Memories filtered by status (or ``all``), repo (None = every repo; ``include_global`` adds the
        ``global`` ones), kind and ``text`` (in the content or topic, any case), in ``order`` (newest first
        by default)."""
        query = self._filtered(status, repo_id, kind, include_global, text)
        orders = self.memories.orders()
        if order not in orders:
            raise MnemeError(ERR_VALIDATION_FAILED, f"unknown order {order!r} (valid: {', '.join(LIST_ORDERS)})")
        if limit is not None and limit < 0:
            raise MnemeError(ERR_VALIDATION_FAILED, "limit cannot be negative")
        # order and page narrow (id, sort key) rows first, then fetch just the page's memories
        with self.sqlite_errors():
            ids = self.memories.page_ids(query, orders[order], None if limit is None else min(limit, MAX_ID), offset)
        found = self.get_many(ids)
        return [found[memory_id] for memory_id in ids if memory_id in found]

    def active_heads(
        self, repo_id: str | None, kinds: Sequence[str], verified_only: Sequence[str] = ()
    ) -> dict[str, builtins.list[MemoryHead]]:
        """Kind → every active memory of ``repo_id`` and ``global`` (None: of every repository) of that kind,
        without its text, by id (kinds with none are absent; kinds in ``verified_only``: only their verified
        memories): what a handshake ranks, from one covering index."""
        repos = None if repo_id is None else sorted({repo_id, config.GLOBAL_REPO})
        with self.sqlite_errors():
            return self.memories.active_heads(repos, list(kinds), verified_only)

    def count(
        self, *, status: str = "all", repo_id: str | None = None, kind: str | None = None, include_global: bool = False
    ) -> int:
        """How many memories match the filters of ``list``."""
        with self.sqlite_errors():
            return self._filtered(status, repo_id, kind, include_global).count()

    def status_counts(
        self, *, repo_id: str | None = None, kind: str | None = None, include_global: bool = False, text: str = ""
    ) -> dict[str, int]:
        """Counts per status (and ``all``) for the given scope."""
        counts = dict.fromkeys(K.STATUSES, 0)
        query = self._filtered("all", repo_id, kind, include_global, text)
        with self.sqlite_errors():
            for status, n in self.memories.count_by(query, "status"):
                counts[status] = n
        counts["all"] = sum(counts.values())
        return counts

    def kind_counts(
        self, *, status: str = "all", repo_id: str | None = None, include_global: bool = False, text: str = ""
    ) -> dict[str, int]:
        """Counts per kind (kinds with no memory are absent) for the filters of ``list`` except the kind."""
        query = self._filtered(status, repo_id, None, include_global, text)
        with self.sqlite_errors():
            return {kind: n for kind, n in self.memories.count_by(query, "kind")}

    def kind_status_counts(self) -> dict[str, dict[str, int]]:
        """Counts per kind and status across the whole store (for summaries)."""
        result: dict[str, dict[str, int]] = {}
        with self.sqlite_errors():
            for kind, status, n in self.memories.count_by(self.memories.filtered("all", None, None), "kind", "status"):
                result.setdefault(kind, dict.fromkeys(K.STATUSES, 0))[status] = n
        return result

    def revision(self) -> int:
        """A number that grows whenever any process inserts or updates a memory (cheap to poll)."""
        with self.sqlite_errors():
            return sum(database_revision(self.db))

    def info(self) -> dict[str, Any]:
        """What ``mneme db info`` shows: backend, where (a URL without its password), schema version, rows
        per table and memories per status."""
        with self.sqlite_errors():
            return {
                "backend": self.dialect.NAME,
                "database": str(self.path),
                "schema_version": self.dialect.schema_version(self.db),
                "tables": store_copy.table_counts(self.db),
                "memories": self.status_counts(),
            }

    def copy_into(self, destination: Store, *, merge: bool = False) -> store_copy.CopyResult:
        """Copy this whole store into ``destination`` (``mneme db copy``; see ``persistence/store_copy``)."""
        with destination.sqlite_errors():
            try:
                with self.sqlite_errors():
                    return store_copy.copy_store(self.db, destination.db, merge=merge, proposal_id_of=_proposal_id_of)
            except MnemeError as error:  # a failure of the destination's driver is named against the destination
                cause = error.__cause__
                if cause is None or destination.dialect is self.dialect or not raised_by(destination.dialect, cause):
                    raise
                raise destination.dialect.database_error(destination.path, cause) from cause

    def repos(self) -> builtins.list[str]:
        """Every repo_id in the store, sorted."""
        with self.sqlite_errors():
            return self.memories.repos()

    def history(self, memory_id: int) -> builtins.list[AuditEntry]:
        """The memory's status changes, oldest first (ERR_NOT_FOUND for an unknown id)."""
        self.get(memory_id)
        with self.sqlite_errors():
            return [AuditEntry(*entry) for entry in self.audit_log.for_memory(memory_id)]

    def detail(self, memory_id: int) -> MemoryDetail:
        """What ``show`` needs: the memory, its history, what supersedes it, what it superseded and the
        tasks that reinforced it (ERR_NOT_FOUND for an unknown id)."""
        memory = self.get(memory_id)
        with self.sqlite_errors():
            older = self.memories.superseded_by(memory_id)
            created_by = self.provenance_log.actor_of(memory_id)
        related = self.get_many([*older, memory.superseded_by] if memory.superseded_by else older)
        return MemoryDetail(
            memory=memory,
            history=tuple(self.history(memory_id)),
            superseded_by=related.get(memory.superseded_by) if memory.superseded_by else None,
            supersedes=tuple(related[i] for i in older if i in related),
            accessed_by=tuple(self.task_ids_for(memory_id)),
            created_by=created_by,
        )

    def task_ids_for(self, memory_id: int) -> builtins.list[str]:
        """Tasks that have reinforced this memory, oldest first."""
        return self.task_ids_by_memory([memory_id]).get(memory_id, [])

    def task_ids_by_memory(self, memory_ids: Sequence[int]) -> dict[int, builtins.list[str]]:
        """Memory id → the tasks that reinforced it, oldest first (ids nobody reinforced are absent)."""
        with self.sqlite_errors():
            return self.task_access.tasks_for(memory_ids)

    def legion_ids(self, memory_ids: Sequence[int]) -> dict[int, str]:
        """Memory id → the Legion record ID it mirrors (``O-012``); ids not imported from Legion are absent."""
        column = LEGION_RECORD_COLUMNS.index("record_id")
        found = {}
        with self.sqlite_errors():
            for memory_id in memory_ids:
                row = self.legion_records.for_memory(memory_id)
                if row is not None and row[column]:
                    found[memory_id] = str(row[column])
        return found

    def _filtered(
        self, status: str, repo_id: str | None, kind: str | None, include_global: bool = False, text: str = ""
    ):
        K.validate_status(status, allow_all=True)
        repos = None if repo_id is None else ({repo_id, config.GLOBAL_REPO} if include_global else {repo_id})
        return self.memories.filtered(status, repos, kind, text)

    # --------------------------------------------------------------------- recall
    def refresh_index(self) -> bool:
        """Load what changed in the database into the in-memory index; True when anything did.

        A cold index starts from the on-disk snapshot when there is one (``index_snapshot``), and a new
        snapshot is written once enough has changed since the last one. A purge seen while catching up
        (by another process or client) deletes the snapshot and reloads the index whole, so the purged
        text's words leave both (the new snapshot is written from the reload).
        """
        with self.sqlite_errors(), self.index.lock:
            if self.index.seq < 0:
                self._load_snapshot()
            changed = self.index.refresh(self.db)
            if self.index.purged_since_load():
                snapshot = self.snapshot_file()
                if snapshot is not None:
                    index_snapshot.discard_files(snapshot)
                self.index.seq, self._snapshot_seq = -1, -1
                self.index.refresh(self.db)
            behind = self.index.seq - self._snapshot_seq
            if self.index.size >= index_snapshot.MIN_ROWS and behind > max(1_000, self.index.size // 10):
                self._save_snapshot(self.snapshot_file())
            return changed

    def save_snapshot(self) -> bool:
        """Bring the index up to date and write its snapshot now (as the bench does to measure a current one);
        False when none was written."""
        with self.sqlite_errors(), self.index.lock:
            self.refresh_index()
            return self._save_snapshot(self.snapshot_file())

    def _save_snapshot(self, snapshot: Path | None) -> bool:
        if snapshot is None or not index_snapshot.save(self.index, snapshot, self._snapshot_key()):
            return False
        self._snapshot_seq = self.index.seq
        return True

    def _db_uuid(self) -> str:
        return database_uuid(self.db)

    def snapshot_file(self) -> Path | None:
        """The on-disk index snapshot of this store: named after a SQLite file's path, or after a server
        database's identity (never its URL); None for a server database without a ``db_uuid``."""
        if isinstance(self.path, Path):
            return index_snapshot.snapshot_path(self.path)
        key = self._snapshot_key()
        return index_snapshot.server_snapshot_path(key) if key else None

    def _snapshot_key(self) -> str:
        """What a usable snapshot records as its database: a SQLite file's ``db_uuid``; for a server's, a
        digest of its ``db_uuid``, database name and oid and schema ('' without a ``db_uuid``)."""
        if isinstance(self.path, Path):
            return self._db_uuid()
        identity = self.dialect.database_identity(self.db)
        return hashlib.sha256(repr(identity).encode()).hexdigest() if identity[1] else ""

    def _load_snapshot(self) -> None:
        snapshot = self.snapshot_file()
        loaded = index_snapshot.load(snapshot, self._snapshot_key()) if snapshot else None
        if loaded is not None:
            max_id, update_seq = database_revision(self.db)
            last_id = int(loaded.ids[-1]) if loaded.size else 0
            if loaded.update_seq <= update_seq and last_id <= max_id:  # never past the database's revision
                loaded.lock = self.index.lock  # threads already waiting on it must guard the new index
                self.index = loaded
                self._snapshot_seq = loaded.seq

    def recall(
        self,
        query: str,
        *,
        repo: str,
        cross_repo: bool = False,
        kind: str | None = None,
        limit: int = 5,
        profile: str = DEFAULT_PROFILE,
        task_id: str | None = None,
        now: datetime | None = None,
    ) -> builtins.list[ScoredMemory]:
        """Hybrid search (spec 4.2/5.2). Read-only unless ``task_id`` is given, in which case every memory
        returned is reinforced at most once per (task_id, memory_id) (spec ``SearchOptions.ReadOnly``)."""
        if not query.strip():
            raise MnemeError(ERR_VALIDATION_FAILED, "query cannot be empty")
        if limit < 1:
            raise MnemeError(ERR_VALIDATION_FAILED, "limit must be at least 1")
        if kind is not None:
            K.validate_kind(kind, allow_statutory=True)
        if profile not in PROFILES:
            raise MnemeError(ERR_VALIDATION_FAILED, f"unknown profile {profile!r} (valid: {', '.join(PROFILES)})")
        moment = now or config.now()
        recall_query = RecallQuery(
            text=query,
            repo=repo,
            now_days=float(days_since_epoch([moment.isoformat(sep=" ")])[0]),
            cross_repo=cross_repo,
            kind=kind,
            limit=limit,
            profile=profile,
        )
        ranked, memories = self._ranked_at_revision(recall_query)
        if task_id is not None:
            self.reinforce(task_id, [row.memory_id for row in ranked])
        return [
            ScoredMemory(memories[row.memory_id], row.score, row.components, profile, row.reasons)
            for row in ranked
            if row.memory_id in memories
        ]

    def _ranked_at_revision(self, query: RecallQuery) -> tuple[builtins.list[RankedRow], dict[int, Memory]]:
        """The ranked rows of ``query`` on an index current with the database, and their memories.

        Optimistic: the index is ranked as it is, and the results' rows are read with the database's revision
        in one statement; when that revision is the index's, the index was current (the common case: one round
        trip to a server instead of two). Otherwise, or with no result to read, the index is refreshed as
        before and ranked again (with no result, only if the index moved meanwhile). A store whose file was
        replaced in between has a new index, and ranks again on it."""
        with self.sqlite_errors(), self.index.lock:
            if self.index.seq < 0:
                self.refresh_index()
            index, ranked_at = self.index, self.index.seq
            ranked = rank(index, query)
        if ranked:
            with self.sqlite_errors():
                memories, revision = self.memories.get_many_at_revision([row.memory_id for row in ranked])
            if revision == ranked_at and self.index is index:
                return ranked, memories
        self.refresh_index()
        if ranked or self.index is not index or self.index.seq != ranked_at:  # another thread may have refreshed it
            ranked = rank(self.index, query)
            return ranked, self.get_many([row.memory_id for row in ranked])
        return ranked, {}


def _proposal_id_of(kind: str, memory_ids: tuple[int, ...], texts: Sequence[str]) -> str:
    """The id of a review proposal over these memories with these texts (``db copy`` renumbers decisions)."""
    return proposal_id(kind, memory_ids, [stable_hash(text) for text in texts])
