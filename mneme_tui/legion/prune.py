"""Prune (spec §7.5): move old, low-importance outcome rows from OUTCOMES.md to ARCHIVE.md.

A record is a candidate when it is older than ``prune_age_days``, has importance <= 3 and is not
from the current phase. Every other record is listed as kept with its reason: ``high importance``
(4-5), ``current phase``, ``recent``, or ``undated`` (a date that does not parse is never pruned).

Apply: under the folder lock, re-read both files, move the candidate rows (byte for byte when the
archive table has the same columns), write ARCHIVE.md then OUTCOMES.md, re-read and verify both.
If verification or a write fails, both files are restored and the result carries the records as text.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from mneme_tui.legion.document import Document, parse, renumber
from mneme_tui.legion.planning import MemorySettings
from mneme_tui.legion.records import OutcomeRecord, record_text
from mneme_tui.legion.schemas import ARCHIVE, OUTCOMES
from mneme_tui.legion.scoring import parse_record_date
from mneme_tui.legion.storage import (
    DEFAULT_LOCK_TIMEOUT,
    atomic_write,
    load_document,
    memory_lock,
    read_bytes,
    restore,
)

NO_CANDIDATES = (
    "No records eligible for pruning. All records are either recent, high-importance, or in the current phase."
)
VERIFY_FAILED = "Prune verification failed. OUTCOMES.md restored to pre-prune state."


@dataclass
class PruneEntry:
    """One outcome in a plan: the record, why it is archived or kept, and its exact row text."""

    record: OutcomeRecord
    reason: str
    days_old: int | None
    row_text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"record": self.record.to_json(), "reason": self.reason, "days_old": self.days_old}


@dataclass
class PrunePlan:
    """Every candidate and every kept record, with the settings and phase used to decide."""

    as_of: str
    current_phase: int | None
    prune_age_days: int
    total_records: int
    candidates: list[PruneEntry] = field(default_factory=list)
    kept: list[PruneEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def message(self) -> str:
        return "" if self.candidates else NO_CANDIDATES

    def kept_count(self, reason: str) -> int:
        return sum(1 for entry in self.kept if entry.reason == reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of,
            "current_phase": self.current_phase,
            "prune_age_days": self.prune_age_days,
            "total_records": self.total_records,
            "candidates": [e.to_json() for e in self.candidates],
            "kept": [e.to_json() for e in self.kept],
            "warnings": list(self.warnings),
            "message": self.message,
        }


@dataclass
class PruneResult:
    """What apply did; on failure ``ok`` is False, files are restored and ``records_text`` lists them."""

    ok: bool
    archived: int
    remaining: int
    preserved_high_importance: int
    preserved_current_phase: int
    archive_total: int
    message: str
    archived_ids: list[str] = field(default_factory=list)
    records_text: str = ""
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _same_phase(phase: str, current: int | None) -> bool:
    if current is None:
        return False
    try:
        return int(phase.strip()) == current
    except ValueError:
        return False


def plan_prune(outcomes: Document, today: date, settings: MemorySettings, current_phase: int | None) -> PrunePlan:
    """Classify every outcome row of ``outcomes`` (see module doc)."""
    plan = PrunePlan(today.isoformat(), current_phase, settings.prune_age_days, 0,
                     warnings=[*outcomes.warnings, *settings.warnings])
    for segment in outcomes.segments:
        record = segment.record
        if segment.kind != "row" or not isinstance(record, OutcomeRecord):
            continue
        plan.total_records += 1
        when = parse_record_date(record.date)
        days_old = (today - when).days if when else None
        if record.importance >= 4:
            reason = "high importance"
        elif _same_phase(record.phase, current_phase):
            reason = "current phase"
        elif days_old is None:
            reason = "undated"
        elif days_old <= settings.prune_age_days:
            reason = "recent"
        else:
            plan.candidates.append(PruneEntry(record, "old, low importance", days_old, segment.text))
            continue
        plan.kept.append(PruneEntry(record, reason, days_old, segment.text))
    return plan


def verify_prune(outcomes: Document, archive: Document, expected_outcomes: int, expected_archive: int,
                 moved_lines: list[str]) -> bool:
    """Spec §7.5 step 7: record counts add up and every moved row is in ARCHIVE.md."""
    if not outcomes.parseable or not archive.parseable:
        return False
    if len(outcomes.records) != expected_outcomes or len(archive.records) != expected_archive:
        return False
    archive_lines = {line.rstrip("\r\n") for segment in archive.segments for line in segment.lines}
    return all(line.rstrip("\r\n") in archive_lines for line in moved_lines)


def apply_prune(memory_dir: Path, plan: PrunePlan, *, default_branch: str,
                lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> PruneResult:
    """Move the plan's candidates that are still present, verify, restore both files on failure."""
    preserved_hi = plan.kept_count("high importance")
    preserved_phase = plan.kept_count("current phase")
    out_path = memory_dir / OUTCOMES.file_name
    arc_path = memory_dir / ARCHIVE.file_name
    if not plan.candidates:
        archive_total = len(load_document(arc_path, default_branch=default_branch).records)
        return PruneResult(True, 0, plan.total_records, preserved_hi, preserved_phase, archive_total, NO_CANDIDATES)
    as_text = "\n".join(record_text(e.record) for e in plan.candidates)

    def failed(message: str, archive_total: int = -1) -> PruneResult:
        return PruneResult(False, 0, plan.total_records, preserved_hi, preserved_phase, archive_total,
                           message, records_text=as_text, warnings=[message])

    with memory_lock(memory_dir, lock_timeout):
        out_bytes = read_bytes(out_path)
        arc_bytes = read_bytes(arc_path)
        if out_bytes is None:
            return failed("OUTCOMES.md does not exist; nothing was pruned.")
        try:
            outcomes = parse(out_bytes.decode("utf-8"), OUTCOMES.file_name, default_branch=default_branch)
            archive_text = ARCHIVE.template if arc_bytes is None else arc_bytes.decode("utf-8")
            archive = parse(archive_text, ARCHIVE.file_name, default_branch=default_branch)
        except UnicodeDecodeError:
            return failed("OUTCOMES.md or ARCHIVE.md is not UTF-8 text; nothing was pruned.")
        if not outcomes.parseable or not archive.parseable:
            return failed(" ".join([*outcomes.warnings, *archive.warnings]) + " Nothing was pruned.")

        wanted = {(e.record.key, e.row_text) for e in plan.candidates}
        before_out, before_arc = len(outcomes.records), len(archive.records)
        moved = [s for s in outcomes.segments if s.record is not None and (s.record.key, s.text) in wanted]
        if not moved:
            return PruneResult(True, 0, before_out, preserved_hi, preserved_phase, before_arc, NO_CANDIDATES)
        moved_lines: list[str] = []
        anchor = archive.last_table_segment(ARCHIVE.kind)
        archive_fields = archive.segments[anchor].table.fields if anchor is not None else list(ARCHIVE.fields)  # type: ignore[union-attr]
        for segment in moved:
            outcomes.segments.remove(segment)
            same_layout = segment.table is not None and segment.table.fields == archive_fields
            added = archive.append_row(segment.record, ARCHIVE, raw=segment.text if same_layout else None)  # type: ignore[arg-type]
            moved_lines.append(added.text)
        renumber(outcomes)
        renumber(archive)
        try:
            atomic_write(arc_path, archive.render())
            atomic_write(out_path, outcomes.render())
            re_out = _reread(out_path, OUTCOMES.file_name, default_branch)
            re_arc = _reread(arc_path, ARCHIVE.file_name, default_branch)
            ok = verify_prune(re_out, re_arc, before_out - len(moved), before_arc + len(moved), moved_lines)
        except OSError as exc:
            ok = False
            as_text = f"{as_text}\n(write error: {exc.strerror or exc})"
        if not ok:
            try:
                restore(out_path, out_bytes)
                restore(arc_path, arc_bytes)
            except OSError:
                pass
            return failed(VERIFY_FAILED, before_arc)
    archived = len(moved)
    remaining = sum(1 for s in outcomes.segments if s.kind == "row" and isinstance(s.record, OutcomeRecord))
    total = before_arc + archived
    message = (
        f"Pruned {archived} records → .planning/memory/ARCHIVE.md\n"
        f"Remaining: {remaining} active records\n"
        f"Preserved: {preserved_hi} high-importance (4-5), {preserved_phase} current-phase\n"
        f"Archive total: {total} records"
    )
    return PruneResult(True, archived, remaining, preserved_hi, preserved_phase, total, message,
                       archived_ids=[s.record.id for s in moved if s.record is not None])


def _reread(path: Path, name: str, default_branch: str) -> Document:
    data = read_bytes(path)
    return parse("" if data is None else data.decode("utf-8"), name, default_branch=default_branch)
