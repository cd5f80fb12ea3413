"""Reading a store's memories out as ``ExportedMemory`` records, and writing records into a store: all or
nothing, new ids, links and history following, and a memory the store already holds skipped (so importing
one file twice adds nothing)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.exchange.export_lines import ExportedMemory, memory_key
from mneme_tui.memory.records import AuditEntry

if TYPE_CHECKING:
    from mneme_tui.memory.store import Store


def exported_memories(store: Store, *, repo_id: str | None, status: str) -> list[ExportedMemory]:
    """The memories of ``repo_id`` (None: every repo) with ``status`` (or ``all``), oldest id first."""
    memories = store.list(status=status, repo_id=repo_id, limit=None, order="id")
    ids = [memory.id for memory in memories]
    with store.sqlite_errors():
        accesses = store.task_access.accesses_for(ids)
        histories = store.audit_log.for_memories(ids)
        actors = store.provenance_log.actors_of(ids)
    return [
        ExportedMemory(
            memory,
            actors.get(memory.id, ""),
            tuple(AuditEntry(*entry) for entry in histories.get(memory.id, ())),
            tuple(accesses.get(memory.id, ())),
        )
        for memory in memories
    ]


@dataclass(frozen=True)
class ImportResult:
    """What an import did: records read, memories added, records skipped as already present, history entries
    added, and each file id's id in the store."""

    records: int
    imported: int
    skipped: int
    history: int
    ids: dict[int, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "imported": self.imported,
            "skipped": self.skipped,
            "history": self.history,
            "ids": {str(old): new for old, new in self.ids.items()},
        }


def import_memories(store: Store, records: Sequence[ExportedMemory], source: str) -> ImportResult:
    """Add ``records`` (read from ``source``) to ``store`` in one write transaction, through the same checks
    as every mint (content, kind, status, provenance: a failure names the line and imports nothing); a record
    whose memory the store already holds is skipped and its id maps to the existing one. ``superseded_by``
    links follow the new ids (a link to a memory in neither is dropped)."""
    present = {memory_key(memory): memory.id for memory in store.list(status="all", limit=None, order="id")}
    ids: dict[int, int] = {}
    first: dict[tuple[str, ...], int] = {}  # a memory repeated in the file is imported once
    new: list[ExportedMemory] = []
    for record in records:
        if record.key in present:
            ids[record.memory.id] = present[record.key]
        elif record.key not in first:
            first[record.key] = record.memory.id
            new.append(record)
    with store.write_transaction():
        minted = _mint(store, new, source)
        ids.update((record.memory.id, new_id) for record, new_id in zip(new, minted))
        ids.update((record.memory.id, ids[first[record.key]]) for record in records if record.memory.id not in ids)
        history = sum(_add_side_rows(store, record, ids) for record in new)
    return ImportResult(len(records), len(new), len(records) - len(new), history, ids)


def _mint(store: Store, records: Sequence[ExportedMemory], source: str) -> list[int]:
    """Mint the records' memories; a check that fails is ERR_VALIDATION_FAILED naming the record's line (the
    store checks each item as it takes it, so the failing one is the last one handed over)."""
    current: list[ExportedMemory] = []

    def items() -> Iterator[dict[str, Any]]:
        for record in records:
            current[:] = [record]
            yield _mint_item(record)

    try:
        return store.mint_ids(items())
    except MnemeError as exc:
        if exc.code != ERR_VALIDATION_FAILED or not current:
            raise
        raise MnemeError(exc.code, f"{source} line {current[0].line}: {exc.message}") from None


def _mint_item(record: ExportedMemory) -> dict[str, Any]:
    memory = record.memory
    return dict(
        content=memory.content,
        kind=memory.kind,
        topic=memory.topic,
        repo_id=memory.repo_id,
        task_id=memory.task_id,
        created_at=memory.created_at,
        status=memory.status,
        access_count=memory.access_count,
        provenance=memory.provenance,
    )


def _add_side_rows(store: Store, record: ExportedMemory, ids: dict[int, int]) -> int:
    """The record's minter, link, history and task accesses on its new memory; the history entries added."""
    new_id = ids[record.memory.id]
    store.provenance_log.set_actor(new_id, record.created_by)
    if record.memory.superseded_by in ids:
        store.memories.update(new_id, superseded_by=ids[record.memory.superseded_by])
    for entry in record.history:
        store.audit_log.add(new_id, entry.from_status, entry.to_status, entry.at, entry.reason, entry.actor)
    for task_id, at in record.accessed_by:
        store.task_access.add_once(task_id, new_id, at)
    return len(record.history)
