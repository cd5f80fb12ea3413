"""Two-way mirror between a Legion memory folder (``.planning/memory/*.md``) and the store.

``sync(store, legion, project)`` first exports store-side memories to the markdown files, then imports
every record of every file, all inside one ``BEGIN IMMEDIATE`` store transaction (a failure leaves the
store untouched; the markdown appends of the export are found again and linked by the next sync).

Import rules
- A record becomes a memory with ``repo_id = project`` and kind: outcome -> ``task`` (``review`` when its
  Task Type lists ``quality-review`` or ``review``), pattern -> ``pattern``, error / pitfall ->
  ``pitfall``, preference -> ``preference``. Topic: an outcome's first Task Type, otherwise the first tag,
  otherwise ``General``. ``task_id``: an outcome's Plan (other kinds have none). Content: the record's
  headline (summary / pattern / error signature / preference context), its prose body, then one
  ``Field: value`` line per column (see :func:`memory_content`). ``created_at``: the record's Date
  (midnight) when it parses, else the sync time. The Legion columns live in ``legion_records``
  (:mod:`mneme_tui.legion.mirror`).
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
by task sync) that have no companion row are appended through ``LegionMemory.record_*`` and linked:
preference -> PREFERENCES.md (decision point ``manual-edit``, signal ``positive``, context = the memory
text); pitfall -> ERRORS.md (signature = topic, or the first line when the topic is ``General``; fix = the
memory text); pattern -> PATTERNS.md (pattern = first line, context = the rest, source ``mneme`` / the
task id). Each carries the memory's topic as its first tag. A pitfall whose signature ERRORS.md already
knows is *merged* (not appended; remembered so it is not offered again). No other kind is exported:
outcomes need agent and outcome columns a store memory does not have. Exports are skipped when the
folder's ``settings.json`` says ``memory.enabled: false``.
"""

from __future__ import annotations

import gc
import os
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from mneme_tui import config
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion import mirror as mt
from mneme_tui.legion.api import FileReport, LegionMemory, MemoryReport
from mneme_tui.legion.mirror import (
    OUTCOMES_FAMILY,
    content_hash,
    created_at,
    family_of,
    headline,
    memory_content,
    memory_kind,
    memory_task_id,
    memory_topic,
    record_identity,
    record_json,
)
from mneme_tui.legion.records import Record
from mneme_tui.legion.schemas import ARCHIVE, ERROR, ERRORS, OUTCOMES, PATTERN, PATTERNS, PREFERENCE, PREFERENCES
from mneme_tui.legion.store import StoreResult
from mneme_tui.memory import kinds as K
from mneme_tui.memory.records import Memory
from mneme_tui.memory.store import Store

EXPORT_KINDS = ("preference", "pitfall", "pattern")
ARCHIVED_REASON = "archived in ARCHIVE.md"
EXPORT_AGENT = "mneme"
_STATUS_CHUNK = 500


# ----------------------------------------------------------------------------- folder
resolve_memory_dir = config.resolve_legion_dir


# ---------------------------------------------------------------------------- reports
@dataclass
class FileSync:
    """What a sync did with one file."""

    file: str
    exists: bool = True
    parseable: bool = True
    records: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    not_imported: int = 0
    exported: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def skipped(self) -> bool:
        """True for a file that exists but did not parse (left alone, never rewritten)."""
        return self.exists and not self.parseable

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file, "exists": self.exists, "parseable": self.parseable, "skipped": self.skipped,
            "records": self.records, "added": self.added, "updated": self.updated, "unchanged": self.unchanged,
            "removed": self.removed, "not_imported": self.not_imported, "exported": self.exported,
            "warnings": list(self.warnings),
        }


@dataclass
class ExportedMemory:
    """One store-side memory offered to the files: ``appended``, ``linked`` (an identical record was
    already there), ``merged`` (Legion folded it into a known record) or ``failed`` (retried next sync)."""

    memory_id: int
    kind: str
    file: str
    action: str
    record_id: str = ""
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"memory_id": self.memory_id, "kind": self.kind, "file": self.file, "action": self.action,
                "record_id": self.record_id, "message": self.message}


COUNTS = ("records", "added", "updated", "unchanged", "removed", "not_imported", "exported")


