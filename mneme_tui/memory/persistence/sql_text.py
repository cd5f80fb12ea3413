"""SQL text every dialect accepts as it is: ``?`` placeholders, plain inserts, id lists short enough for one
statement. (``postgres_dialect`` adapts ``?`` to its driver's ``%s`` in one place.)"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

MAX_PARAMETERS = 500
"""Ids per ``IN (...)`` list: well under every backend's limit on bound parameters."""


def placeholders(count: int) -> str:
    """``?, ?, ?`` for ``count`` parameters."""
    return ", ".join("?" * count)


def insert_sql(table: str, columns: Sequence[str]) -> str:
    """A plain insert of ``columns``."""
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders(len(columns))})"


def upsert_sql(table: str, columns: Sequence[str], key: str) -> str:
    """An insert that sets the other columns of the row whose primary key ``key`` is already there
    (``ON CONFLICT ... DO UPDATE``: PostgreSQL, and SQLite from 3.24)."""
    updates = ", ".join(f"{column} = EXCLUDED.{column}" for column in columns if column != key)
    return f"{insert_sql(table, columns)} ON CONFLICT ({key}) DO UPDATE SET {updates}"


def id_chunks(ids: Sequence[int]) -> Iterator[list[int]]:
    """``ids`` (as ints) in runs of at most ``MAX_PARAMETERS``, for one query's parameters each."""
    for start in range(0, len(ids), MAX_PARAMETERS):
        yield [int(memory_id) for memory_id in ids[start : start + MAX_PARAMETERS]]
