"""One small repository per side table: audit, task access, revision/identity, Legion records, the
task-sync ledger and provenance. Each takes the open database; writes run inside the caller's write transaction."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

import peewee

from mneme_tui.memory.persistence.dialect import dialect_of
from mneme_tui.memory.persistence.index_queries import REVISION
from mneme_tui.memory.persistence.memories import rows_of
from mneme_tui.memory.persistence.schema import (
    LEDGER_COLUMNS,
    LEGION_RECORD_COLUMNS,
    PROVENANCE_COLUMNS,
    TASK_ACCESS_COLUMNS,
    Tables,
)
from mneme_tui.memory.persistence.sql_text import id_chunks, insert_sql, placeholders

AUDIT_ROWS_PER_INSERT = 80
"""Audit rows per multi-row insert: 480 parameters, well under every backend's limit."""


class AuditLog:
    """``memory_audit``: every status change of a memory, and who made it."""

    def __init__(self, tables: Tables) -> None:
        self.model = tables.audit

    def add(self, memory_id: int, from_status: str, to_status: str, at: datetime, reason: str, actor: str) -> None:
        """Record one status change made by ``actor``."""
        self.add_many([(memory_id, from_status)], to_status, at, reason, actor)

    def add_many(
        self, changes: Sequence[tuple[int, str]], to_status: str, at: datetime, reason: str, actor: str
    ) -> None:
        """Record the changes (memory_id, from_status) to ``to_status`` made at once by ``actor``, in order, in
        one statement per 80 of them (six parameters each)."""
        fields = ("memory_id", "from_status", "to_status", "at", "reason", "actor")
        rows = [(memory_id, previous, to_status, at, reason, actor) for memory_id, previous in changes]
        for chunk in peewee.chunked(rows, AUDIT_ROWS_PER_INSERT):
            self.model.insert_many(chunk, fields=fields).execute()

    def for_memory(self, memory_id: int) -> list[tuple[int, str, str, datetime, str, str]]:
        """(memory_id, from, to, at, reason, actor) of one memory, oldest first (actor '' before schema 5)."""
        model = self.model
        query = model.select().where(model.memory_id == memory_id).order_by(model.id)
        return [(row.memory_id, row.from_status, row.to_status, row.at, row.reason, row.actor) for row in query]

    def for_memories(self, memory_ids: Sequence[int]) -> dict[int, list[tuple[int, str, str, datetime, str, str]]]:
        """Memory id → its entries as ``for_memory`` gives them (ids without any are absent)."""
        model = self.model
        found: dict[int, list[tuple[int, str, str, datetime, str, str]]] = defaultdict(list)
        for chunk in id_chunks(memory_ids):
            query = (
                model.select(model.memory_id, model.from_status, model.to_status, model.at, model.reason, model.actor)
                .where(model.memory_id.in_(chunk))
                .order_by(model.id)
            )
            for row in rows_of(query):
                found[row[0]].append(row)
        return dict(found)


class TaskAccessLog:
    """``task_access``: the (task, memory) pairs that already reinforced a memory."""

    def __init__(self, db: peewee.Database, tables: Tables) -> None:
        self.db = db
        self.model = tables.task_access
        self._insert = dialect_of(db).insert_ignore_sql("task_access", TASK_ACCESS_COLUMNS)

    def add_once(self, task_id: str, memory_id: int, at: datetime) -> bool:
        """Record the pair; False when it was already there (two processes of one task at once: one wins)."""
        return self.db.execute_sql(self._insert, (task_id, int(memory_id), at.isoformat(sep=" "))).rowcount > 0

    def add_new(self, task_id: str, memory_ids: Sequence[int], at: datetime) -> list[int]:
        """Record each pair of ``task_id`` and one of ``memory_ids`` (distinct) that is not there yet; the ids
        recorded, in the order given. Three statements for any number of ids (a round trip each on a server).
        Run it in a write transaction: it holds the write lock, so two processes of one task cannot both record
        a pair."""
        present: set[int] = set()
        for chunk in id_chunks(memory_ids):
            query = self.model.select(self.model.memory_id).where(
                (self.model.task_id == task_id) & self.model.memory_id.in_(chunk)
            )
            present.update(row[0] for row in rows_of(query))
        new = [memory_id for memory_id in memory_ids if memory_id not in present]
        stamp = at.isoformat(sep=" ")
        dialect_of(self.db).insert_many(self.db, self._insert, [(task_id, memory_id, stamp) for memory_id in new])
        return new

    def tasks_for(self, memory_ids: Sequence[int]) -> dict[int, list[str]]:
        """Memory id → the tasks that reinforced it, oldest first (ids without any are absent)."""
        return {memory_id: [task for task, _at in pairs] for memory_id, pairs in self.accesses_for(memory_ids).items()}

    def accesses_for(self, memory_ids: Sequence[int]) -> dict[int, list[tuple[str, datetime]]]:
        """Memory id → (task, when) of each task that reinforced it, oldest first (ids without any are absent)."""
        model = self.model
        found: dict[int, list[tuple[str, datetime]]] = defaultdict(list)
        for chunk in id_chunks(memory_ids):
            query = (
                model.select(model.memory_id, model.task_id, model.at)
                .where(model.memory_id.in_(chunk))
                .order_by(model.at)
            )
            for memory_id, task_id, at in rows_of(query):
                found[memory_id].append((task_id, at))
        return dict(found)