@dataclass
class SyncReport:
    """The result of :func:`sync`: per-file counts, exports and warnings."""

    project: str
    memory_dir: str
    synced: bool = False
    message: str = ""
    files: list[FileSync] = field(default_factory=list)
    exports: list[ExportedMemory] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def file(self, name: str) -> FileSync:
        found = next((f for f in self.files if f.file == name), None)
        if found is None:
            found = FileSync(name)
            self.files.append(found)
        return found

    @property
    def totals(self) -> dict[str, int]:
        return {name: sum(getattr(f, name) for f in self.files) for name in COUNTS}

    def summary(self) -> str:
        """One line for a status bar or notification."""
        if not self.synced:
            return self.message
        skipped = [f.file for f in self.files if f.skipped]
        tail = f"; skipped (did not parse): {', '.join(skipped)}" if skipped else ""
        return f"Legion sync: {self.message}{tail}."

    @property
    def changed(self) -> bool:
        totals = self.totals
        return any(totals[name] for name in ("added", "updated", "removed", "exported"))

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project, "memory_dir": self.memory_dir, "synced": self.synced, "message": self.message,
            "files": [f.to_json() for f in self.files], "totals": self.totals,
            "exports": [e.to_json() for e in self.exports], "warnings": list(self.warnings),
        }


# ----------------------------------------------------------------------------- planning
@dataclass(slots=True)
class _Incoming:
    """One record read from a file, with its identity and (once planned) what it pairs with."""

    record: Record
    file: str
    family: str
    identity: str
    occurrence: int
    columns: str  # JSON text
    hash: str
    match: mt.MirrorRow | None = None
    link: Memory | None = None
    memory_id: int = 0
    status: tuple[str, int] = (K.ACTIVE, 0)
    owned: bool = True
    counted: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return self.family, self.record.kind, self.identity

    @property
    def archived(self) -> bool:
        return self.file == ARCHIVE.file_name


@dataclass
class _Plan:
    incoming: list[_Incoming]
    vanished: list[mt.MirrorRow]
    dangling: list[mt.MirrorRow]
    by_headline: dict[tuple[str, str, str], list[_Incoming]] | None = None


def _file_order(report: MemoryReport) -> list[FileReport]:
    """Files in reading order for occurrences: ARCHIVE.md (older rows) before OUTCOMES.md."""
    return sorted(report.files, key=lambda f: 0 if f.file == ARCHIVE.file_name else 1)


def _incoming(report: MemoryReport) -> list[_Incoming]:
    seen: dict[tuple[str, str, str], int] = defaultdict(int)
    out: list[_Incoming] = []
    for file_report in _file_order(report):
        if not file_report.parseable:
            continue
        file = file_report.file
        for record in file_report.records:
            kind = record.kind
            family = family_of(file, kind)
            identity = record_identity(record)
            key = (family, kind, identity)
            occurrence = seen[key]
            seen[key] = occurrence + 1
            text = record_json(record)
            out.append(_Incoming(record, file, family, identity, occurrence, text, content_hash(kind, text)))
    return out


def _broken(report: MemoryReport) -> tuple[set[str], set[str]]:
    """Files that exist but did not parse, and the families they make uncertain."""
    files = {f.file for f in report.files if f.exists and not f.parseable}
    families = set(files)
    if files & {OUTCOMES.file_name, ARCHIVE.file_name}:
        families.add(OUTCOMES_FAMILY)
    return files, families


