"""``memory_text_keys`` (schema 8): per memory, its repo, kind and the hash of its normalised text, so the
no-new-duplicates check is one indexed look-up. The hash itself is computed above this layer
(``curation/same_text.text_key``) and handed in as ``key_of``; writes run inside the caller's transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import peewee

from mneme_tui.memory.kinds import ACTIVE
from mneme_tui.memory.persistence.dialect import dialect_of
from mneme_tui.memory.persistence.schema import TEXT_KEY_COLUMNS

KeyOf = Callable[[str], int]
"""A text → its signed 64-bit key (equal for texts equal after normalising)."""
BACKFILL_BATCH = 10_000
"""Rows the backfill keys per write transaction (about 0.2 s of CPU each at 1M, ``docs/speed.md``)."""
BACKFILL_PAUSE_S = 0.1
"""The backfill's pause between batches: longer than SQLite's longest busy-handler sleep (100 ms), so a writer
waiting for the lock gets it before the next batch does."""
PROGRESS = "text_keys_after"
"""The ``mneme_meta`` key holding the backfill's last keyed id (absent: every row is keyed)."""


class TextKeys:
    """The rows of ``memory_text_keys`` of one database."""

    def __init__(self, db: peewee.Database, key_of: KeyOf) -> None:
        self.db = db
        self.key_of = key_of
        dialect = dialect_of(db)
        self._upsert = dialect.insert_or_replace_sql("memory_text_keys", TEXT_KEY_COLUMNS, "memory_id")
        self._insert_ignore = dialect.insert_ignore_sql("memory_text_keys", TEXT_KEY_COLUMNS)

    def add(self, rows: Sequence[tuple[int, str | None, str, str]]) -> None:
        """Key new or rewritten memories: ``(memory_id, repo_id, kind, content)`` each."""
        keyed = [(memory_id, repo or "", kind, self.key_of(content)) for memory_id, repo, kind, content in rows]
        dialect_of(self.db).insert_many(self.db, self._upsert, keyed)

    def rekey(self, memory_id: int, content: str) -> None:
        """A memory's text changed: its new key (repo and kind stay)."""
        self.db.execute_sql(
            "UPDATE memory_text_keys SET text_key = ? WHERE memory_id = ?", (self.key_of(content), int(memory_id))
        )

    def forget(self, memory_id: int) -> None:
        """Remove a memory's key (a purge: nothing derived from the text stays)."""
        self.db.execute_sql("DELETE FROM memory_text_keys WHERE memory_id = ?", (int(memory_id),))

    def active_with_key(self, repo_id: str, kind: str, content: str, limit: int) -> list[tuple[int, str]]:
        """(id, content) of the active memories of ``repo_id`` and ``kind`` whose text has ``content``'s key,
        newest first, at most ``limit``."""
        return [
            (int(i), str(c))
            for i, c in self.db.execute_sql(
                # CROSS JOIN: SQLite reads the keys first (not every active memory by the status index)
                "SELECT m.id, m.content FROM memory_text_keys k CROSS JOIN memories m WHERE m.id = k.memory_id "
                "AND k.repo_id = ? AND k.kind = ? AND k.text_key = ? AND m.status = ? ORDER BY m.id DESC LIMIT ?",
                (repo_id or "", kind, self.key_of(content), ACTIVE, int(limit)),
            ).fetchall()
        ]

    def backfill_pending(self) -> bool:
        """True while rows written before schema 8 are still to be keyed."""
        return self._progress() is not None

    def backfill_batch(self, batch: int = BACKFILL_BATCH) -> bool:
        """Key the next ``batch`` rows after the recorded progress, inside the caller's write transaction (which
        re-reads the progress under the lock); True while rows may remain (the last batch deletes the progress)."""
        after = self._progress()
        if after is None:
            return False
        rows = self.db.execute_sql(
            "SELECT id, repo_id, kind, content FROM memories WHERE id > ? ORDER BY id LIMIT ?", (after, int(batch))
        ).fetchall()
        keyed = [(int(i), repo or "", kind, self.key_of(content)) for i, repo, kind, content in rows]
        dialect_of(self.db).insert_many(self.db, self._insert_ignore, keyed)  # a row keyed since stays
        if len(keyed) < batch:
            self.db.execute_sql("DELETE FROM mneme_meta WHERE key = ?", (PROGRESS,))
            return False
        self.db.execute_sql("UPDATE mneme_meta SET value = ? WHERE key = ?", (str(keyed[-1][0]), PROGRESS))
        return True

    def _progress(self) -> int | None:
        found = self.db.execute_sql("SELECT value FROM mneme_meta WHERE key = ?", (PROGRESS,)).fetchone()
        return None if found is None else int(found[0])
