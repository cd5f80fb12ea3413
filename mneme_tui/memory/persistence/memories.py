"""Reading and writing ``memories`` rows; rows come back as ``Memory`` dataclasses or plain tuples."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from itertools import repeat
from operator import attrgetter
from typing import Any

import peewee

from mneme_tui import config
from mneme_tui.memory.kinds import ACTIVE
from mneme_tui.memory.persistence.dialect import IndexBatch, dialect_of
from mneme_tui.memory.persistence.index_queries import REVISION
from mneme_tui.memory.persistence.schema import INSERT_COLUMNS, MEMORY_COLUMNS, Tables
from mneme_tui.memory.persistence.sql_text import id_chunks, placeholders
from mneme_tui.memory.persistence.text_keys import TextKeys
from mneme_tui.memory.records import TASK_SYNC, UNKNOWN_PROVENANCE, Memory, MemoryHead, Provenance, is_verified

INSERT_CHUNK = 5_000
_REPO, _KIND, _CONTENT = (INSERT_COLUMNS.index(name) for name in ("repo_id", "kind", "content"))
_SELECT_MEMORY = (
    f"SELECT {', '.join('m.' + column for column in MEMORY_COLUMNS)}, p.source, p.detail "
    "FROM memories m LEFT JOIN memory_provenance p ON p.memory_id = m.id"
)
"""A memory with its provenance, in one query (``memory_from_row`` takes the two extra columns)."""
_SELECT_MEMORY_AT_REVISION = _SELECT_MEMORY.replace(" FROM memories m ", f", {REVISION} FROM memories m ", 1)
"""The same with the database's revision (two columns) after each row."""
_HEAD_COLUMNS = "m.id, m.topic, m.task_id, m.created_at, m.access_count"
_HEAD_KIND = "WHERE m.status = ? AND m.kind = ?"
"""A ``MemoryHead``'s columns of ``memories`` but its repository and kind, which the query names: all of them
are in the index ``idx_memories_orientation``."""


def rows_of(query: Any) -> list[tuple[Any, ...]]:
    """The rows of a peewee query as plain tuples."""
    return list(query.tuples())


def memory_from_row(values: Sequence[Any], provenance: Provenance | None = None) -> Memory:
    """A ``Memory`` from a row in ``MEMORY_COLUMNS`` order (``created_at`` text or datetime, as UTC),
    optionally followed by the provenance's source and detail (``unknown`` when absent)."""
    memory_id, repo_id, kind, topic, content, task_id, created, status, superseded_by, access_count = values[:10]
    if provenance is None:
        provenance = Provenance(values[10], values[11] or "") if len(values) > 10 and values[10] else UNKNOWN_PROVENANCE
    return Memory(
        id=memory_id,
        repo_id=repo_id or "",
        kind=kind,
        topic=topic,
        content=content,
        task_id=task_id,
        created_at=utc_created(created, memory_id),
        status=status,
        superseded_by=superseded_by or 0,
        access_count=access_count,
        provenance=provenance,
    )


def utc_created(created: str | datetime, memory_id: int) -> datetime:
    """A row's ``created_at`` (text or datetime) as a naive UTC datetime."""
    if isinstance(created, str):
        text = created
        try:
            created = datetime.fromisoformat(text)
        except ValueError:
            created = config.parse_timestamp(text, source=f"created_at of memory {memory_id}")
    if created.tzinfo is not None:  # written by another tool with an offset
        created = created.astimezone(UTC).replace(tzinfo=None)
    return created


def utc_times(values: Sequence[str | datetime], ids: Sequence[int]) -> list[datetime]:
    """``utc_created`` of each of ``values`` (the ``created_at`` of the memories ``ids``), parsed in one pass
    when they are all ISO text without an offset, as this store writes them."""
    try:
        times = list(map(datetime.fromisoformat, values))  # type: ignore[arg-type]  # a datetime: TypeError
    except (TypeError, ValueError):
        return [utc_created(value, memory_id) for value, memory_id in zip(values, ids, strict=True)]
    if any(moment.tzinfo is not None for moment in times):
        return [utc_created(moment, memory_id) for moment, memory_id in zip(times, ids, strict=True)]
    return times


