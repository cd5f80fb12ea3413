"""Copying a whole store between databases (SQLite ↔ PostgreSQL), for ``mneme db copy``.

Every memory goes across with its side tables (audit, task access, provenance, Legion records, task-sync
ledger, pins, text keys) and the review decisions. Into an empty database ids are kept; with ``merge`` the
memories get new ids after the existing ones and every reference to them (``superseded_by``, side tables)
follows. A merge skips the memories the destination already holds (same text, repo, kind and creation time:
``identity``), so running it twice changes nothing. A decision's memory ids follow too, and so does its
proposal id (which hashes those ids with the texts), so a proposal rejected in the source stays rejected in
the copy. The copy is one write transaction on the destination, then checked: the destination must hold every
copied memory's content hash.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import peewee

from mneme_tui.config import DbTarget, parse_timestamp
from mneme_tui.errors import ERR_DATABASE, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.persistence.dialect import dialect_for, dialect_of
from mneme_tui.memory.persistence.schema import (
    AUDIT_COLUMNS,
    DECISION_COLUMNS,
    INSERT_COLUMNS,
    LEDGER_COLUMNS,
    LEGION_RECORD_COLUMNS,
    PIN_COLUMNS,
    PROVENANCE_COLUMNS,
    TASK_ACCESS_COLUMNS,
    TEXT_KEY_COLUMNS,
)
from mneme_tui.memory.persistence.sql_text import insert_sql

SIDE_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("memory_audit", AUDIT_COLUMNS),
    ("task_access", TASK_ACCESS_COLUMNS),
    ("memory_provenance", PROVENANCE_COLUMNS),
    ("legion_records", LEGION_RECORD_COLUMNS),
    ("task_sync_ledger", LEDGER_COLUMNS),
    ("memory_pins", PIN_COLUMNS),
    ("memory_text_keys", TEXT_KEY_COLUMNS),
)
"""Tables that point at ``memories.id`` through their ``memory_id`` column, copied in this order."""
TABLES = ("memories", *(name for name, _ in SIDE_TABLES), "curation_decisions")
ProposalIdOf = Callable[[str, tuple[int, ...], Sequence[str]], str]
"""A review proposal's id from its kind, its memories' ids and their texts (``curation.proposals.proposal_id``)."""


@dataclass(frozen=True)
class CopyResult:
    """What a copy moved: rows per table, and whether ids were kept."""

    counts: dict[str, int]
    kept_ids: bool
    skipped: int = 0
    """Source memories a merge found already in the destination (not copied again)."""
    new_ids: dict[int, int] = field(default_factory=dict)
    """Source id → destination id of every memory copied (a skipped one is not in it)."""


def table_counts(db: peewee.Database) -> dict[str, int]:
    """Rows per table of a store."""
    return {table: int(db.execute_sql(f"SELECT COUNT(*) FROM {table}").fetchone()[0]) for table in TABLES}


HASHED_COLUMNS = tuple(column for column in INSERT_COLUMNS if column != "superseded_by")
"""What a memory's content hash covers: everything but ids (its own and ``superseded_by``, which a merge renumbers)."""


def content_hashes(db: peewee.Database) -> Counter[str]:
    """One hash per memory over ``HASHED_COLUMNS`` (text, kind, topic, repo, task, embedding, time, status,
    access count), as a multiset: two stores hold the same memories when these are equal."""
    columns = ", ".join(HASHED_COLUMNS)
    hashes: Counter[str] = Counter()
    for row in db.execute_sql(f"SELECT {columns} FROM memories").fetchall():
        hashes[_row_hash(row)] += 1
    return hashes


def _same_database() -> MnemeError:
    return MnemeError(ERR_VALIDATION_FAILED, "the source and the destination are the same database: nothing copied")


def check_targets(source: DbTarget, destination: DbTarget) -> None:
    """Before either store is opened: ERR_DATABASE when the source is a database file that does not exist
    (nothing to copy, nothing created), ERR_VALIDATION_FAILED when both are files and the destination is the
    source by another path (a symlink, a relative path, a hard link): SQLite opening one file under two names
    keeps two write-ahead logs, which it cannot do safely."""
    source_file = dialect_for(source).database_file(source)
    if source_file is not None and not source_file.is_file():
        raise MnemeError(ERR_DATABASE, f"{source_file} is not a database file: nothing to copy")
    destination_file = dialect_for(destination).database_file(destination)
    if source_file is None or destination_file is None:
        return
    try:
        same = os.path.samefile(source_file, destination_file)
    except OSError:  # the destination does not exist yet (or cannot be looked at: opening it reports that)
        return
    if same:
        raise _same_database()