def database_revision(db: peewee.Database) -> tuple[int, int]:
    """(highest memory id, highest update seq): together they change whenever any process writes."""
    max_id, update_seq = db.execute_sql(f"SELECT {REVISION}").fetchone()
    return int(max_id), int(update_seq)


def database_uuid(db: peewee.Database) -> str:
    """The database's identity (``mneme_meta.db_uuid``), '' when missing."""
    row = db.execute_sql("SELECT value FROM mneme_meta WHERE key = 'db_uuid'").fetchone()
    return row[0] if row else ""


class LegionRecords:
    """``legion_records``: which Legion record each mirrored memory came from (rows as plain tuples in
    ``LEGION_RECORD_COLUMNS`` order; ``legion/mirror/record_mapping.py`` gives them meaning)."""

    def __init__(self, db: peewee.Database) -> None:
        self.db = db
        self._insert = dialect_of(db).insert_or_replace_sql("legion_records", LEGION_RECORD_COLUMNS, "memory_id")

    def for_project(self, project: str) -> list[tuple]:
        """Every row of ``project`` (``columns`` left empty) followed by its memory's kind, status and
        superseded_by (None, None, 0 when the memory is gone)."""
        return list(self.each_for_project(project))

    def each_for_project(self, project: str) -> Iterator[tuple]:
        """``for_project`` one row at a time, as the cursor reads them (a large project is never all in memory
        as tuples)."""
        selected = ", ".join("''" if c == "columns" else "l." + c for c in LEGION_RECORD_COLUMNS)
        yield from self.db.execute_sql(
            f"SELECT {selected}, m.kind, m.status, COALESCE(m.superseded_by, 0) "
            "FROM legion_records l LEFT JOIN memories m ON m.id = l.memory_id WHERE l.project = ?",
            (project,),
        )

    def for_memory(self, memory_id: int) -> tuple | None:
        """The row of one memory, or None."""
        return self.db.execute_sql(
            f"SELECT {', '.join(LEGION_RECORD_COLUMNS)} FROM legion_records WHERE memory_id = ?", (int(memory_id),)
        ).fetchone()

    def forget_text(self, memory_id: int, marker: str) -> None:
        """Empty a purged memory's copy of its record's columns, and replace an ID-less record's identity (a
        ``~`` fingerprint of its text) with ``marker``. A row with an ID still pairs with its file row, so an
        unchanged row is not imported again; an ID-less one is imported anew (redacted) by the next sync."""
        self.db.execute_sql(
            "UPDATE legion_records SET columns = '{}', "
            "identity = CASE WHEN identity LIKE '~%' THEN ? ELSE identity END WHERE memory_id = ?",
            (f"{marker}:{int(memory_id)}", int(memory_id)),
        )

    def insert(self, rows: Sequence[tuple]) -> None:
        """Insert (or replace) rows given as plain tuples in column order (``archived`` as 0 / 1)."""
        if rows:
            dialect_of(self.db).insert_many(self.db, self._insert, rows)

    def update(self, memory_id: int, fields: dict[str, Any]) -> None:
        """Set columns of one row (column names come from the caller's code, never from input)."""
        if not fields:
            return
        unknown = set(fields) - set(LEGION_RECORD_COLUMNS)
        if unknown:
            raise ValueError(f"unknown legion_records columns: {sorted(unknown)}")
        assignments = ", ".join(f"{name} = ?" for name in fields)
        self.db.execute_sql(
            f"UPDATE legion_records SET {assignments} WHERE memory_id = ?", (*fields.values(), int(memory_id))
        )

    def move(self, old_memory_id: int, new_memory_id: int) -> None:
        """Point a row at another memory."""
        self.db.execute_sql(
            "UPDATE legion_records SET memory_id = ? WHERE memory_id = ?", (int(new_memory_id), int(old_memory_id))
        )

    def delete(self, memory_ids: Sequence[int]) -> None:
        """Drop the rows of these memories (bookkeeping only; memories are never deleted)."""
        for chunk in id_chunks(memory_ids):
            self.db.execute_sql(f"DELETE FROM legion_records WHERE memory_id IN ({placeholders(len(chunk))})", chunk)


