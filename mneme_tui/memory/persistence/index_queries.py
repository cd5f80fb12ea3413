"""The SQL the in-memory index reads ``memories`` with (the dialects' bulk loads run these)."""

from __future__ import annotations

import peewee

from mneme_tui.memory.persistence.schema import INDEX_COLUMNS
from mneme_tui.memory.vectors import BLOB_BYTES

REVISION = "(SELECT COALESCE(MAX(id), 0) FROM memories), (SELECT COALESCE(MAX(seq), 0) FROM memory_revision)"
"""The database's revision as two columns: the highest memory id and the highest update seq (any write by any
process changes one of them); the index reflects ``MAX(id) + seq``."""
SELECT_INDEX = f"SELECT {', '.join(INDEX_COLUMNS)} FROM memories"
"""Every column the index loads, embeddings included."""
SELECT_INDEX_TEXT = "SELECT " + ", ".join("NULL" if c == "embedding" else c for c in INDEX_COLUMNS) + " FROM memories"
"""The same columns with the embedding left out (NULL), for a load that reads the embeddings another way."""
SELECT_EMBEDDINGS = (
    f"SELECT id, CASE WHEN octet_length(embedding) = {BLOB_BYTES} THEN embedding "
    f"ELSE decode(repeat('00', {BLOB_BYTES}), 'hex') END FROM memories ORDER BY id"
)
"""Every embedding as exactly 256 bytes (a NULL or odd one as zeros, as the index reads them), so a binary
COPY of it decodes as one fixed-size numpy array."""


def index_rows(db: peewee.Database, after_id: int | None = None, after_seq: int = 0) -> list[tuple]:
    """Rows in ``INDEX_COLUMNS`` order, by id: all of them, or (with ``after_id``) those above
    ``after_id`` plus those the update trigger logged after revision ``after_seq``."""
    if after_id is None:
        return db.execute_sql(SELECT_INDEX + " ORDER BY id").fetchall()
    return db.execute_sql(  # a UNION, not an OR: each half uses an index instead of scanning every row
        SELECT_INDEX
        + " WHERE id > ? UNION "
        + SELECT_INDEX
        + " WHERE id IN (SELECT memory_id FROM memory_revision WHERE seq > ?) ORDER BY id",
        (after_id, after_seq),
    ).fetchall()