def copy_store(
    source: peewee.Database, destination: peewee.Database, *, merge: bool, proposal_id_of: ProposalIdOf
) -> CopyResult:
    """Copy every memory of ``source`` with its side tables into ``destination`` (module doc).

    A copy onto the source itself (the same file or PostgreSQL store by any path or URL) is refused
    (ERR_VALIDATION_FAILED), and so is a destination that already has memories unless ``merge``; a copy
    whose check fails is rolled back (ERR_DATABASE) and leaves the destination as it was.
    """
    if dialect_of(source).database_identity(source) == dialect_of(destination).database_identity(destination):
        raise _same_database()
    dialect = dialect_of(destination)
    before = table_counts(destination)
    if before["memories"] and not merge:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"the destination already has {before['memories']} memories: use --merge to add these to them",
        )
    keep_ids = before["memories"] == 0
    counts: dict[str, int] = {}
    with dialect.write_transaction(destination):
        everything = source.execute_sql(f"SELECT id, {', '.join(INSERT_COLUMNS)} FROM memories ORDER BY id").fetchall()
        held = {} if keep_ids else _identities(destination)
        already = {row[0]: held[_identity(row)] for row in everything if _identity(row) in held}
        memories = [row for row in everything if row[0] not in already]
        expected = content_hashes(destination) + Counter(_row_hash(_hashed(row)) for row in memories)
        rows = [_memory_values(row) for row in memories]
        if keep_ids:
            dialect.insert_many(destination, insert_sql("memories", ("id", *INSERT_COLUMNS)), rows)
            dialect.after_explicit_ids(destination, "memories")
            new_ids = {row[0]: row[0] for row in memories}
        else:
            ids = dialect.insert_returning_ids(destination, "memories", INSERT_COLUMNS, [row[1:] for row in rows])
            new_ids = {row[0]: new for row, new in zip(memories, ids, strict=True)}
            _follow_supersessions(destination, memories, {**already, **new_ids})
        counts["memories"] = len(memories)
        for table, columns in SIDE_TABLES:
            counts[table] = _copy_side_table(source, destination, table, columns, new_ids)
        texts = {row[0]: str(row[1 + INSERT_COLUMNS.index("content")]) for row in everything}
        counts["curation_decisions"] = _copy_decisions(
            source, destination, {**already, **new_ids}, texts, proposal_id_of
        )
        if content_hashes(destination) != expected:
            raise MnemeError(ERR_DATABASE, "the copy does not match the source's content hashes: nothing copied")
    after = table_counts(destination)
    short = [table for table in ("memories", "memory_audit") if after[table] != before[table] + counts[table]]
    if short:
        raise MnemeError(ERR_DATABASE, f"the copy's row counts do not add up in {', '.join(short)}")
    return CopyResult(counts, keep_ids, len(already), new_ids)


def _identity(row: Sequence[Any]) -> tuple[str, str, str, str]:
    """What makes a row (``id`` then ``INSERT_COLUMNS``) the same memory in another store: its text's hash, repo,
    kind and creation time (as UTC text)."""

    def column(name: str) -> Any:
        return row[1 + INSERT_COLUMNS.index(name)]

    created = column("created_at")
    created = created if hasattr(created, "isoformat") else parse_timestamp(str(created), source="created_at")
    text = hashlib.sha256(str(column("content")).encode("utf-8", "surrogatepass")).hexdigest()
    return text, str(column("repo_id") or ""), str(column("kind")), created.isoformat(sep=" ")


def _identities(db: peewee.Database) -> dict[tuple[str, str, str, str], int]:
    """Identity → id of every memory of ``db`` (the lowest id when two share one)."""
    found: dict[tuple[str, str, str, str], int] = {}
    for row in db.execute_sql(f"SELECT id, {', '.join(INSERT_COLUMNS)} FROM memories ORDER BY id DESC").fetchall():
        found[_identity(row)] = row[0]
    return found