def _plan(report: MemoryReport, rows: list[mt.MirrorRow]) -> _Plan:
    """Pair every record with a companion row (same identity: equal hash first, then occurrence order)."""
    broken_files, broken_families = _broken(report)
    incoming = _incoming(report)
    dangling = [r for r in rows if r.memory_status is None]
    existing: dict[tuple[str, str, str], list[mt.MirrorRow]] = defaultdict(list)
    for row in rows:
        if row.memory_status is not None and row.state == mt.LINKED and row.source_file not in broken_files:
            existing[row.key].append(row)
    if not existing:  # nothing to pair with (a first sync): every record is new
        return _Plan(incoming, [], dangling)
    groups: dict[tuple[str, str, str], list[_Incoming]] = defaultdict(list)
    for item in incoming:
        groups[item.key].append(item)
    for key, items in groups.items():
        left = sorted(existing.pop(key, []), key=lambda r: r.occurrence)
        by_hash: dict[str, list[mt.MirrorRow]] = defaultdict(list)
        for row in left:
            by_hash[row.content_hash].append(row)
        unpaired: list[_Incoming] = []
        paired: set[int] = set()
        for item in items:
            same = by_hash.get(item.hash)
            if not same:
                unpaired.append(item)
                continue
            row = next((r for r in same if r.occurrence == item.occurrence), same[0])
            same.remove(row)
            item.match = row
            paired.add(row.memory_id)
        rest = [row for row in left if row.memory_id not in paired]
        for item, row in zip(unpaired, rest):
            item.match = row
        if len(rest) > len(unpaired):
            existing[key] = rest[len(unpaired):]
    vanished = [
        row for rows_left in existing.values() for row in rows_left
        if row.family not in broken_families and row.source_file not in broken_files
    ]
    return _Plan(incoming, vanished, dangling)


# ------------------------------------------------------------------------------- export
@dataclass
class _Export:
    """A store memory to append: target file, record kind and the headline it will carry."""

    memory: Memory
    kind: str
    file: str
    headline: str
    result: StoreResult | None = None
    outcome: ExportedMemory | None = None


def _export_spec(memory: Memory) -> _Export:
    text = memory.content.strip()
    if memory.kind == "preference":
        return _Export(memory, PREFERENCE, PREFERENCES.file_name, text)
    if memory.kind == "pitfall":
        signature = memory.topic.strip() if memory.topic.strip() not in ("", "General") else memory.first_line
        return _Export(memory, ERROR, ERRORS.file_name, signature)
    return _Export(memory, PATTERN, PATTERNS.file_name, memory.first_line)


def _export_tags(memory: Memory) -> list[str]:
    topic = memory.topic.replace(",", ";").strip()
    return [topic] if topic and topic != "General" else []


def _append(legion: LegionMemory, spec: _Export, branch: str) -> StoreResult:
    memory = spec.memory
    tags = _export_tags(memory)
    if spec.kind == PREFERENCE:
        return legion.record_preference(decision_point="manual-edit", context=spec.headline, proposed="",
                                        user_choice="", signal="positive", agent=EXPORT_AGENT, tags=tags,
                                        branch=branch)
    if spec.kind == ERROR:
        return legion.record_error(error_signature=spec.headline, fix=memory.content.strip(), agent=EXPORT_AGENT,
                                   resolved=True, tags=tags, branch=branch)
    rest = memory.content.strip()[len(memory.first_line):].strip() if memory.content.strip().startswith(
        memory.first_line) else ""
    source = f"mneme task {memory.task_id}" if memory.task_id.strip() else "mneme"
    return legion.record_pattern(pattern=spec.headline, context=rest, source=source, tags=tags, branch=branch)


def _find_link(plan: _Plan, spec: _Export, claimed: set[int]) -> _Incoming | None:
    """The unpaired record of the target file that mirrors ``spec`` (the appended row, or an identical one)."""
    if plan.by_headline is None:
        plan.by_headline = defaultdict(list)
        for item in plan.incoming:
            if item.match is None:
                plan.by_headline[(item.file, item.record.kind, headline(item.record))].append(item)
    pool = [
        i for i in plan.by_headline.get((spec.file, spec.kind, spec.headline), [])
        if i.link is None and id(i) not in claimed
    ]
    if not pool:
        return None
    stored = spec.result.record if spec.result is not None else None
    if stored is not None:
        for test in (lambda i: i.record.id == stored.id and i.record.line == stored.line,
                     lambda i: i.record.id == stored.id):
            found = [i for i in pool if test(i)]
            if found:
                return found[-1]
        return pool[-1]
    return pool[0]


def _candidates(store: Store, project: str, rows: list[mt.MirrorRow]) -> list[_Export]:
    known = {row.memory_id for row in rows}
    found: list[Memory] = []
    for kind in EXPORT_KINDS:
        found += store.list(status=K.ACTIVE, repo_id=project, kind=kind, limit=None, order="id")
    return [_export_spec(m) for m in sorted(found, key=lambda m: m.id) if m.id not in known]


