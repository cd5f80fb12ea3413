"""Purge: the one deletion. A memory's text is removed from every file the store owns; the row stays, tombstoned.

``purge`` replaces the content and topic with ``PURGED`` (the embedding with that marker's), tombstones the
memory, empties the Legion mirror's copy of the record and the provenance detail, and audits both the status
change and the purge (actor, time, reason and the SHA-256 of the removed text) in one transaction. Then, on
SQLite, freed bytes are zeroed (``secure_delete``), the WAL is checkpointed and emptied, the file vacuumed, and
the on-disk index snapshot with its stamp deleted (the next refresh rebuilds it). PostgreSQL keeps old row
versions until its next VACUUM (docs/secrets.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mneme_tui import config
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory import index_snapshot, secrets
from mneme_tui.memory import kinds as K
from mneme_tui.memory.persistence.schema import LEGION_RECORD_COLUMNS
from mneme_tui.memory.vectors import embed, to_blob

if TYPE_CHECKING:
    from mneme_tui.memory.store import Store

PURGED = "[purged]"
"""What a purged memory's content and topic become."""
PURGE_REASON_PREFIX = "purged: "
"""How the audit row of a purge starts (then the reason and the text's SHA-256)."""


@dataclass(frozen=True, slots=True)
class PurgedMemory:
    """One purged memory: its id, the status it had, the SHA-256 of the removed text (topic, newline, content)
    and, when it mirrors a Legion record, the file and record id that still hold the text."""

    id: int
    previous_status: str
    sha256: str
    legion_file: str = ""
    legion_record: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "previous_status": self.previous_status,
            "sha256": self.sha256,
            "legion_file": self.legion_file or None,
            "legion_record": self.legion_record or None,
        }


@dataclass(frozen=True, slots=True)
class PurgeResult:
    """What ``purge`` did: the memories, the reason, and whether every file was scrubbed (``clean``: False when
    another process held the SQLite WAL open, so it could not be emptied yet)."""

    purged: tuple[PurgedMemory, ...]
    reason: str
    clean: bool
    markdown_rewritten: tuple[int, ...] = ()
    """The ids whose mirrored Legion row was rewritten with the marker (``purge --markdown``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "purged": [memory.to_json() for memory in self.purged],
            "reason": self.reason,
            "clean": self.clean,
            "markdown_rewritten": sorted(self.markdown_rewritten),
        }


def removed_text_hash(topic: str, content: str) -> str:
    """The SHA-256 (hex) a purge records for the text it removes."""
    return hashlib.sha256(f"{topic}\n{content}".encode()).hexdigest()


def supersession_chain(store: Store, memory_id: int) -> list[int]:
    """Every version of ``memory_id``'s supersession chain (what it superseded and what superseded it), sorted."""
    seen: set[int] = set()
    pending = [memory_id]
    while pending:
        current = pending.pop()
        if current in seen or current <= 0:
            continue
        seen.add(current)
        memory = store.get(current)
        with store.sqlite_errors():
            pending.extend(store.memories.superseded_by(current))
        pending.append(memory.superseded_by)
    return sorted(seen)


def purge(store: Store, ids: Iterable[int], *, reason: str, chain: bool = False) -> PurgeResult:
    """Purge ``ids`` (with ``chain``, every version of each one's supersession chain) in one transaction; unknown
    ids raise ERR_NOT_FOUND and nothing changes. The reason is refused if it holds a secret."""
    reason = " ".join(secrets.screen(reason, secrets.REFUSE, "reason")[0].split())
    if not reason:
        raise MnemeError(ERR_VALIDATION_FAILED, "a purge needs a reason (--reason TEXT); nothing was purged")
    wanted = list(dict.fromkeys(int(i) for i in ids))
    if not wanted:
        raise MnemeError(ERR_VALIDATION_FAILED, "no memory ids given")
    for memory_id in wanted:
        store.get(memory_id)  # ERR_NOT_FOUND before anything changes
    if chain:
        wanted = sorted({member for memory_id in wanted for member in supersession_chain(store, memory_id)})
    with store.sqlite_errors():
        store.dialect.secure_delete(store.db)
    purged = store.run_transaction(lambda: [_purge_one(store, memory_id, reason) for memory_id in wanted])
    return PurgeResult(tuple(purged), reason, scrub_files(store))


def _purge_one(store: Store, memory_id: int, reason: str) -> PurgedMemory:
    memory = store.get(memory_id)
    digest = removed_text_hash(memory.topic, memory.content)
    row = store.legion_records.for_memory(memory_id)
    file, record = (
        ("", "")
        if row is None
        else (str(row[LEGION_RECORD_COLUMNS.index("source_file")]), str(row[LEGION_RECORD_COLUMNS.index("record_id")]))
    )
    store.memories.update(
        memory_id, content=PURGED, topic=PURGED, embedding=to_blob(embed(PURGED)), status=K.TOMBSTONED
    )
    store.text_keys.forget(memory_id)  # the hash of the text goes with it
    now, actor = config.now(), store.actor
    if memory.status != K.TOMBSTONED:
        store.audit_log.add(memory_id, memory.status, K.TOMBSTONED, now, "purged", actor)
    store.audit_log.add(
        memory_id, K.TOMBSTONED, K.TOMBSTONED, now, f"{PURGE_REASON_PREFIX}{reason} (sha256 {digest})", actor
    )
    store.legion_records.forget_text(memory_id, PURGED)
    store.provenance_log.forget_detail(memory_id)
    return PurgedMemory(memory_id, memory.status, digest, file, record)


def scrub_files(store: Store) -> bool:
    """Leave no freed bytes in the store's files: the SQLite WAL emptied and the file vacuumed, the index
    snapshot and its stamp deleted, this store's in-memory index reloaded at its next refresh; False when
    the WAL stayed busy."""
    with store.sqlite_errors():
        clean = bool(store.dialect.scrub(store.db))
    snapshot = store.snapshot_file()
    if snapshot is not None:
        index_snapshot.discard_files(snapshot)
    with store.index.lock:
        store.index.seq = -1  # the next refresh reloads it whole from the database
    return clean