_PROVENANCE_INSERT = insert_sql("memory_provenance", PROVENANCE_COLUMNS)


class ProvenanceLog:
    """``memory_provenance``: where each memory came from and who minted it (written with the mint, never
    changed)."""

    def __init__(self, db: peewee.Database) -> None:
        self.db = db

    def add(self, rows: Sequence[tuple[int, str, str, str]]) -> None:
        """Record (memory_id, source, detail, actor) rows inside the caller's write transaction."""
        if rows:
            dialect_of(self.db).insert_many(self.db, _PROVENANCE_INSERT, rows)

    def forget_detail(self, memory_id: int) -> None:
        """Empty the detail of a purged memory (a Legion import's detail holds its record's identity, which
        can be its text); the one change this table sees."""
        self.db.execute_sql("UPDATE memory_provenance SET detail = '' WHERE memory_id = ?", (int(memory_id),))

    def set_actor(self, memory_id: int, actor: str) -> None:
        """Record ``actor`` as who minted the memory (an import keeps the original minter)."""
        self.db.execute_sql("UPDATE memory_provenance SET actor = ? WHERE memory_id = ?", (actor, int(memory_id)))

    def actors_of(self, memory_ids: Sequence[int]) -> dict[int, str]:
        """Memory id → who minted it (ids with no provenance row are absent)."""
        found: dict[int, str] = {}
        for chunk in id_chunks(memory_ids):
            marks = placeholders(len(chunk))
            cursor = self.db.execute_sql(
                f"SELECT memory_id, actor FROM memory_provenance WHERE memory_id IN ({marks})", chunk
            )
            found.update(cursor.fetchall())
        return found

    def actor_of(self, memory_id: int) -> str:
        """Who minted the memory ('' when nothing recorded it: rows older than schema 5)."""
        row = self.db.execute_sql(
            "SELECT actor FROM memory_provenance WHERE memory_id = ?", (int(memory_id),)
        ).fetchone()
        return row[0] if row else ""


_LEDGER_INSERT = insert_sql("task_sync_ledger", LEDGER_COLUMNS)


class TaskSyncLedger:
    """``task_sync_ledger``: the learnings each verified task sync wrote."""

    def __init__(self, db: peewee.Database) -> None:
        self.db = db

    def entries(self, repo_id: str, task_id: str) -> dict[tuple[str, str, str], int]:
        """(learning, gate, path) → memory id of what a task already synced."""
        cursor = self.db.execute_sql(
            "SELECT learning, gate, path, memory_id FROM task_sync_ledger WHERE repo_id = ? AND task_id = ?",
            (repo_id, task_id),
        )
        return {(learning, gate, path): memory_id for learning, gate, path, memory_id in cursor.fetchall()}

    def add(self, rows: Sequence[tuple]) -> None:
        """Record learnings, each a tuple in ``LEDGER_COLUMNS`` order."""
        if rows:
            dialect_of(self.db).insert_many(self.db, _LEDGER_INSERT, rows)
