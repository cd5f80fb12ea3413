"""The Store: the one API over ``mneme.db`` that the CLI, the TUI, Legion sync and task sync use.

Every method returns plain dataclasses (``records.py``). Connections are per thread (peewee), so the
TUI's thread workers can call any method. Writes run in ``BEGIN IMMEDIATE`` transactions with a busy
timeout, so two processes writing at once wait for each other instead of failing or losing data.
"""

from __future__ import annotations

import sqlite3
from collections import namedtuple
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import peewee

from mneme_tui import config
from mneme_tui.errors import ERR_NOT_FOUND, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory import index_snapshot
from mneme_tui.memory import kinds as K
from mneme_tui.memory.index import MemoryIndex, database_revision, days_since_epoch
from mneme_tui.memory.models import bind_tables, database_error, open_database
from mneme_tui.memory.ranking import DEFAULT_PROFILE, PROFILES, RecallQuery, rank
from mneme_tui.memory.records import AuditEntry, Memory, ScoredMemory, StatusChange
from mneme_tui.memory.vectors import embed, embed_blobs, to_blob

MAX_CONTENT_CHARS = 100_000
MAX_ID = 2**63 - 1
"""SQLite's largest INTEGER: no memory id can be above it."""
LIST_ORDERS = ("newest", "oldest", "id", "kind", "topic", "repo", "access")


_MEMORY_COLUMNS = (
    "id", "repo_id", "kind", "topic", "content", "task_id", "created_at", "status", "superseded_by", "access_count",
)
_Row = namedtuple("_Row", _MEMORY_COLUMNS)
"""A raw ``memories`` row (text ``created_at``), shaped like a peewee row for ``Store._memory``."""

_INSERT_COLUMNS = (
    "repo_id", "kind", "topic", "content", "task_id", "embedding", "created_at", "status", "superseded_by", "access_count",
)
_INSERT = f"INSERT INTO memories ({', '.join(_INSERT_COLUMNS)}) VALUES ({', '.join('?' * len(_INSERT_COLUMNS))})"
_NewRow = namedtuple("_NewRow", [c for c in _INSERT_COLUMNS if c != "embedding"])
"""A validated memory to insert (``created_at`` a datetime; the embedding is computed in bulk)."""
_INSERT_CHUNK = 5_000