LOAD_BATCH = 25_000
"""Rows a cold index load reads and indexes at a time (a million rows as Python objects at once take gigabytes)."""


def index_load(db: peewee.Database) -> IndexBatch:
    """Every row for a cold index load, by id, in one batch (the dialect's bulk load: ``Dialect.index_load``)."""
    return dialect_of(db).index_load(db)


def index_load_batches(db: peewee.Database) -> Iterator[IndexBatch]:
    """``index_load`` ``LOAD_BATCH`` rows at a time, in id order, from one consistent view."""
    return dialect_of(db).index_load_batches(db, LOAD_BATCH)


def naive_rows(db: peewee.Database) -> list[tuple]:
    """(id, repo_id, kind, status, embedding, created_at, access_count, content) of every row, for the
    per-row baseline of ``mneme bench``."""
    return db.execute_sql(
        "SELECT id, repo_id, kind, status, embedding, created_at, access_count, content FROM memories"
    ).fetchall()


class MemoryTable:
    """The ``memories`` table of one database."""

    def __init__(self, db: peewee.Database, tables: Tables, text_keys: TextKeys) -> None:
        self.db = db
        self.dialect = dialect_of(db)
        self.model = tables.memory
        self.text_keys = text_keys
        """Every row's normalised-text key, written here with the row's text."""

    def insert(self, values: Sequence[tuple]) -> list[int]:
        """Insert rows (``INSERT_COLUMNS`` order) inside the caller's write transaction; their new ids."""
        ids: list[int] = []
        for start in range(0, len(values), INSERT_CHUNK):
            chunk = values[start : start + INSERT_CHUNK]
            ids.extend(self.dialect.insert_returning_ids(self.db, "memories", INSERT_COLUMNS, chunk))
        self.text_keys.add([(i, row[_REPO], row[_KIND], row[_CONTENT]) for i, row in zip(ids, values, strict=True)])
        return ids

    def get(self, memory_id: int) -> Memory | None:
        """One memory, or None."""
        row = self.db.execute_sql(_SELECT_MEMORY + " WHERE m.id = ?", (memory_id,)).fetchone()
        return None if row is None else memory_from_row(row)

    def get_many(self, ids: Sequence[int]) -> dict[int, Memory]:
        """Memories by id (missing ids are absent)."""
        memories = (memory_from_row(values) for values in self._rows_by_id(_SELECT_MEMORY, ids))
        return {memory.id: memory for memory in memories}

    def get_many_at_revision(self, ids: Sequence[int]) -> tuple[dict[int, Memory], int | None]:
        """Memories by id, and the database's revision (``MAX(id) + seq``) read by the same statement, so the
        rows are those of that revision; None when no row was found or the ids took statements that saw
        different revisions."""
        found: dict[int, Memory] = {}
        revisions = set()
        for values in self._rows_by_id(_SELECT_MEMORY_AT_REVISION, ids):
            memory = memory_from_row(values[:-2])
            found[memory.id] = memory
            revisions.add(int(values[-2]) + int(values[-1]))
        return found, (revisions.pop() if len(revisions) == 1 else None)

    def _rows_by_id(self, select: str, ids: Sequence[int]) -> Iterator[tuple]:
        """The rows of ``select`` (a select of ``memories m``) for these ids, a statement per chunk of them."""
        for chunk in id_chunks(ids):
            yield from self.db.execute_sql(f"{select} WHERE m.id IN ({placeholders(len(chunk))})", chunk).fetchall()

    def active_heads(
        self, repos: Sequence[str] | None, kinds: Sequence[str], verified_only: Collection[str] = ()
    ) -> dict[str, list[MemoryHead]]:
        """Kind → every active memory of ``repos`` (None: every repository) and that kind, without its text,
        by id (a kind with none is absent); a kind in ``verified_only`` gives only its verified memories.

        Read from the covering index ``idx_memories_orientation`` alone, one (repository, kind) at a time and
        with no ``ORDER BY`` (ordered by id, SQLite would walk the status index over every row instead); the
        task-synced ids come from the provenance's source index, so no row's provenance is visited by itself."""
        by_kind: dict[str, list[MemoryHead]] = {}
        for kind in kinds:
            if kind in verified_only and not self._task_synced(repos, kind):
                continue
            heads = [head for repo in repos or (None,) for head in self._heads_of(repo, kind)]
            if is_verified(kind, TASK_SYNC):  # asked after the rows: a mint writes a row and its provenance at once
                synced = self._task_synced(repos, kind)
                for head in heads:
                    head.verified = head.id in synced
            if kind in verified_only:
                heads = [head for head in heads if head.verified]
            if heads:
                by_kind[kind] = sorted(heads, key=attrgetter("id"))
        return by_kind

    def _heads_of(self, repo: str | None, kind: str) -> list[MemoryHead]:
        """The active memories of ``repo`` (None: every one) and ``kind`` as heads, not yet ``verified``. Built
        column by column: a handshake makes tens of thousands."""
        if repo is None:
            sql, values = f"SELECT {_HEAD_COLUMNS}, m.repo_id FROM memories m {_HEAD_KIND}", [ACTIVE, kind]
        else:
            sql, values = f"SELECT {_HEAD_COLUMNS} FROM memories m {_HEAD_KIND} AND m.repo_id = ?", [ACTIVE, kind, repo]
        rows = self.db.execute_sql(sql, values).fetchall()
        if not rows:
            return []
        ids, topics, tasks, created, accesses, *repo_column = zip(*rows, strict=True)
        repo_ids = repeat(repo) if repo is not None else [value or "" for value in repo_column[0]]
        times = utc_times(created, ids)
        return list(map(MemoryHead, ids, repo_ids, repeat(kind), topics, tasks, times, accesses, repeat(False)))

    def _task_synced(self, repos: Sequence[str] | None, kind: str) -> set[int]:
        """The ids of the active memories of ``repos`` (None: every one) and ``kind`` that a task sync minted."""
        where, values = "m.status = ? AND m.kind = ?", [ACTIVE, kind]
        if repos is not None:
            where += f" AND m.repo_id IN ({placeholders(len(repos))})"
            values += repos
        rows = self.db.execute_sql(
            "SELECT memory_id FROM memory_provenance WHERE source = ?"
            f" AND memory_id IN (SELECT m.id FROM memories m WHERE {where})",
            [TASK_SYNC, *values],
        ).fetchall()
        return {memory_id for (memory_id,) in rows}

    def statuses(self, ids: Sequence[int]) -> dict[int, str]:
        """Id → status of the given ids that exist."""
        model = self.model
        found: dict[int, str] = {}
        for chunk in id_chunks(ids):
            found.update(rows_of(model.select(model.id, model.status).where(model.id.in_(chunk))))
        return found

    def update(self, memory_id: int, **fields: Any) -> None:
        """Set ``fields`` (plain values) of one memory, each stored as its peewee field stores it (a new
        ``content`` gets its new text key). One statement of our own: building it with peewee took a third of
        the CPU of a Legion re-sync that edits every row (docs/speed.md)."""
        assignments, values = self._assignments(fields)
        self.db.execute_sql(f"UPDATE memories SET {assignments} WHERE id = ?", (*values, int(memory_id)))
        if "content" in fields:
            self.text_keys.rekey(memory_id, str(fields["content"]))

    def update_many(self, memory_ids: Sequence[int], **fields: Any) -> None:
        """Set the same ``fields`` (not ``content``) of every one of ``memory_ids``: one statement per 500 ids."""
        if "content" in fields:
            raise ValueError("a new content needs its own text key: use update")
        assignments, values = self._assignments(fields)
        for chunk in id_chunks(memory_ids):
            self.db.execute_sql(
                f"UPDATE memories SET {assignments} WHERE id IN ({placeholders(len(chunk))})", (*values, *chunk)
            )

    def _assignments(self, fields: dict[str, Any]) -> tuple[str, list[Any]]:
        columns = self.model._meta.fields
        assignments = ", ".join(f"{columns[name].column_name} = ?" for name in fields)
        return assignments, [columns[name].db_value(value) for name, value in fields.items()]

    def add_access(self, memory_ids: Sequence[int]) -> None:
        """Count one more access of each of ``memory_ids`` (distinct), in one statement per 500 ids."""
        for chunk in id_chunks(memory_ids):
            self.db.execute_sql(
                f"UPDATE memories SET access_count = access_count + 1 WHERE id IN ({placeholders(len(chunk))})", chunk
            )

    def filtered(self, status: str, repos: Iterable[str] | None, kind: str | None, text: str = "") -> Any:
        """A query over rows with ``status`` (or ``all``), in ``repos`` (None: every repo), of ``kind`` and
        (``text``) whose content or topic contains that text, ignoring case."""
        model = self.model
        query = model.select()
        if text:
            query = query.where(model.content.contains(text) | model.topic.contains(text))
        if status != "all":
            query = query.where(model.status == status)
        if repos is not None:
            query = query.where(model.repo_id.in_(sorted(repos)))
        if kind is not None:
            query = query.where(model.kind == kind)
        return query

    def orders(self) -> dict[str, tuple[Any, ...]]:
        """Sort keys of ``list`` by name."""
        model = self.model
        return {
            # by real time, so rows written by other tools ('T', 'Z', offsets) sort correctly
            "newest": (self.dialect.timestamp_order(model.created_at).desc(), model.id.desc()),
            "oldest": (self.dialect.timestamp_order(model.created_at).asc(), model.id.asc()),
            "id": (model.id.asc(),),
            "kind": (model.kind.asc(), model.id.desc()),
            "topic": (model.topic.asc(), model.id.desc()),
            "repo": (model.repo_id.asc(), model.id.desc()),
            "access": (model.access_count.desc(), model.id.desc()),
        }

    def page_ids(self, query: Any, order: tuple[Any, ...], limit: int | None, offset: int) -> list[int]:
        """The ids of one page of ``query`` in ``order``."""
        query = query.select(self.model.id).order_by(*order)
        if limit is not None:
            query = query.limit(limit)
        if offset:
            query = query.offset(offset)
        return [row[0] for row in rows_of(query)]

    def count_by(self, query: Any, *columns: str) -> list[tuple[Any, ...]]:
        """``(*columns, count)`` groups of ``query``."""
        fields = [getattr(self.model, column) for column in columns]
        return rows_of(query.select(*fields, peewee.fn.COUNT(self.model.id)).group_by(*fields))

    def repos(self) -> list[str]:
        """Every repo_id, sorted."""
        model = self.model
        return sorted({row[0] for row in rows_of(model.select(model.repo_id).distinct())})

    def superseded_by(self, memory_id: int) -> list[int]:
        """Ids of the memories ``memory_id`` superseded."""
        model = self.model
        query = model.select(model.id).where(model.superseded_by == memory_id).order_by(model.id)
        return [row[0] for row in rows_of(query)]

    def active_ids(self, repo_id: str, kind: str, topic: str, other_than: int) -> list[int]:
        """Active memories of one repo, kind and topic, except ``other_than``."""
        model = self.model
        query = model.select(model.id).where(
            (model.repo_id == repo_id)
            & (model.kind == kind)
            & (model.topic == topic)
            & (model.status == ACTIVE)
            & (model.id != other_than)
        )
        return [row[0] for row in rows_of(query)]