def _export(store: Store, legion: LegionMemory, project: str, rows: list[mt.MirrorRow], report: SyncReport
            ) -> tuple[MemoryReport, _Plan, list[_Export]]:
    files = legion.read_all()
    plan = _plan(files, rows)
    specs = _candidates(store, project, rows)
    if not specs:
        return files, plan, []
    settings = legion.settings
    claimed: set[int] = set()
    pending = []
    for spec in specs:
        found = _find_link(plan, spec, claimed)
        if found is None:
            pending.append(spec)
        else:
            claimed.add(id(found))
    if pending and not settings.enabled:
        report.warnings.append(
            f"memory.enabled is false in .planning/settings.json: {len(pending)} store memories not exported"
        )
        specs = [s for s in specs if s not in pending]
        pending = []
    wrote = False
    branch = legion.branch() if pending else ""
    for spec in pending:
        target = files.file(spec.file)
        if target is not None and target.exists and not target.parseable:
            spec.outcome = ExportedMemory(spec.memory.id, spec.memory.kind, spec.file, "failed",
                                          message=f"{spec.file} did not parse; not exported")
            continue
        try:
            spec.result = _append(legion, spec, branch)
        except MnemeError as exc:
            first = exc.message.splitlines()[0] if exc.message else str(exc)
            spec.outcome = ExportedMemory(spec.memory.id, spec.memory.kind, spec.file, "failed", message=first)
            continue
        wrote = wrote or spec.result.action in ("created", "updated")
    if wrote:
        files = legion.read_all()
        plan = _plan(files, rows)
    return files, plan, specs


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
    with _gc_paused(), store.write_transaction():
        rows = mt.load_rows(store.db, project)
        files, plan, exports = _export(store, legion, project, rows, report)
        _write(store, project, plan, exports, report)
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


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector off while a sync builds thousands of short-lived objects.

    They form no reference cycles (reference counting frees them), so the collection passes their
    allocations trigger only walk them: about 0.2 s of a 10,000-record first sync.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _write(store: Store, project: str, plan: _Plan, exports: list[_Export], report: SyncReport) -> None:
    db = store.db
    now = config.now().isoformat(sep=" ")
    if plan.dangling:
        mt.delete_rows(db, [row.memory_id for row in plan.dangling])

    # store-side memories that now have a record: link them (no new memory)
    merged_rows: list[tuple] = []
    for spec in exports:
        if spec.outcome is not None:  # failed: offered again next sync
            report.exports.append(spec.outcome)
            continue
        target = _find_link(plan, spec, set())
        if target is not None:
            target.link = spec.memory
            action = "appended" if spec.result is not None else "linked"
            report.exports.append(ExportedMemory(spec.memory.id, spec.memory.kind, target.file, action,
                                                 target.record.id))
            report.file(target.file).exported += 1
            continue
        if spec.result is None:  # cannot happen (the record was there a moment ago); offer it again next sync
            report.exports.append(ExportedMemory(spec.memory.id, spec.memory.kind, spec.file, "failed",
                                                 message="the matching record went away during the sync"))
            continue
        stored = spec.result.record
        if spec.result.action == "created":
            message = "the appended record was not found again; not offered again"
            report.warnings.append(f"memory {spec.memory.id}: {message} ({spec.file})")
        else:
            message = f"{spec.file} already knows this error signature"
        report.exports.append(ExportedMemory(spec.memory.id, spec.memory.kind, spec.file, "merged", stored.id, message))
        merged_rows.append((
            spec.memory.id, project, spec.file, spec.file, spec.kind, f"merged:{spec.memory.id}", 0, stored.id, "",
            record_json(stored), 0, mt.STORE_ORIGIN, mt.MERGED,
            spec.memory.status, spec.memory.superseded_by, now,
        ))
    mt.insert_rows(db, merged_rows)

    counts = {name: defaultdict(int) for name in ("added", "updated", "unchanged", "removed")}
    fresh = [i for i in plan.incoming if i.match is None and i.link is None]
    minted = store.mint_ids([
        dict(content=memory_content(i.record), kind=memory_kind(i.record), topic=memory_topic(i.record),
             repo_id=project, task_id=memory_task_id(i.record), created_at=created_at(i.record),
             provenance=mt.provenance(i.file, i.identity))
        for i in fresh
    ]) if fresh else []
    new_rows: list[tuple] = []
    for item, memory_id in zip(fresh, minted):
        item.memory_id = memory_id
        item.counted = "added"
        counts["added"][item.file] += 1
        new_rows.append(_new_row(item, project, memory_id, mt.FILE_ORIGIN, (K.ACTIVE, 0), now))
    for item in plan.incoming:
        if item.link is not None:
            item.memory_id = item.link.id
            item.status = (item.link.status, item.link.superseded_by)
            new_rows.append(_new_row(item, project, item.link.id, mt.STORE_ORIGIN, item.status, now))
    mt.insert_rows(db, new_rows)

    for item in plan.incoming:
        if item.match is not None:
            _update_matched(store, project, item, now, counts)

    _reconcile_statuses(store, plan, now, counts)
    for name, per_file in counts.items():
        for file_name, value in per_file.items():
            setattr(report.file(file_name), name, getattr(report.file(file_name), name) + value)


