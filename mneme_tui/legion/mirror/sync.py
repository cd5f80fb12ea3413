"""Two-way mirror between a Legion memory folder (``.planning/memory/*.md``) and the store.

``sync(store, legion, project)`` first exports store-side memories to the markdown files
(:mod:`mneme_tui.legion.mirror.sync_export`: each file written once, no database lock held), reads every file,
then imports every record in a chain of short write transactions that do only the database work
(:mod:`mneme_tui.legion.mirror.write_slices`: each is committed at a point where it is whole - a record's memory
and its companion row, a status and what the sync knows of it, together - once it has held the write
lock for half a second; then a pause lets waiting writers in, so saves by other processes never wait
long). A failure rolls back the slice it happened in; the slices before it are whole, and the next
sync carries on from them (it compares hashes: what is already imported is unchanged). The markdown
appends of the export are found again and linked by the next sync. Two syncs of one folder take turns
(``.planning/memory/.sync.lock``), so a memory is never exported twice; record writes and saves do not
wait for it. Pairing records with their companion rows: :mod:`mneme_tui.legion.mirror.sync_pairing`.

Import rules
- A record becomes a memory with ``repo_id = project`` and kind: outcome -> ``task`` (``review`` when its
  Task Type lists ``quality-review`` or ``review``), pattern -> ``pattern``, error / pitfall ->
  ``pitfall``, preference -> ``preference``. Topic: an outcome's first Task Type, otherwise the first tag,
  otherwise ``General``. ``task_id``: an outcome's Plan (other kinds have none). Content: the record's
  headline (summary / pattern / error signature / preference context), its prose body, then one
  ``Field: value`` line per column (see :func:`memory_content`). ``created_at``: the record's Date
  (midnight) when it parses, else the sync time. The Legion columns live in ``legion_records``
  (:mod:`mneme_tui.legion.mirror.record_mapping`).
- Identity across syncs: ``(project, family, kind, identity, occurrence)``. The family is
  ``OUTCOMES.md`` for outcome rows of OUTCOMES.md *and* ARCHIVE.md (a pruned row keeps its memory),
  otherwise the file name. The identity is the record's ID; a row without one (9-column ports) uses a
  fingerprint: ``~date|plan|agent`` for outcomes, ``~date|pattern``, ``~date|error signature`` and
  ``~date|decision point|context`` for the others. The occurrence counts earlier records of the family
  with the same identity (ARCHIVE.md is read before OUTCOMES.md). Records are paired with companion
  rows of the same identity by identical content hash first, then by occurrence order - so two rows
  with one ID (a git merge) both survive and a pruned duplicate keeps its own memory.
- Statuses: a record in a file -> ``active``; a record in ARCHIVE.md -> ``superseded`` with
  ``superseded_by`` 0 (audit reason ``archived in ARCHIVE.md``: it was retired by age, not judged wrong,
  so it is not ``tombstoned``, which means dismissed); a ``(SUPERSEDED by X)`` marker -> ``superseded``
  with ``superseded_by`` = X's memory (0 when X is nowhere to be found); a record that disappeared from a
  parseable file -> ``superseded``, ``superseded_by`` 0, reason ``no longer in FILE`` (it becomes active
  again if it comes back). A sync only moves a status it set itself: a status changed in the store
  (dismissed, superseded by task sync, ...) is never undone by a re-import.
- Idempotent: unchanged records are compared by hash and cause no write at all. An edited record updates
  its memory (content, topic, task_id; a kind change task <-> review mints a new memory that supersedes
  the old one). A file that did not parse is skipped with its warning: its records are neither added nor
  treated as gone, and it is never rewritten.

Export rules (store -> files): active memories of the project (``repo_id = project``, never ``global``)
of kind ``preference`` (advisory, e.g. ``mneme save --kind preference``), ``pitfall`` or ``pattern`` (minted
by task sync) that have no companion row are appended (one ``LegionMemory.store`` write per file) and linked:
preference -> PREFERENCES.md as a ``## PRF-NNN: first line`` block (no decision point, signal or agent: none
was observed); pitfall -> ERRORS.md (signature = topic, or the first line when the topic is ``General``; fix = the
memory text; no agent; resolved when task-sync verified); pattern -> PATTERNS.md (pattern = first line,
context = the rest, source ``mneme`` / the task id). Each carries the memory's topic as its first tag. A pitfall
whose signature ERRORS.md already knows is *merged* (not appended; remembered so it is not offered again). No
other kind is exported:
outcomes need agent and outcome columns a store memory does not have. Exports are skipped when the
folder's ``settings.json`` says ``memory.enabled: false``.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import peewee

from mneme_tui import config
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.markdown.folder_lock import SYNC_LOCK_NAME, memory_lock
from mneme_tui.legion.markdown.inplace import write_point
from mneme_tui.legion.markdown.legion_records import Record
from mneme_tui.legion.mirror import record_mapping as mt
from mneme_tui.legion.mirror.fresh_records import mint_fresh, new_row
from mneme_tui.legion.mirror.record_mapping import (
    created_at,
    memory_content,
    memory_kind,
    memory_task_id,
    memory_topic,
    record_json,
)
from mneme_tui.legion.mirror.secret_rows import prescreen_records, redacted_record, redacted_records, redaction_warning
from mneme_tui.legion.mirror.sync_export import Export, ExportedMemory, export_memories, find_link
from mneme_tui.legion.mirror.sync_pairing import Incoming, PairingPlan, pair_records
from mneme_tui.legion.mirror.sync_report import FileSync, SyncReport
from mneme_tui.legion.mirror.write_slices import WriteSlices
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory import kinds as K
from mneme_tui.memory import secrets
from mneme_tui.memory.gc_pause import gc_paused
from mneme_tui.memory.store import Store

ARCHIVED_REASON = "archived in ARCHIVE.md"
_STATUS_CHUNK = 500
BATCH_ROWS = 2_000
"""New records minted and linked per batch (:mod:`mneme_tui.legion.mirror.fresh_records`): making one takes
about ``GAP_SECONDS`` (0.1 s), so the pause it is made in is seldom longer."""
SYNC_LOCK_TIMEOUT = 120.0
"""Seconds a sync waits for another sync of the same folder to finish."""


# ----------------------------------------------------------------------------- folder
resolve_memory_dir = config.resolve_legion_dir


# -------------------------------------------------------------------------------- sync
def sync(
    store: Store, legion: LegionMemory | str | os.PathLike[str], project: str | None = None, *, repo: str | None = None
) -> SyncReport:
    """Export store-side memories to the files, then mirror every record into the store (module doc).

    ``legion`` may also be the memory folder's path; ``repo`` is another name for ``project``.
    """
    if not isinstance(legion, LegionMemory):
        legion = LegionMemory(Path(legion))
    project = (project if project is not None else repo or "").strip()
    if not project:
        raise MnemeError(ERR_VALIDATION_FAILED, "project cannot be empty")
    report = SyncReport(project, str(legion.memory_dir))
    if not legion.memory_dir.is_dir():
        report.message = f"No Legion memory folder at {legion.memory_dir}; nothing to sync."
        return report
    legion.recover()
    with memory_lock(legion.memory_dir, SYNC_LOCK_TIMEOUT, name=SYNC_LOCK_NAME):  # one sync of a folder at a time
        with store.sqlite_errors():
            exports = export_memories(store, legion, project, mt.load_rows(store.db, project), report.warnings)
        write_point("sync:exported")
        with gc_paused():  # parsing too makes many objects and no cycles (a 10,000-row file: 0.11 -> 0.09 s of CPU)
            files = legion.read_all()
            with store.sqlite_errors():  # read outside any write transaction: only a sync writes these rows
                rows = mt.load_rows(store.db, project)
            known = {row.memory_id for row in rows}
            exports = [spec for spec in exports if spec.memory.id not in known]  # linked by another sync
            plan = pair_records(files, rows)
            _redact_fresh(plan, report)  # screened before the first write transaction: it holds no lock
            _prescreen_edited(plan)
            with WriteSlices(store) as slices:  # the database work only
                _write(slices, project, plan, exports, report)
        report.longest_write_seconds = slices.longest
    touched = {f.file: f for f in report.files}
    report.files = []
    for file_report in files.files:
        entry = touched.pop(file_report.file, None) or FileSync(file_report.file)
        entry.exists, entry.parseable = file_report.exists, file_report.parseable
        entry.records = file_report.record_count
        entry.not_imported = file_report.not_imported_count
        entry.warnings = list(file_report.warnings)
        report.warnings += file_report.warnings
        if entry.exists or entry.removed or entry.exported:
            report.files.append(entry)
    for entry in touched.values():  # files that are gone (their records were removed)
        entry.exists = False
        report.files.append(entry)
    report.synced = True
    totals = report.totals
    report.message = (
        f"{totals['added']} added, {totals['updated']} updated, {totals['unchanged']} unchanged, "
        f"{totals['removed']} removed, {totals['exported']} exported"
    )
    return report


def _write(slices: WriteSlices, project: str, plan: PairingPlan, exports: list[Export], report: SyncReport) -> None:
    store = slices.store
    now = config.now().isoformat(sep=" ")
    if plan.dangling:
        mt.delete_rows(store.db, [row.memory_id for row in plan.dangling])
    _link_exports(store.db, project, plan, exports, report, now)
    counts: dict[str, defaultdict[str, int]] = {
        name: defaultdict(int) for name in ("added", "updated", "unchanged", "removed")
    }
    mint_fresh(slices, project, _unpaired(plan), report, now, counts, BATCH_ROWS)
    new_rows = []
    for item in plan.incoming:
        if item.link is not None:
            item.memory_id = item.link.id
            item.status = (item.link.status, item.link.superseded_by)
            new_rows.append(new_row(item, project, item.link.id, mt.STORE_ORIGIN, item.status, now))
    mt.insert_rows(store.db, new_rows)

    slices.boundary()
    for item in plan.incoming:
        if item.match is not None:
            _update_matched(store, project, item, now, counts, report)
            slices.boundary()

    _reconcile_statuses(slices, plan, now, counts)
    for name, per_file in counts.items():
        for file_name, value in per_file.items():
            setattr(report.file(file_name), name, getattr(report.file(file_name), name) + value)


def _link_exports(
    db: peewee.Database, project: str, plan: PairingPlan, exports: list[Export], report: SyncReport, now: str
) -> None:
    """Store-side memories that now have a record: link them (no new memory); an error signature the file
    already knew is recorded as merged."""
    merged_rows: list[tuple] = []
    for spec in exports:
        if spec.outcome is not None:  # failed: offered again next sync
            report.exports.append(spec.outcome)
            continue
        target = find_link(plan, spec, set())
        if target is not None:
            target.link = spec.memory
            action = "appended" if spec.result is not None else "linked"
            report.exports.append(
                ExportedMemory(spec.memory.id, spec.memory.kind, target.file, action, target.record.id)
            )
            report.file(target.file).exported += 1
            continue
        if spec.result is None:  # cannot happen (the record was there a moment ago); offer it again next sync
            report.exports.append(
                ExportedMemory(
                    spec.memory.id,
                    spec.memory.kind,
                    spec.file,
                    "failed",
                    message="the matching record went away during the sync",
                )
            )
            continue
        stored = spec.result.record
        if spec.result.action == "created":
            message = "the appended record was not found again; not offered again"
            report.warnings.append(f"memory {spec.memory.id}: {message} ({spec.file})")
        else:
            message = f"{spec.file} already knows this error signature"
        report.exports.append(ExportedMemory(spec.memory.id, spec.memory.kind, spec.file, "merged", stored.id, message))
        merged_rows.append(
            (
                spec.memory.id,
                project,
                spec.file,
                spec.file,
                spec.kind,
                f"merged:{spec.memory.id}",
                0,
                stored.id,
                "",
                record_json(stored),
                0,
                mt.STORE_ORIGIN,
                mt.MERGED,
                spec.memory.status,
                spec.memory.superseded_by,
                now,
            )
        )
    mt.insert_rows(db, merged_rows)


def _unpaired(plan: PairingPlan) -> list[Incoming]:
    """The records with no memory yet: each becomes a new memory (unless an export links it first)."""
    return [i for i in plan.incoming if i.match is None and i.link is None]


def _redact_fresh(plan: PairingPlan, report: SyncReport) -> None:
    """Redact the secrets in the records that become new memories (as ``_redact_secrets``), screened as one batch.

    A record an export of this sync then links came from a memory, screened when it was saved: it is unchanged.
    """
    fresh = _unpaired(plan)
    for item, (record, findings) in zip(fresh, redacted_records([i.record for i in fresh]), strict=True):
        _take_redacted(item, record, findings, report)


def _prescreen_edited(plan: PairingPlan) -> None:
    """Screen the records whose text changed, and the memory texts and topics they give, as batches before the
    first write transaction: ``_update_matched`` then finds each clean one clean at once (``secrets.prescreen``:
    nothing else changes)."""
    edited = [i.record for i in plan.incoming if i.match is not None and i.match.content_hash != i.hash]
    prescreen_records(edited)
    secrets.prescreen(text for record in edited for text in (memory_content(record), memory_topic(record)))


def _redact_secrets(item: Incoming, report: SyncReport) -> None:
    """Redact a secret in a record on its way into the store, saying where (the file is left as it is; the
    content hash stays the file row's, so the next sync sees it unchanged)."""
    _take_redacted(item, *redacted_record(item.record), report)


def _take_redacted(item: Incoming, record: Record, findings: list[secrets.Finding], report: SyncReport) -> None:
    """Put ``record`` (``item``'s record, redacted: :mod:`mneme_tui.legion.mirror.secret_rows`) in ``item``'s place."""
    if record is not item.record:
        item.columns_and_hash()
        item.record = record
        if findings:
            report.warnings.append(redaction_warning(record, findings))


def _update_matched(store: Store, project: str, item: Incoming, now: str, counts: dict, report: SyncReport) -> None:
    row = item.match
    assert row is not None and row.memory_status is not None
    item.memory_id = row.memory_id
    item.status = (row.memory_status, row.memory_superseded_by)
    item.owned = row.status_owned
    fields: dict[str, Any] = {}
    changed = False
    # a record exported from the store keeps its memory's kind (a task-sync pattern stays a pattern)
    kind = row.memory_kind if row.origin != mt.FILE_ORIGIN and row.memory_kind else memory_kind(item.record)
    if row.content_hash != item.hash or row.memory_kind != kind:
        _redact_secrets(item, report)
        content = memory_content(item.record, report.warnings)
        topic, task_id = memory_topic(item.record, report.warnings), memory_task_id(item.record, report.warnings)
        if row.memory_kind != kind:
            # a memory's kind is fixed: mint the right kind and let it supersede the old memory
            status = K.ACTIVE if item.owned else row.memory_status
            new = store.mint(
                content,
                kind=kind,
                topic=topic,
                repo_id=project,
                task_id=task_id,
                created_at=created_at(item.record),
                status=status,
                provenance=mt.provenance(item.file, item.identity),
                secrets_policy=secrets.REDACT,
            )
            if item.owned:
                store.set_status(
                    [row.memory_id],
                    K.SUPERSEDED,
                    superseded_by=new.id,
                    reason=f"{item.file} {item.identity}: kind changed to {kind}",
                )
            mt.move_row(store.db, row.memory_id, new.id)
            item.memory_id = new.id
            item.status = (status, 0)
            fields.update(sync_status=status, sync_superseded_by=0)
        else:
            store.update_content(
                row.memory_id, content=content, topic=topic, task_id=task_id, secrets_policy=secrets.REDACT
            )
        fields.update(content_hash=item.hash, columns=record_json(item.record))
        changed = True
    if row.source_file != item.file or row.archived != item.archived:
        fields.update(source_file=item.file, archived=item.archived)
        changed = True
    if row.occurrence != item.occurrence:
        fields["occurrence"] = item.occurrence
    if row.record_id != item.record.id:
        fields["record_id"] = item.record.id
    if fields:
        fields["synced_at"] = now
        mt.update_row(store.db, item.memory_id, **fields)
    item.counted = "updated" if changed else "unchanged"
    counts[item.counted][item.file] += 1


def _marker(item: Incoming) -> str:
    record = item.record
    marker = record.superseded_by or (record.extra.get("superseded_by", "") if record.extra else "")
    if not marker:
        return ""
    marker = marker.strip()
    return "" if marker.upper() == record.id.strip().upper() else marker


def _marker_targets(plan: PairingPlan) -> tuple[dict[tuple[str, str, str], int], dict[str, int]]:
    """Memory ids by ``(family, kind, RECORD-ID)`` and by ``RECORD-ID``, for ``(SUPERSEDED by X)`` markers."""
    by_family: dict[tuple[str, str, str], int] = {}
    by_id: dict[str, int] = {}
    for item in plan.incoming:
        rid = item.record.id.strip().upper()
        if rid and item.memory_id:
            by_family.setdefault((item.family, item.record.kind, rid), item.memory_id)
            by_id.setdefault(rid, item.memory_id)
    for row in plan.vanished:
        if row.record_id.strip():
            by_id.setdefault(row.record_id.strip().upper(), row.memory_id)
    return by_family, by_id


def _reconcile_statuses(slices: WriteSlices, plan: PairingPlan, now: str, counts: dict) -> None:
    """Give each record's memory the status its file implies, where the sync still owns that status.

    A memory's new status and the companion row's note of it (``sync_status``) are written in one slice.
    """
    targets = None  # built at the first marker (most files have none)
    wanted: dict[tuple[str, int, str], list[int]] = defaultdict(list)
    touched: dict[int, dict[str, Any]] = {}
    for item in plan.incoming:
        slices.boundary()  # even a loop that only reads takes time while the lock is held
        if not item.owned or not item.memory_id:
            continue
        marker = _marker(item)
        if marker:
            by_family, by_id = targets = targets or _marker_targets(plan)
            key = marker.upper()
            target = by_family.get((item.family, item.record.kind, key)) or by_id.get(key, 0)
            status = (K.SUPERSEDED, 0 if target == item.memory_id else target)
            reason = f"marked (SUPERSEDED by {marker}) in {item.file}"
        elif item.archived:
            status, reason = (K.SUPERSEDED, 0), ARCHIVED_REASON
        else:
            status, reason = (K.ACTIVE, 0), ""
        if status != item.status:
            wanted[(*status, reason or f"back in {item.file}")].append(item.memory_id)
            touched[item.memory_id] = {"sync_status": status[0], "sync_superseded_by": status[1], "synced_at": now}
            if item.counted == "unchanged":
                item.counted = "updated"
                counts["unchanged"][item.file] -= 1
                counts["updated"][item.file] += 1

    for row in plan.vanished:
        if not row.source_file:  # already known to be gone
            continue
        counts["removed"][row.source_file] += 1
        fields: dict[str, Any] = {"source_file": "", "synced_at": now}
        if row.status_owned and (row.memory_status, row.memory_superseded_by) != (K.SUPERSEDED, 0):
            wanted[(K.SUPERSEDED, 0, f"no longer in {row.source_file}")].append(row.memory_id)
            touched[row.memory_id] = {**fields, "sync_status": K.SUPERSEDED, "sync_superseded_by": 0}
        else:
            mt.update_row(slices.store.db, row.memory_id, **fields)
            slices.boundary()

    for (new_status, superseded_by, reason), ids in wanted.items():
        for start in range(0, len(ids), _STATUS_CHUNK):
            chunk = ids[start : start + _STATUS_CHUNK]
            slices.store.set_status(chunk, new_status, reason=reason, superseded_by=superseded_by)
            for memory_id in chunk:
                mt.update_row(slices.store.db, memory_id, **touched[memory_id])
            slices.boundary()
