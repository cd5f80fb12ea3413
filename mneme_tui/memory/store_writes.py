"""The Store's writes: minting memories, status changes (dismiss, restore, supersede, undo) with their audit
rows, content updates, per-task reinforcement and pins. ``store_connection.py`` holds the connection and the
transactions they run in (one each, retried whole on PostgreSQL), ``mint_rows.py`` the checks a new memory
passes; ``store.py`` adds the reads.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from mneme_tui import config
from mneme_tui.display import with_article
from mneme_tui.errors import ERR_NOT_FOUND, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory import kinds as K
from mneme_tui.memory import secrets
from mneme_tui.memory.curation.same_text import TextMatch, match_text
from mneme_tui.memory.mint_rows import NewRow, PreparedMint, checked_content, checked_provenance
from mneme_tui.memory.persistence.curation import last_reads
from mneme_tui.memory.persistence.memories import memory_from_row
from mneme_tui.memory.records import HAND_SOURCES, SAMPLE_SOURCES, SAVE, Memory, Provenance, StatusChange
from mneme_tui.memory.store_connection import StoreConnection
from mneme_tui.memory.vectors import embed, embed_blobs, to_blob
from mneme_tui.validation import MAX_ID, MAX_TASK_ID_BYTES, MAX_TOPIC_BYTES, check_size

RESTORE_REASON = "restored"


class StoreWrites(StoreConnection):
    """Every write of the Store, on its connection (``StoreConnection``)."""

    # --------------------------------------------------------------------- writes
    def save(self, content: str, **fields: Any) -> Memory:
        """``save_checked``'s memory: the new one, or (a text equal after normalising to an active memory of the
        same repo and kind) that one, nothing stored."""
        return self.save_checked(content, **fields)[0]

    def save_checked(
        self,
        content: str,
        *,
        kind: str = "reflection",
        topic: str = "General",
        repo_id: str = config.GLOBAL_REPO,
        task_id: str = "",
        source: str = SAVE,
        detail: str = "",
        secrets_policy: str | None = None,
    ) -> tuple[Memory, TextMatch]:
        """Save an advisory memory (spec 5.1) written by hand: ``source`` is ``save`` (``mneme save``), ``tui``
        or ``mcp`` (``detail``: the client). Statutory and imported kinds raise ERR_VALIDATION_FAILED; a secret
        ERR_SECRET, unless ``secrets_policy`` (default: the store's) is ``redact``.

        Returns the memory and what its text, as it would be stored (a secret redacted), matched:
        ``duplicate_of`` (an active memory of the same repo and kind with the same text after normalising:
        nothing is stored and that memory is returned) or the ``closest`` near duplicate (stored all the same)."""
        K.validate_kind(kind, allow_statutory=False)
        if source not in HAND_SOURCES:
            valid = ", ".join(HAND_SOURCES)
            raise MnemeError(ERR_VALIDATION_FAILED, f"unknown save source {source!r} (valid: {valid})")
        repo = config.GLOBAL_REPO if repo_id is None else str(repo_id).strip()
        # a secret first (refused, or redacted), then the duplicate check on what would be stored
        stored, _ = secrets.screen(checked_content(content), secrets_policy or self.secrets_policy)

        def write() -> tuple[Memory, TextMatch]:
            match = self.existing_text(checked_content(stored), repo_id=repo, kind=kind)
            if match.duplicate_of is not None:
                return self.get(match.duplicate_of), match
            return self.mint(
                content,
                kind=kind,
                topic=topic,
                repo_id=repo,
                task_id=task_id,
                provenance=Provenance(source, detail),
                secrets_policy=secrets_policy,
            ), match

        return self.run_transaction(write)

    def existing_text(self, content: str, *, repo_id: str, kind: str) -> TextMatch:
        """The no-new-duplicates check (``curation/same_text``): an active memory of ``repo_id`` and ``kind``
        with the same text after normalising, or the closest near one."""
        with self.sqlite_errors():
            return match_text(self.db, self.text_keys, content, repo_id=repo_id, kind=kind)

    def mint(
        self,
        content: str,
        *,
        kind: str,
        provenance: Provenance,
        topic: str = "General",
        repo_id: str = config.GLOBAL_REPO,
        task_id: str = "",
        created_at: datetime | None = None,
        status: str = K.ACTIVE,
        access_count: int = 0,
        secrets_policy: str | None = None,
    ) -> Memory:
        """Internal write path for any kind, saying where the memory came from: statutory kinds only from
        task sync, imported kinds only from the Legion import (demo and bench data excepted). A secret is
        refused or redacted by ``secrets_policy`` (default: the store's). One whole transaction, so PostgreSQL
        may run it again (``run_transaction``)."""
        item = dict(
            content=content,
            kind=kind,
            topic=topic,
            repo_id=repo_id,
            task_id=task_id,
            created_at=created_at,
            status=status,
            access_count=access_count,
            provenance=provenance,
            secrets_policy=secrets_policy,
        )
        redactions = self.redactions

        def attempt() -> Memory:
            self.redactions = redactions  # a rerun screens the text again: its redactions are counted once
            return self.mint_many([item])[0]

        return self.retried(attempt)  # mint_many opens the write transaction (a savepoint in a caller's)

    MINT_BATCH = 10_000
    """Items ``mint_many`` validates and inserts at a time."""

    def mint_many(self, items: Iterable[dict]) -> list[Memory]:
        """Insert several memories in one transaction (all or nothing); each item takes ``mint``'s fields,
        ``provenance`` and ``secrets_policy`` included. They are validated, embedded and inserted ``MINT_BATCH``
        at a time, so a generator of a million items is never held whole."""
        return [
            memory_from_row((memory_id, *row[:-1]), row.provenance)
            for ids, rows in self._mint_batches(items)
            for memory_id, row in zip(ids, rows)
        ]

    def mint_ids(self, items: Iterable[dict]) -> list[int]:
        """``mint_many`` for bulk imports that need only the new ids (in the order of ``items``)."""
        return [memory_id for ids, _ in self._mint_batches(items) for memory_id in ids]

    def prepare_mint(self, items: Iterable[dict]) -> PreparedMint:
        """``items`` (``mint``'s fields) validated, screened for secrets and embedded, ready for
        :meth:`insert_prepared`. It reads no database, so a bulk import runs it without the write lock."""
        rows = [self._validated_row(item) for item in items]
        return PreparedMint(rows, embed_blobs([row.content for row in rows]))  # batched: embed()'s bytes

    def insert_prepared(self, prepared: PreparedMint) -> list[int]:
        """Insert memories made by :meth:`prepare_mint` and their provenance in one write transaction; their
        new ids, in order."""
        return self.run_transaction(lambda: self._insert(prepared.rows, prepared.blobs))

    def _mint_batches(self, items: Iterable[dict]) -> Iterator[tuple[list[int], list[NewRow]]]:
        """Validate and insert ``items`` a batch at a time in one write transaction: (new ids, rows) per batch."""
        pending = iter(items)
        with self.write_transaction():
            while (prepared := self.prepare_mint(itertools.islice(pending, self.MINT_BATCH))).rows:
                yield self._insert(prepared.rows, prepared.blobs), prepared.rows

    def _insert(self, rows: list[NewRow], blobs: list[bytes]) -> list[int]:
        """Insert validated rows with their embeddings and provenance, in the caller's write transaction; their
        new ids."""
        stamps: dict[datetime, str] = {}  # created_at as the text peewee itself stores (dates repeat)
        values = [
            (
                row.repo_id,
                row.kind,
                row.topic,
                row.content,
                row.task_id,
                blob,
                stamps.get(row.created_at) or stamps.setdefault(row.created_at, row.created_at.isoformat(sep=" ")),
                row.status,
                row.superseded_by,
                row.access_count,
            )
            for row, blob in zip(rows, blobs)
        ]
        ids = self.memories.insert(values)
        actor = self.actor
        self.provenance_log.add(
            [(memory_id, row.provenance.source, row.provenance.detail, actor) for memory_id, row in zip(ids, rows)]
        )
        return ids

    def _validated_row(self, item: dict) -> NewRow:
        get = item.get
        content = checked_content(get("content"))
        kind = get("kind")
        if kind not in K.ALL_KINDS:  # (the common case is a known kind: skip the conversions)
            kind = K.validate_kind(str(kind or ""), allow_statutory=True)
        provenance = checked_provenance(kind, get("provenance"))
        topic = str(get("topic") or "").strip()
        if provenance.source not in SAMPLE_SOURCES:  # generated demo and bench text holds no secret
            policy = get("secrets_policy")  # the Legion import always redacts
            content = checked_content(self.screened(content, policy=policy))
            topic = self.screened(topic, "topic", policy)
        status = get("status") or K.ACTIVE
        if status not in K.STATUSES:
            status = K.validate_status(str(status))
        repo_id = get("repo_id")
        access = int(get("access_count") or 0)
        if access < 0:
            raise MnemeError(ERR_VALIDATION_FAILED, "access_count cannot be negative")
        return NewRow(  # positional, in NewRow's field order (the fastest way to build it)
            config.GLOBAL_REPO if repo_id is None else str(repo_id).strip(),
            kind,
            check_size(topic.strip() or "General", "topic", MAX_TOPIC_BYTES),
            content,
            check_size(str(get("task_id") or ""), "task id", MAX_TASK_ID_BYTES),
            get("created_at") or config.now(),
            status,
            int(get("superseded_by") or 0),
            access,
            provenance,
        )

    def dismiss(self, ids: Iterable[int], reason: str = "dismissed") -> StatusChange:
        """Tombstone active or superseded memories (spec 5.4); all ids are checked before anything changes."""
        return self.set_status(ids, K.TOMBSTONED, reason=reason, allowed_from=(K.ACTIVE, K.SUPERSEDED))

    def restore(self, ids: Iterable[int], reason: str = RESTORE_REASON) -> StatusChange:
        """Bring tombstoned or superseded memories back to active (audited; ``superseded_by`` is cleared).

        Atomic like ``dismiss``: every id is checked first (ERR_NOT_FOUND / ERR_VALIDATION_FAILED change
        nothing); memories already active are left as they are and are not in the result.
        """
        return self.set_status(
            ids, K.ACTIVE, reason=reason, allowed_from=(K.TOMBSTONED, K.SUPERSEDED), superseded_by=0, skip_same=True
        )

    def undo(self, change: StatusChange, reason: str = "undo") -> StatusChange:
        """Undo a status change: put each memory back to the status it had before (audited)."""

        def write() -> StatusChange:
            undone = []
            for memory_id, previous in change.changed:
                current = self.get(memory_id).status
                if current != previous:
                    self._change_status(memory_id, current, previous, reason)
                    undone.append((memory_id, current))
            return StatusChange(tuple(undone))

        return self.run_transaction(write)

    def set_status(
        self,
        ids: Iterable[int],
        status: str,
        *,
        reason: str,
        allowed_from: Sequence[str] = K.STATUSES,
        superseded_by: int | None = None,
        skip_same: bool = False,
    ) -> StatusChange:
        """Move memories to ``status`` in one transaction, recording each change in the audit table.

        Unknown ids raise ERR_NOT_FOUND and ids in a status not in ``allowed_from`` raise
        ERR_VALIDATION_FAILED; in both cases nothing changes. Memories already in ``status`` are skipped
        (unless a ``superseded_by`` is to be set and ``skip_same`` is False).
        """
        K.validate_status(status)
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            raise MnemeError(ERR_VALIDATION_FAILED, "no memory ids given")

        def write() -> StatusChange:
            changed = []
            statuses = self.memories.statuses([i for i in wanted if 0 < i <= MAX_ID])
            missing = [i for i in wanted if i not in statuses]
            if missing:
                raise MnemeError(ERR_NOT_FOUND, f"no memory with id {', '.join(map(str, missing))}")
            refused = [i for i in wanted if statuses[i] not in allowed_from and statuses[i] != status]
            if refused:
                described = ", ".join(f"{i} is {statuses[i]}" for i in refused)
                raise MnemeError(ERR_VALIDATION_FAILED, f"cannot make {status}: {described}")
            for memory_id in wanted:
                previous = statuses[memory_id]
                if previous == status and (superseded_by is None or skip_same):
                    continue
                changed.append((memory_id, previous))
            self._change_statuses(changed, status, reason, superseded_by)
            return StatusChange(tuple(changed))

        return self.run_transaction(write)

    def mark_superseded(self, old_id: int, new_id: int, reason: str = "superseded") -> StatusChange:
        """Mark ``old_id`` superseded by ``new_id`` (both must exist; ``old_id`` must be active)."""
        self.get(new_id)
        return self.set_status([old_id], K.SUPERSEDED, reason=reason, allowed_from=(K.ACTIVE,), superseded_by=new_id)

    def supersede(self, memory_id: int, content: str, **fields: Any) -> Memory:
        """``supersede_checked``'s memory: the new one, or the existing one its text duplicates."""
        return self.supersede_checked(memory_id, content, **fields)[0]

    def supersede_checked(
        self,
        memory_id: int,
        content: str,
        *,
        topic: str | None = None,
        kind: str | None = None,
        reason: str | None = None,
        source: str = SAVE,
        detail: str = "",
        secrets_policy: str | None = None,
    ) -> tuple[Memory, TextMatch]:
        """Edit as supersede: save a new memory with ``content`` and mark the old one superseded by it, in
        one transaction (audited); nothing is overwritten. The new memory keeps the old one's repo, task,
        topic and kind unless ``topic`` / ``kind`` are given, and its reinforcement (access count and the tasks
        behind it), so a correction does not fall out of sight; its decay starts afresh.

        Only active advisory memories can be superseded by hand (``source``: save, tui or mcp, with the new
        memory's provenance ``detail`` as ``save`` takes it, e.g. the MCP client's name): the spec
        lets only task sync mint statutory kinds (pitfall, pattern, task, ...) and only the Legion import
        writes imported ones, so superseding one, or choosing such a ``kind``, raises ERR_VALIDATION_FAILED,
        as does a memory that is not active. A secret in the text is refused or redacted as ``save`` does. A
        text equal after normalising (once screened) to an active memory of the same repo and kind (the old one
        included) changes nothing: that memory is returned with the match.
        """
        new_kind = K.validate_kind(kind, allow_statutory=False) if kind is not None else None

        def write() -> tuple[Memory, TextMatch]:
            old = self.get(memory_id)
            if old.kind in K.STATUTORY_KINDS or old.kind in K.IMPORTED_KINDS:
                raise MnemeError(
                    ERR_VALIDATION_FAILED,
                    f"memory {memory_id} is {with_article(old.kind)}: statutory kinds are written only by task "
                    "sync and imported kinds only by the Legion import (dismiss it instead)",
                )
            if old.status != K.ACTIVE:
                raise MnemeError(ERR_VALIDATION_FAILED, f"cannot supersede: {memory_id} is {old.status}")
            new, match = self.save_checked(
                content,
                kind=new_kind or old.kind,
                topic=old.topic if topic is None else topic,
                repo_id=old.repo_id,
                task_id=old.task_id,
                source=source,
                detail=detail,
                secrets_policy=secrets_policy,
            )
            if match.duplicate_of is None:
                self._carry_reinforcement(old, new.id)
                self.mark_superseded(memory_id, new.id, reason=reason or f"superseded by {new.id}")
                return self.get(new.id), match
            return new, match

        return self.run_transaction(write)

    def _carry_reinforcement(self, old: Memory, new_id: int) -> None:
        """A new version keeps what the old one earned: its access count, and the tasks that counted it (so
        those tasks do not count the same knowledge twice). Its decay starts afresh: it was written now."""
        self.memories.update(new_id, access_count=old.access_count)
        for task_id in self.task_access.tasks_for([old.id]).get(old.id, []):
            self.task_access.add_once(task_id, new_id, config.now())

    def _change_status(
        self, memory_id: int, previous: str, status: str, reason: str, superseded_by: int | None = None
    ) -> None:
        self._change_statuses([(memory_id, previous)], status, reason, superseded_by)

    def _change_statuses(
        self, changes: Sequence[tuple[int, str]], status: str, reason: str, superseded_by: int | None = None
    ) -> None:
        """Move the memories of ``changes`` (memory_id, previous status) to ``status``, audited: one ``UPDATE``
        and one audit insert for all of them (a round trip each on a server, not two per memory)."""
        if not changes:
            return
        fields: dict[str, Any] = {"status": status}
        if superseded_by is not None:
            fields["superseded_by"] = superseded_by
        self.memories.update_many([memory_id for memory_id, _ in changes], **fields)
        self.audit_log.add_many(changes, status, config.now(), reason, self.actor)

    def update_content(
        self,
        memory_id: int,
        *,
        content: str,
        topic: str | None = None,
        task_id: str | None = None,
        secrets_policy: str | None = None,
    ) -> Memory:
        """Replace a memory's text (re-embedding it); used when a mirrored source row was edited. A secret is
        refused or redacted by ``secrets_policy`` (default: the store's)."""
        self.get(memory_id)
        content = checked_content(self.screened(checked_content(content), policy=secrets_policy))
        fields = {"content": content, "embedding": to_blob(embed(content))}
        if topic is not None:
            topic = self.screened(topic, "topic", secrets_policy).strip() or "General"
            fields["topic"] = check_size(topic, "topic", MAX_TOPIC_BYTES)
        if task_id is not None:
            fields["task_id"] = check_size(task_id, "task id", MAX_TASK_ID_BYTES)
        self.run_transaction(lambda: self.memories.update(memory_id, **fields))
        return self.get(memory_id)

    def reinforce(self, task_id: str, memory_ids: Iterable[int]) -> list[int]:
        """Count an access for each memory at most once per (task_id, memory_id); returns the ids counted."""
        if not task_id.strip():
            raise MnemeError(ERR_VALIDATION_FAILED, "task id cannot be empty")
        check_size(task_id, "task id", MAX_TASK_ID_BYTES)
        wanted = list(dict.fromkeys(int(memory_id) for memory_id in memory_ids))

        def write() -> list[int]:
            counted = self.task_access.add_new(task_id, wanted, config.now())
            self.memories.add_access(counted)
            return counted

        return self.run_transaction(write)

    # ------------------------------------------------------------------- curation
    def pin(self, ids: Iterable[int]) -> list[int]:
        """Pin memories (never cold, first in a handshake); every id is checked first. The ids newly pinned."""
        return self._set_pins(ids, pin=True)

    def unpin(self, ids: Iterable[int]) -> list[int]:
        """Unpin memories; every id is checked first. The ids that were pinned."""
        return self._set_pins(ids, pin=False)

    def _set_pins(self, ids: Iterable[int], *, pin: bool) -> list[int]:
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            raise MnemeError(ERR_VALIDATION_FAILED, "no memory ids given")

        def write() -> list[int]:
            statuses = self.memories.statuses([i for i in wanted if 0 < i <= MAX_ID])
            missing = [i for i in wanted if i not in statuses]
            if missing:
                raise MnemeError(ERR_NOT_FOUND, f"no memory with id {', '.join(map(str, missing))}")
            moment, changed = config.now(), []
            for memory_id in wanted:
                done = self.pins.pin(memory_id, moment, self.actor) if pin else self.pins.unpin(memory_id)
                if done:
                    status = statuses[memory_id]
                    self.audit_log.add(memory_id, status, status, moment, "pinned" if pin else "unpinned", self.actor)
                    changed.append(memory_id)
            return changed

        return self.run_transaction(write)

    def pinned_ids(self) -> set[int]:
        """The ids of every pinned memory."""
        with self.sqlite_errors():
            return self.pins.ids()

    def last_reads(self) -> dict[int, str]:
        """Memory id → when a task last read it (stored text), for memories some task read."""
        with self.sqlite_errors():
            return last_reads(self.db)