def _hashed(row: Sequence[Any]) -> tuple:
    """A row's ``HASHED_COLUMNS`` values (``content_hashes`` hashes the same)."""
    return tuple(row[1 + INSERT_COLUMNS.index(name)] for name in HASHED_COLUMNS)


def _memory_values(row: Sequence[Any]) -> tuple:
    """A source row ready to insert: bytes for the embedding, text for the time (either backend reads it)."""
    values = list(row)
    embedding_at = 1 + INSERT_COLUMNS.index("embedding")
    if values[embedding_at] is not None:
        values[embedding_at] = bytes(values[embedding_at])
    created_at = 1 + INSERT_COLUMNS.index("created_at")
    values[created_at] = _text(values[created_at])
    return tuple(values)


def _follow_supersessions(db: peewee.Database, memories: Sequence[Sequence[Any]], new_ids: dict[int, int]) -> None:
    """Point the merged memories' ``superseded_by`` at the new ids of the memories that superseded them."""
    superseded_at = 1 + INSERT_COLUMNS.index("superseded_by")
    for row in memories:
        old = row[superseded_at] or 0
        if old and old in new_ids:
            db.execute_sql("UPDATE memories SET superseded_by = ? WHERE id = ?", (new_ids[old], new_ids[row[0]]))


def _copy_side_table(
    source: peewee.Database, destination: peewee.Database, table: str, columns: Sequence[str], new_ids: dict[int, int]
) -> int:
    dialect = dialect_of(destination)
    at = columns.index("memory_id")
    rows = []
    for row in source.execute_sql(f"SELECT {', '.join(columns)} FROM {table}").fetchall():
        values = [_text(value) if hasattr(value, "isoformat") else value for value in row]
        if values[at] in new_ids:
            values[at] = new_ids[values[at]]
            rows.append(tuple(values))
    dialect.insert_many(destination, dialect.insert_ignore_sql(table, columns), rows)
    return len(rows)


def _copy_decisions(
    source: peewee.Database,
    destination: peewee.Database,
    ids: dict[int, int],
    texts: dict[int, str],
    proposal_id_of: ProposalIdOf,
) -> int:
    """Copy the review decisions on memories the destination now holds (``ids``: source id → its id there), the
    ids in them renumbered; a proposal id still matching its memories' texts is recomputed for the new ids (one
    that no longer matches decided a proposal that can no longer come up, and keeps its id). A decision the
    destination already has on a proposal is kept."""
    rows = []
    for row in source.execute_sql(f"SELECT {', '.join(DECISION_COLUMNS)} FROM curation_decisions").fetchall():
        proposal, kind, decision, memory_ids, changes, reason, decided_at, actor = row
        old = tuple(int(i) for i in json.loads(memory_ids))
        if not all(i in ids for i in old):
            continue
        new = tuple(ids[i] for i in old)
        if new != old and proposal_id_of(kind, old, [texts[i] for i in old]) == proposal:
            proposal = proposal_id_of(kind, new, [texts[i] for i in old])
        moved = [[ids.get(int(i), int(i)), status] for i, status in json.loads(changes or "[]")]
        rows.append(
            (proposal, kind, decision, json.dumps(list(new)), json.dumps(moved), reason, _text(decided_at), actor)
        )
    dialect = dialect_of(destination)
    before = table_counts(destination)["curation_decisions"]
    dialect.insert_many(destination, dialect.insert_ignore_sql("curation_decisions", DECISION_COLUMNS), rows)
    return table_counts(destination)["curation_decisions"] - before


def _text(value: Any) -> Any:
    """A timestamp as the store writes it (``YYYY-MM-DD HH:MM:SS[.ffffff]``); text stays as it is."""
    return value.isoformat(sep=" ") if hasattr(value, "isoformat") else value


def _row_hash(row: Sequence[Any]) -> str:
    digest = hashlib.sha256()
    for column, value in zip(HASHED_COLUMNS, row, strict=True):
        if isinstance(value, memoryview):
            value = bytes(value)
        if hasattr(value, "isoformat"):
            value = value.isoformat(sep=" ")
        elif isinstance(value, str) and column == "created_at":
            value = parse_timestamp(value, source="created_at").isoformat(sep=" ")
        digest.update(repr(value).encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest.hexdigest()
