"""What curation reads and writes (schema 6): pins, review decisions, and the memory rows and last reads the
proposals engine (``memory/curation``) works on. Writes run inside the caller's write transaction."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

import peewee

from mneme_tui.memory.kinds import ACTIVE
from mneme_tui.memory.persistence.dialect import dialect_of
from mneme_tui.memory.persistence.schema import DECISION_COLUMNS, PIN_COLUMNS

CURATION_COLUMNS = ("id", "repo_id", "kind", "topic", "content", "created_at", "status", "access_count")
"""The columns of a memory the proposals engine needs (``CurationRow``)."""
_SELECT = f"SELECT {', '.join(CURATION_COLUMNS)} FROM memories"
BATCH = 25_000


def curation_rows(db: peewee.Database, after_id: int = 0, after_seq: int = 0) -> Iterator[list[tuple]]:
    """Rows in ``CURATION_COLUMNS`` order, a batch at a time: every row (``after_id`` 0), or those above
    ``after_id`` plus those the update trigger logged after revision ``after_seq``."""
    if after_id == 0:
        cursor = db.execute_sql(_SELECT + " ORDER BY id")
    else:
        cursor = db.execute_sql(
            _SELECT
            + " WHERE id > ? UNION "
            + _SELECT
            + " WHERE id IN (SELECT memory_id FROM memory_revision WHERE seq > ?) ORDER BY id",
            (after_id, after_seq),
        )
    while rows := cursor.fetchmany(BATCH):
        yield rows


def last_reads(db: peewee.Database) -> dict[int, str]:
    """Memory id → when a task last read it (``task_access``; stored text), for memories some task read."""
    return {
        int(memory_id): str(at)
        for memory_id, at in db.execute_sql("SELECT memory_id, MAX(at) FROM task_access GROUP BY memory_id").fetchall()
    }


def recent_texts_holding(
    db: peewee.Database, repo_id: str, kind: str, words: Sequence[str], window: int, limit: int
) -> list[tuple[int, str]]:
    """(id, content) of the newest ``window`` active memories of one repo and kind that contain every one of
    ``words`` (ignoring ASCII case), newest first, at most ``limit``: the few a new text can nearly duplicate.
    The window's oldest id is found in the (repo, kind, status) index alone, and the texts are read newest first
    from it, so the cost does not grow with the repository."""
    like = dialect_of(db).LIKE_IGNORING_CASE
    words = [word for word in words if word]
    where = " AND ".join(f"content {like} ?" for _ in words) or "1 = 1"
    scope = "repo_id = ? AND kind = ? AND status = ?"
    return [
        (int(i), str(c))
        for i, c in db.execute_sql(
            f"SELECT id, content FROM memories WHERE {scope} AND id >= COALESCE((SELECT id FROM memories "
            f"WHERE {scope} ORDER BY id DESC LIMIT 1 OFFSET ?), 0) AND {where} ORDER BY id DESC LIMIT ?",
            (repo_id, kind, ACTIVE, repo_id, kind, ACTIVE, int(window) - 1, *(f"%{w}%" for w in words), int(limit)),
        ).fetchall()
    ]


class PinTable:
    """``memory_pins``: memories a person pinned."""

    def __init__(self, db: peewee.Database) -> None:
        self.db = db
        self._insert = dialect_of(db).insert_ignore_sql("memory_pins", PIN_COLUMNS)

    def pin(self, memory_id: int, at: datetime, actor: str) -> bool:
        """Pin one memory; False when it already was."""
        cursor = self.db.execute_sql(self._insert, (int(memory_id), at.isoformat(sep=" "), actor))
        return cursor.rowcount > 0

    def unpin(self, memory_id: int) -> bool:
        """Unpin one memory; False when it was not pinned."""
        return self.db.execute_sql("DELETE FROM memory_pins WHERE memory_id = ?", (int(memory_id),)).rowcount > 0

    def ids(self) -> set[int]:
        """Every pinned memory's id."""
        return {int(row[0]) for row in self.db.execute_sql("SELECT memory_id FROM memory_pins").fetchall()}


@dataclass(frozen=True)
class DecisionRow:
    """One review decision as stored: ``changes`` are the (memory id, previous status) pairs an accept made."""

    proposal_id: str
    kind: str
    decision: str
    memory_ids: tuple[int, ...]
    changes: tuple[tuple[int, str], ...]
    reason: str
    decided_at: str
    actor: str


class DecisionLog:
    """``curation_decisions``: the last decision on each proposal."""

    def __init__(self, db: peewee.Database) -> None:
        self.db = db
        self._upsert = dialect_of(db).insert_or_replace_sql("curation_decisions", DECISION_COLUMNS, "proposal_id")

    def record(self, row: DecisionRow) -> None:
        """Store (or replace) the decision on ``row.proposal_id``."""
        self.db.execute_sql(
            self._upsert,
            (
                row.proposal_id,
                row.kind,
                row.decision,
                json.dumps(list(row.memory_ids)),
                json.dumps([list(change) for change in row.changes]),
                row.reason,
                row.decided_at,
                row.actor,
            ),
        )

    def get(self, proposal_id: str) -> DecisionRow | None:
        """The decision on one proposal, or None."""
        found = self.db.execute_sql(
            f"SELECT {', '.join(DECISION_COLUMNS)} FROM curation_decisions WHERE proposal_id = ?", (proposal_id,)
        ).fetchone()
        if found is None:
            return None
        pid, kind, decision, ids, changes, reason, at, actor = found
        return DecisionRow(
            pid,
            kind,
            decision,
            tuple(json.loads(ids)),
            tuple((int(i), str(s)) for i, s in json.loads(changes or "[]")),
            reason,
            str(at),
            actor,
        )

    def rejected(self) -> set[str]:
        """The ids of the proposals whose last decision is a rejection."""
        return {
            str(row[0])
            for row in self.db.execute_sql(
                "SELECT proposal_id FROM curation_decisions WHERE decision = 'reject'"
            ).fetchall()
        }