def _new_row(item: _Incoming, project: str, memory_id: int, origin: str, status: tuple[str, int], now: str
             ) -> tuple:
    """A ``legion_records`` row for ``item`` (columns in ``mt.insert_rows`` order)."""
    return (
        memory_id, project, item.family, item.file, item.record.kind, item.identity, item.occurrence,
        item.record.id, item.hash, item.columns, int(item.archived), origin, mt.LINKED,
        status[0], status[1], now,
    )


def _update_matched(store: Store, project: str, item: _Incoming, now: str, counts: dict) -> None:
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
        content, topic, task_id = memory_content(item.record), memory_topic(item.record), memory_task_id(item.record)
        if row.memory_kind != kind:
            # a memory's kind is fixed: mint the right kind and let it supersede the old memory
            status = K.ACTIVE if item.owned else row.memory_status
            new = store.mint(content, kind=kind, topic=topic, repo_id=project, task_id=task_id,
                             created_at=created_at(item.record), status=status,
                             provenance=mt.provenance(item.file, item.identity))
            if item.owned:
                store.set_status([row.memory_id], K.SUPERSEDED, superseded_by=new.id,
                                 reason=f"{item.file} {item.identity}: kind changed to {kind}")
            mt.move_row(store.db, row.memory_id, new.id)
            item.memory_id = new.id
            item.status = (status, 0)
            fields.update(sync_status=status, sync_superseded_by=0)
        else:
            store.update_content(row.memory_id, content=content, topic=topic, task_id=task_id)
        fields.update(content_hash=item.hash, columns=item.columns)
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


def _marker(item: _Incoming) -> str:
    record = item.record
    marker = record.superseded_by or (record.extra.get("superseded_by", "") if record.extra else "")
    if not marker:
        return ""
    marker = marker.strip()
    return "" if marker.upper() == record.id.strip().upper() else marker


def _marker_targets(plan: _Plan) -> tuple[dict[tuple[str, str, str], int], dict[str, int]]:
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


def _reconcile_statuses(store: Store, plan: _Plan, now: str, counts: dict) -> None:
    """Give each record's memory the status its file implies, where the sync still owns that status."""
    targets = None  # built at the first marker (most files have none)
    wanted: dict[tuple[str, int, str], list[int]] = defaultdict(list)
    touched: dict[int, tuple[str, int]] = {}
    for item in plan.incoming:
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
            touched[item.memory_id] = status
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
            fields.update(sync_status=K.SUPERSEDED, sync_superseded_by=0)
        mt.update_row(store.db, row.memory_id, **fields)

    for (status, superseded_by, reason), ids in wanted.items():
        for start in range(0, len(ids), _STATUS_CHUNK):
            store.set_status(ids[start : start + _STATUS_CHUNK], status, reason=reason, superseded_by=superseded_by)
    for memory_id, (status, superseded_by) in touched.items():
        mt.update_row(store.db, memory_id, sync_status=status, sync_superseded_by=superseded_by, synced_at=now)


