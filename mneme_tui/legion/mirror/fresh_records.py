"""The records nothing pairs with become new memories (the bulk of a first sync), a batch at a time.

A batch's memories (text, secret screen, vectors) and companion rows are made (reading no database), then
inserted; when the write slices are due a pause, the batch is made in it, with the lock released, instead of
a sleep.
The texts, vectors and rows of one batch are alive at a time, so a 50 MB file syncs in bounded memory.
(Made by a second thread while the batch before is inserted, they took longer: each row an insert writes hands
Python's global lock back and forth.)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from mneme_tui.legion.mirror import record_mapping as mt
from mneme_tui.legion.mirror.record_mapping import created_at, memory_content, memory_kind, memory_task_id, memory_topic
from mneme_tui.legion.mirror.sync_pairing import Incoming
from mneme_tui.legion.mirror.sync_report import SyncReport
from mneme_tui.legion.mirror.write_slices import WriteSlices
from mneme_tui.memory import kinds as K
from mneme_tui.memory import secrets
from mneme_tui.memory.mint_rows import PreparedMint
from mneme_tui.memory.store import Store


@dataclass(slots=True)
class _Batch:
    items: list[Incoming]
    memories: PreparedMint
    rows: list[tuple]
    """Each item's companion row without its first column (the memory id, known once inserted)."""


def mint_fresh(
    slices: WriteSlices,
    project: str,
    fresh: list[Incoming],
    report: SyncReport,
    now: str,
    counts: dict[str, defaultdict[str, int]],
    batch_rows: int,
) -> None:
    """A new memory and companion row for each of ``fresh``, ``batch_rows`` at a time (module doc)."""
    for start in range(0, len(fresh), batch_rows):
        with slices.pause():
            batch = _made(slices.store, project, fresh[start : start + batch_rows], report, now)
        minted = slices.store.insert_prepared(batch.memories)
        for item, memory_id in zip(batch.items, minted, strict=True):
            item.memory_id = memory_id
            item.counted = "added"
            counts["added"][item.file] += 1
        mt.insert_rows(slices.store.db, [(memory_id, *row) for memory_id, row in zip(minted, batch.rows)])


def _made(store: Store, project: str, items: list[Incoming], report: SyncReport, now: str) -> _Batch:
    """The memories of ``items``' records, validated, screened (their texts as one batch first) and embedded,
    and their companion rows."""
    memories = [
        dict(
            content=memory_content(i.record, report.warnings),
            kind=memory_kind(i.record),
            topic=memory_topic(i.record, report.warnings),
            repo_id=project,
            task_id=memory_task_id(i.record, report.warnings),
            created_at=created_at(i.record),
            provenance=mt.provenance(i.file, i.identity),
            secrets_policy=secrets.REDACT,
        )
        for i in items
    ]
    secrets.prescreen(str(memory[name]) for memory in memories for name in ("content", "topic"))
    rows = [new_row(item, project, 0, mt.FILE_ORIGIN, (K.ACTIVE, 0), now)[1:] for item in items]
    return _Batch(items, store.prepare_mint(memories), rows)


def new_row(item: Incoming, project: str, memory_id: int, origin: str, status: tuple[str, int], now: str) -> tuple:
    """A ``legion_records`` row for ``item`` (columns in ``mt.insert_rows`` order)."""
    columns, hash_ = item.columns_and_hash()
    return (
        memory_id,
        project,
        item.family,
        item.file,
        item.record.kind,
        item.identity,
        item.occurrence,
        item.record.id,
        hash_,
        columns,
        int(item.archived),
        origin,
        mt.LINKED,
        status[0],
        status[1],
        now,
    )