class Store:
    """Memories in one SQLite file: save, recall, list, dismiss, audit and per-task reinforcement."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.db = open_database(self.path)
        self.tables = bind_tables(self.db)
        self.index = MemoryIndex()
        self._snapshot_seq = -1

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def sqlite_errors(self) -> Iterator[None]:
        """Turn sqlite/peewee failures inside the block into one-line ERR_DATABASE errors."""
        try:
            yield
        except (sqlite3.DatabaseError, peewee.DatabaseError) as exc:
            raise database_error(self.path, exc) from None

    def close(self) -> None:
        """Close this thread's connection."""
        if not self.db.is_closed():
            self.db.close()

    # --------------------------------------------------------------------- writes
    def save(
        self,
        content: str,
        *,
        kind: str = "reflection",
        topic: str = "General",
        repo_id: str = config.GLOBAL_REPO,
        task_id: str = "",
    ) -> Memory:
        """Save an advisory memory (spec 5.1); statutory kinds raise ERR_VALIDATION_FAILED."""
        K.validate_kind(kind, allow_statutory=False)
        return self.mint(content, kind=kind, topic=topic, repo_id=repo_id, task_id=task_id)

    def mint(
        self,
        content: str,
        *,
        kind: str,
        topic: str = "General",
        repo_id: str = config.GLOBAL_REPO,
        task_id: str = "",
        created_at: datetime | None = None,
        status: str = K.ACTIVE,
        access_count: int = 0,
    ) -> Memory:
        """Internal write path for any kind, statutory included (Legion import, task sync, demo, bench)."""
        return self.mint_many(
            [dict(content=content, kind=kind, topic=topic, repo_id=repo_id, task_id=task_id,
                  created_at=created_at, status=status, access_count=access_count)]
        )[0]

    def mint_many(self, items: Sequence[dict]) -> list[Memory]:
        """Insert several memories in one transaction (all or nothing); each item takes ``mint``'s fields."""
        rows = [self._validated_row(item) for item in items]
        ids = self._insert(rows)
        return [self._memory(_Row(memory_id, *row)) for memory_id, row in zip(ids, rows)]

    def mint_ids(self, items: Sequence[dict]) -> list[int]:
        """``mint_many`` for bulk imports that need only the new ids (in the order of ``items``)."""
        return self._insert([self._validated_row(item) for item in items])

    def _insert(self, rows: list[_NewRow]) -> list[int]:
        """Insert validated rows in one ``BEGIN IMMEDIATE`` transaction; their new ids, in order."""
        blobs = embed_blobs([row.content for row in rows])  # batched: the same bytes as embed() per row
        stamps: dict[datetime, str] = {}  # created_at as the text peewee itself stores (dates repeat)
        values = [
            (row.repo_id, row.kind, row.topic, row.content, row.task_id, blob,
             stamps.get(row.created_at) or stamps.setdefault(row.created_at, row.created_at.isoformat(sep=" ")),
             row.status, row.superseded_by, row.access_count)
            for row, blob in zip(rows, blobs)
        ]
        ids: list[int] = []
        with self.sqlite_errors(), self.db.atomic("IMMEDIATE"):
            cursor = self.db.cursor()
            for start in range(0, len(values), _INSERT_CHUNK):
                chunk = values[start : start + _INSERT_CHUNK]
                cursor.executemany(_INSERT, chunk)
                last_id = self.db.execute_sql("SELECT last_insert_rowid()").fetchone()[0]
                # one exclusive transaction: AUTOINCREMENT ids of consecutive inserts are consecutive
                ids.extend(range(last_id - len(chunk) + 1, last_id + 1))
        return ids

    def _validated_row(self, item: dict) -> _NewRow:
        get = item.get
        content = get("content")
        if not isinstance(content, str) or not content.strip():
            raise MnemeError(ERR_VALIDATION_FAILED, "memory content cannot be empty")
        if len(content) > MAX_CONTENT_CHARS:
            raise MnemeError(ERR_VALIDATION_FAILED, f"memory content is longer than {MAX_CONTENT_CHARS} characters")
        if "\x00" in content:
            raise MnemeError(ERR_VALIDATION_FAILED, "memory content cannot contain NUL bytes")
        kind = get("kind")
        if kind not in K.ALL_KINDS:  # (the common case is a known kind: skip the conversions)
            kind = K.validate_kind(str(kind or ""), allow_statutory=True)
        status = get("status") or K.ACTIVE
        if status not in K.STATUSES:
            status = K.validate_status(str(status))
        repo_id = get("repo_id")
        access = int(get("access_count") or 0)
        if access < 0:
            raise MnemeError(ERR_VALIDATION_FAILED, "access_count cannot be negative")
        return _NewRow(  # positional, in _NewRow's field order (the fastest way to build it)
            config.GLOBAL_REPO if repo_id is None else str(repo_id).strip(),
            kind,
            str(get("topic") or "").strip() or "General",
            content,
            str(get("task_id") or ""),
            get("created_at") or config.now(),
            status,
            int(get("superseded_by") or 0),
            access,
        )

    def dismiss(self, ids: Iterable[int], reason: str = "dismissed") -> StatusChange:
        """Tombstone active or superseded memories (spec 5.4); all ids are checked before anything changes."""
        return self.set_status(ids, K.TOMBSTONED, reason=reason, allowed_from=(K.ACTIVE, K.SUPERSEDED))

    def restore(self, change: StatusChange, reason: str = "undo") -> StatusChange:
        """Undo a status change: put each memory back to the status it had before (audited)."""
        restored = []
        with self.sqlite_errors(), self.db.atomic("IMMEDIATE"):
            for memory_id, previous in change.changed:
                current = self._row(memory_id).status
                if current != previous:
                    self._change_status(memory_id, current, previous, reason)
                    restored.append((memory_id, current))
        return StatusChange(tuple(restored))

    def set_status(
        self,
        ids: Iterable[int],
        status: str,
        *,
        reason: str,
        allowed_from: Sequence[str] = K.STATUSES,
        superseded_by: int | None = None,
    ) -> StatusChange:
        """Move memories to ``status`` in one transaction, recording each change in the audit table.

        Unknown ids raise ERR_NOT_FOUND and ids in a status not in ``allowed_from`` raise
        ERR_VALIDATION_FAILED; in both cases nothing changes. Memories already in ``status`` are skipped.
        """
        K.validate_status(status)
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            raise MnemeError(ERR_VALIDATION_FAILED, "no memory ids given")
        changed = []
        with self.sqlite_errors(), self.db.atomic("IMMEDIATE"):
            storable = [i for i in wanted if 0 < i <= MAX_ID]
            rows = {r.id: r for r in self.tables.memory.select().where(self.tables.memory.id.in_(storable))}
            missing = [i for i in wanted if i not in rows]
            if missing:
                raise MnemeError(ERR_NOT_FOUND, f"no memory with id {', '.join(map(str, missing))}")
            refused = [i for i in wanted if rows[i].status not in allowed_from and rows[i].status != status]
            if refused:
                described = ", ".join(f"{i} is {rows[i].status}" for i in refused)
                raise MnemeError(ERR_VALIDATION_FAILED, f"cannot make {status}: {described}")
            for memory_id in wanted:
                previous = rows[memory_id].status
                if previous == status and superseded_by is None:
                    continue
                self._change_status(memory_id, previous, status, reason, superseded_by)
                changed.append((memory_id, previous))
        return StatusChange(tuple(changed))

    def supersede(self, old_id: int, new_id: int, reason: str = "superseded") -> StatusChange:
        """Mark ``old_id`` superseded by ``new_id`` (both must exist)."""
        self.get(new_id)
        return self.set_status([old_id], K.SUPERSEDED, reason=reason, allowed_from=(K.ACTIVE,), superseded_by=new_id)

    def _change_status(
        self, memory_id: int, previous: str, status: str, reason: str, superseded_by: int | None = None
    ) -> None:
        fields: dict = {"status": status}
        if superseded_by is not None:
            fields["superseded_by"] = superseded_by
        self.tables.memory.update(**fields).where(self.tables.memory.id == memory_id).execute()
        self.tables.audit.insert(
            memory_id=memory_id, from_status=previous, to_status=status, at=config.now(), reason=reason
        ).execute()

    def update_content(self, memory_id: int, *, content: str, topic: str | None = None, task_id: str | None = None) -> Memory:
        """Replace a memory's text (re-embedding it); used when a mirrored source row was edited."""
        row = self._validated_row({"content": content, "kind": self._row(memory_id).kind})
        fields = {"content": row.content, "embedding": to_blob(embed(row.content))}
        if topic is not None:
            fields["topic"] = topic.strip() or "General"
        if task_id is not None:
            fields["task_id"] = task_id
        with self.sqlite_errors(), self.db.atomic("IMMEDIATE"):
            self.tables.memory.update(**fields).where(self.tables.memory.id == memory_id).execute()
        return self.get(memory_id)

    def reinforce(self, task_id: str, memory_ids: Iterable[int]) -> list[int]:
        """Count an access for each memory at most once per (task_id, memory_id); returns the ids counted."""
        if not task_id.strip():
            raise MnemeError(ERR_VALIDATION_FAILED, "task id cannot be empty")
        counted = []
        with self.sqlite_errors(), self.db.atomic("IMMEDIATE"):
            for memory_id in dict.fromkeys(memory_ids):
                self.tables.task_access.insert(
                    task_id=task_id, memory_id=memory_id, at=config.now()
                ).on_conflict_ignore().execute()
                if self.db.execute_sql("SELECT changes()").fetchone()[0]:
                    self.tables.memory.update(access_count=self.tables.memory.access_count + 1).where(
                        self.tables.memory.id == memory_id
                    ).execute()
                    counted.append(memory_id)
        return counted

    # ---------------------------------------------------------------------- reads
    def get(self, memory_id: int) -> Memory:
        """One memory by id; ERR_NOT_FOUND when there is none."""
        return self._memory(self._row(memory_id))

    def _row(self, memory_id: int):
        if not 0 < memory_id <= MAX_ID:
            raise MnemeError(ERR_NOT_FOUND, f"no memory with id {memory_id}")
        with self.sqlite_errors():
            row = self.tables.memory.get_or_none(self.tables.memory.id == memory_id)
        if row is None:
            raise MnemeError(ERR_NOT_FOUND, f"no memory with id {memory_id}")
        return row

    def get_many(self, ids: Sequence[int]) -> dict[int, Memory]:
        """Memories by id (missing ids are simply absent)."""
        found: dict[int, Memory] = {}
        with self.sqlite_errors():
            for start in range(0, len(ids), 500):
                chunk = [int(i) for i in ids[start : start + 500]]
                cursor = self.db.execute_sql(
                    f"SELECT {', '.join(_MEMORY_COLUMNS)} FROM memories WHERE id IN ({', '.join('?' * len(chunk))})",
                    chunk,
                )
                for values in cursor.fetchall():
                    memory = self._memory(_Row(*values))
                    found[memory.id] = memory
        return found

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
    ) -> list[Memory]:
        """Memories filtered by status (or ``all``), repo (None = every repo; ``include_global`` adds the
        ``global`` ones) and kind, in ``order`` (newest first by default)."""
        query = self._filtered(status, repo_id, kind, include_global)
        table = self.tables.memory
        orders = {
            # julianday() so rows written by other tools ('T', 'Z', offsets) sort by their real time
            "newest": (peewee.fn.julianday(table.created_at).desc(), table.id.desc()),
            "oldest": (peewee.fn.julianday(table.created_at).asc(), table.id.asc()),
            "id": (table.id.asc(),),
            "kind": (table.kind.asc(), table.id.desc()),
            "topic": (table.topic.asc(), table.id.desc()),
            "repo": (table.repo_id.asc(), table.id.desc()),
            "access": (table.access_count.desc(), table.id.desc()),
        }
        if order not in orders:
            raise MnemeError(ERR_VALIDATION_FAILED, f"unknown order {order!r} (valid: {', '.join(LIST_ORDERS)})")
        # order and page narrow (id, sort key) rows first, then fetch just the page's memories
        query = query.select(table.id).order_by(*orders[order])
        if limit is not None:
            if limit < 0:
                raise MnemeError(ERR_VALIDATION_FAILED, "limit cannot be negative")
            query = query.limit(min(limit, MAX_ID))
        if offset:
            query = query.offset(offset)
        with self.sqlite_errors():
            ids = [row[0] for row in query.tuples()]
        found = self.get_many(ids)
        return [found[memory_id] for memory_id in ids if memory_id in found]

    def count(
        self, *, status: str = "all", repo_id: str | None = None, kind: str | None = None, include_global: bool = False
    ) -> int:
        """How many memories match the filters of ``list``."""
        with self.sqlite_errors():
            return self._filtered(status, repo_id, kind, include_global).count()

    def status_counts(
        self, *, repo_id: str | None = None, kind: str | None = None, include_global: bool = False
    ) -> dict[str, int]:
        """Counts per status (and ``all``) for the given scope."""
        table = self.tables.memory
        query = self._filtered("all", repo_id, kind, include_global).select(
            table.status, peewee.fn.COUNT(table.id).alias("n")
        )
        counts = dict.fromkeys(K.STATUSES, 0)
        with self.sqlite_errors():
            for row in query.group_by(table.status).dicts():
                counts[row["status"]] = row["n"]
        counts["all"] = sum(counts.values())
        return counts

    def kind_status_counts(self) -> dict[str, dict[str, int]]:
        """Counts per kind and status across the whole store (for summaries)."""
        table = self.tables.memory
        query = table.select(table.kind, table.status, peewee.fn.COUNT(table.id).alias("n"))
        result: dict[str, dict[str, int]] = {}
        with self.sqlite_errors():
            for row in query.group_by(table.kind, table.status).dicts():
                result.setdefault(row["kind"], dict.fromkeys(K.STATUSES, 0))[row["status"]] = row["n"]
        return result

    def revision(self) -> int:
        """A number that grows whenever any process inserts or updates a memory (cheap to poll)."""
        with self.sqlite_errors():
            return sum(database_revision(self.db))

    def repos(self) -> list[str]:
        """Every repo_id in the store, sorted."""
        table = self.tables.memory
        with self.sqlite_errors():
            return sorted({row.repo_id for row in table.select(table.repo_id).distinct()})

    def history(self, memory_id: int) -> list[AuditEntry]:
        """The memory's status changes, oldest first (ERR_NOT_FOUND for an unknown id)."""
        self._row(memory_id)
        audit = self.tables.audit
        with self.sqlite_errors():
            rows = audit.select().where(audit.memory_id == memory_id).order_by(audit.id)
            return [AuditEntry(r.memory_id, r.from_status, r.to_status, r.at, r.reason) for r in rows]

    def task_ids_for(self, memory_id: int) -> list[str]:
        """Tasks that have reinforced this memory."""
        access = self.tables.task_access
        with self.sqlite_errors():
            rows = access.select(access.task_id).where(access.memory_id == memory_id).order_by(access.at)
            return [r.task_id for r in rows]

    def _filtered(self, status: str, repo_id: str | None, kind: str | None, include_global: bool = False):
        K.validate_status(status, allow_all=True)
        table = self.tables.memory
        query = table.select()
        if status != "all":
            query = query.where(table.status == status)
        if repo_id is not None:
            repos = {repo_id, config.GLOBAL_REPO} if include_global else {repo_id}
            query = query.where(table.repo_id.in_(sorted(repos)))
        if kind is not None:
            query = query.where(table.kind == kind)
        return query

    # --------------------------------------------------------------------- recall
    def refresh_index(self) -> bool:
        """Load what changed in the database into the in-memory index; True when anything did.

        A cold index starts from the on-disk snapshot when there is one (``index_snapshot``), and a new
        snapshot is written once enough has changed since the last one.
        """
        with self.sqlite_errors(), self.index.lock:
            if self.index.seq < 0:
                self._load_snapshot()
            changed = self.index.refresh(self.db)
            behind = self.index.seq - self._snapshot_seq
            if self.index.size >= index_snapshot.MIN_ROWS and behind > max(1_000, self.index.size // 10):
                if index_snapshot.save(self.index, index_snapshot.snapshot_path(self.path), self._db_uuid()):
                    self._snapshot_seq = self.index.seq
            return changed

    def _db_uuid(self) -> str:
        row = self.db.execute_sql("SELECT value FROM mneme_meta WHERE key = 'db_uuid'").fetchone()
        return row[0] if row else ""

    def _load_snapshot(self) -> None:
        loaded = index_snapshot.load(index_snapshot.snapshot_path(self.path), self._db_uuid())
        if loaded is not None:
            max_id, update_seq = database_revision(self.db)
            last_id = int(loaded.ids[-1]) if loaded.size else 0
            if loaded.update_seq <= update_seq and last_id <= max_id:
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
    ) -> list[ScoredMemory]:
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
        self.refresh_index()
        ranked = rank(
            self.index,
            RecallQuery(
                text=query,
                repo=repo,
                now_days=float(days_since_epoch([moment.isoformat(sep=" ")])[0]),
                cross_repo=cross_repo,
                kind=kind,
                limit=limit,
                profile=profile,
            ),
        )
        memories = self.get_many([row.memory_id for row in ranked])
        if task_id is not None:
            self.reinforce(task_id, [row.memory_id for row in ranked])
        return [
            ScoredMemory(memories[row.memory_id], row.score, row.components, profile, row.reasons)
            for row in ranked
            if row.memory_id in memories
        ]

    # -------------------------------------------------------------------- helpers
    def _memory(self, row) -> Memory:
        created = row.created_at
        if isinstance(created, str):
            try:
                created = datetime.fromisoformat(created)
            except ValueError:
                created = config.parse_timestamp(created, source=f"created_at of memory {row.id}")
        if created.tzinfo is not None:  # written by another tool with an offset
            created = created.astimezone(timezone.utc).replace(tzinfo=None)
        return Memory(
            id=row.id,
            repo_id=row.repo_id or "",
            kind=row.kind,
            topic=row.topic,
            content=row.content,
            task_id=row.task_id,
            created_at=created,
            status=row.status,
            superseded_by=row.superseded_by or 0,
            access_count=row.access_count,
        )
