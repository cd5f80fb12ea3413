"""Prune (spec §7.5): move old, low-importance outcome rows from OUTCOMES.md to ARCHIVE.md.

A record is a candidate when it is older than ``prune_age_days``, has importance <= 3 and is not
from the current phase. Every other record is listed as kept with its reason: ``high importance``
(4-5), ``current phase``, ``recent``, or ``undated`` (a date that does not parse is never pruned).

Apply: under the folder lock, re-read OUTCOMES.md, write an intent journal (``.prune-journal.json``:
the exact rows to move), move the rows (byte for byte when the archive table has the same columns),
write ARCHIVE.md then OUTCOMES.md, verify, drop the journal. The move is idempotent - a row already in
ARCHIVE.md is never added again - so a journal a crash left behind is simply rolled forward by the next
write, prune or sync (:func:`finish_interrupted_prune`): a kill at any point leaves no duplicate. Each
write is checked against other writers and redone on new content (see :mod:`mneme_tui.legion.markdown.storage`).
If verification fails, both files are restored (only while they still hold what prune wrote) and the
result carries the records as text; so does an ARCHIVE.md that is a directory (nothing is changed).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from mneme_tui.errors import ERR_IO, MnemeError
from mneme_tui.legion.markdown.cells import join_row
from mneme_tui.legion.markdown.document import Document, Segment, parse, renumber
from mneme_tui.legion.markdown.folder_lock import DEFAULT_LOCK_TIMEOUT, memory_lock
from mneme_tui.legion.markdown.inplace import unpadded
from mneme_tui.legion.markdown.legion_records import OutcomeRecord, record_text, values_for_fields
from mneme_tui.legion.markdown.planning import MemorySettings
from mneme_tui.legion.markdown.schemas import ARCHIVE, OUTCOMES
from mneme_tui.legion.markdown.storage import (
    MAX_REDO,
    FileState,
    atomic_write,
    load_document,
    read_state,
    replace_if_unchanged,
    restore_if_ours,
    write_if_unchanged,
    write_point,
)
from mneme_tui.legion.skill.scoring import parse_record_date

NO_CANDIDATES = (
    "No records eligible for pruning. All records are either recent, high-importance, or in the current phase."
)
VERIFY_FAILED = "Prune verification failed. OUTCOMES.md restored to pre-prune state."
JOURNAL_NAME = ".prune-journal.json"


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
    plan = PrunePlan(
        today.isoformat(), current_phase, settings.prune_age_days, 0, warnings=[*outcomes.warnings, *settings.warnings]
    )
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


def apply_prune(
    memory_dir: Path, plan: PrunePlan, *, default_branch: str, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
) -> PruneResult:
    """Move the plan's candidates that are still present (journalled, see module doc); verify."""
    preserved = (plan.kept_count("high importance"), plan.kept_count("current phase"))
    arc_path = memory_dir / ARCHIVE.file_name

    def failed(reason: str) -> PruneResult:
        message = f"{VERIFY_FAILED} {reason}".strip()
        return PruneResult(
            False,
            0,
            plan.total_records,
            *preserved,
            -1,
            message,
            records_text="\n".join(record_text(e.record) for e in plan.candidates),
            warnings=[message],
        )

    if plan.candidates and arc_path.is_dir():
        return failed(
            f"{arc_path} is a directory, not a file: move it aside and run prune again. "
            "Nothing was pruned; the records are listed below."
        )
    try:
        moved = _apply_locked(memory_dir, plan, default_branch, lock_timeout) if plan.candidates else []
    except UnicodeDecodeError:
        return failed("OUTCOMES.md or ARCHIVE.md is not UTF-8 text; nothing was pruned.")
    except _Unparseable as exc:
        return failed(f"{exc} Nothing was pruned.")
    except MnemeError as exc:
        return failed(exc.message)
    except OSError as exc:
        return failed(f"could not write {exc.filename or memory_dir}: {exc.strerror or exc}")
    remaining = len(load_document(memory_dir / OUTCOMES.file_name, default_branch=default_branch).records)
    total = len(load_document(arc_path, default_branch=default_branch).records)
    if not moved:
        return PruneResult(
            True, 0, remaining if plan.candidates else plan.total_records, *preserved, total, NO_CANDIDATES
        )
    message = (
        f"Pruned {len(moved)} records → .planning/memory/ARCHIVE.md\n"
        f"Remaining: {remaining} active records\n"
        f"Preserved: {preserved[0]} high-importance (4-5), {preserved[1]} current-phase\n"
        f"Archive total: {total} records"
    )
    return PruneResult(True, len(moved), remaining, *preserved, total, message, archived_ids=[r.id for r in moved])


def _apply_locked(memory_dir: Path, plan: PrunePlan, default_branch: str, lock_timeout: float) -> list[OutcomeRecord]:
    """Under the lock: journal the candidate rows still in OUTCOMES.md, move them, verify, drop the journal."""
    out_path, arc_path, journal = (memory_dir / name for name in (OUTCOMES.file_name, ARCHIVE.file_name, JOURNAL_NAME))
    with memory_lock(memory_dir, lock_timeout):
        _roll_forward(memory_dir, default_branch)
        out_state, arc_state = read_state(out_path), read_state(arc_path)
        if out_state.data is None:
            raise MnemeError(ERR_IO, "OUTCOMES.md does not exist; nothing was pruned.")
        present = {
            s.text.rstrip("\r\n") for s in _parsed(out_path, out_state, "", default_branch).segments if s.kind == "row"
        }
        rows = [line for e in plan.candidates if (line := e.row_text.rstrip("\r\n")) in present]
        if not rows:
            return []
        atomic_write(journal, json.dumps({"rows": rows}) + "\n", like=out_path)  # it holds OUTCOMES.md rows
        try:
            moved, out_written, arc_written = _move_rows(memory_dir, rows, default_branch)
        except OSError:  # the move put ARCHIVE.md back; the journal must not finish it later
            journal.unlink(missing_ok=True)
            raise
        write_point("prune:written")
        ok = verify_prune(memory_dir, rows, moved, default_branch)
        if not ok:
            restore_if_ours(out_path, out_state.data, out_written)
            restore_if_ours(arc_path, arc_state.data, arc_written)
        journal.unlink(missing_ok=True)
        if not ok:
            raise MnemeError(ERR_IO, "")
        return moved


class _Unparseable(Exception):
    """OUTCOMES.md or ARCHIVE.md did not parse: nothing is moved."""


def _parsed(path: Path, state: FileState, template: str, default_branch: str) -> Document:
    text = template if state.data is None else state.data.decode("utf-8")
    document = parse(text, path.name, default_branch=default_branch)
    if not document.parseable:
        raise _Unparseable(" ".join(document.warnings))
    return document


def _move_rows(memory_dir: Path, rows: list[str], default_branch: str) -> tuple[list[OutcomeRecord], bytes, bytes]:
    """Move the OUTCOMES.md rows whose text is in ``rows`` to ARCHIVE.md, idempotently (under the lock).

    A row already in ARCHIVE.md is not added again; a row no longer in OUTCOMES.md is not looked for.
    ARCHIVE.md is written first; each write is checked against other writers and redone on new content.
    Returns the moved records and the bytes written to OUTCOMES.md and ARCHIVE.md.
    """
    out_path = memory_dir / OUTCOMES.file_name
    arc_path = memory_dir / ARCHIVE.file_name
    wanted = set(rows)
    for _ in range(MAX_REDO):
        out_state, arc_state = read_state(out_path), read_state(arc_path)
        if out_state.data is None:
            return [], b"", b""
        outcomes = _parsed(out_path, out_state, "", default_branch)
        archive = _parsed(arc_path, arc_state, ARCHIVE.template, default_branch)
        anchor = archive.last_table_segment(ARCHIVE.kind)
        archive_fields = archive.segments[anchor].table.fields if anchor is not None else list(ARCHIVE.fields)  # type: ignore[union-attr]
        moved = [s for s in outcomes.segments if s.kind == "row" and s.text.rstrip("\r\n") in wanted]
        outcomes.segments = [s for s in outcomes.segments if not (s.kind == "row" and s.text.rstrip("\r\n") in wanted)]
        for segment in moved + outcomes.segments:  # a shrink beside an open writer padded its last line
            segment.lines = [unpadded(line) for line in segment.lines]
        _add_to_archive(archive, moved, archive_fields)
        renumber(outcomes)
        renumber(archive)
        arc_before = ARCHIVE.template if arc_state.data is None else arc_state.data.decode("utf-8")
        arc_after = archive.render()
        if arc_after != arc_before and not write_if_unchanged(
            arc_path, arc_state, arc_before, arc_after, like=out_path
        ):
            continue
        out_after = outcomes.render().encode("utf-8")
        try:
            if moved and not replace_if_unchanged(out_path, out_after, out_state):
                continue
        except OSError:
            restore_if_ours(arc_path, arc_state.data, arc_after.encode("utf-8"))  # keep the pair as it was
            raise
        records = [s.record for s in moved if isinstance(s.record, OutcomeRecord)]
        return records, out_after, arc_after.encode("utf-8")
    raise MnemeError(ERR_IO, "OUTCOMES.md or ARCHIVE.md kept changing while prune was writing them")


def _add_to_archive(archive: Document, moved: list[Segment], archive_fields: list[str]) -> None:
    """Append each moved row to ``archive`` (byte for byte when the layouts match) unless it is already there."""
    archived_lines = {line.rstrip("\r\n") for s in archive.segments if s.kind == "row" for line in s.lines}
    for segment in moved:
        record = segment.record
        assert isinstance(record, OutcomeRecord)
        same_layout = segment.table is not None and segment.fields == archive_fields
        line = segment.text.rstrip("\r\n") if same_layout else join_row(values_for_fields(record, archive_fields))
        if line not in archived_lines:
            archive.append_row(record, ARCHIVE, raw=line)
            archived_lines.add(line)


def verify_prune(memory_dir: Path, rows: list[str], moved: list[OutcomeRecord], default_branch: str) -> bool:
    """Spec §7.5 step 7: no moved row is left in OUTCOMES.md and each is in ARCHIVE.md."""
    outcomes = load_document(memory_dir / OUTCOMES.file_name, default_branch=default_branch)
    archive = load_document(memory_dir / ARCHIVE.file_name, default_branch=default_branch)
    if not outcomes.parseable or not archive.parseable:
        return False
    left = {s.text.rstrip("\r\n") for s in outcomes.segments if s.kind == "row"}
    archived = {(r.id, r.date, r.agent, r.summary) for r in archive.records if isinstance(r, OutcomeRecord)}
    return not left & set(rows) and all((r.id, r.date, r.agent, r.summary) in archived for r in moved)


def _roll_forward(memory_dir: Path, default_branch: str) -> None:
    """Finish the move a journal left behind by a crash (under the lock), then drop the journal."""
    journal = memory_dir / JOURNAL_NAME
    try:
        rows = json.loads(journal.read_text(encoding="utf-8"))["rows"]
    except FileNotFoundError:
        return
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        rows = []  # written atomically, so never partial; anything else is not ours to act on
    if rows:
        _move_rows(memory_dir, [str(row) for row in rows], default_branch)  # idempotent: redoing it is safe
    journal.unlink(missing_ok=True)


def finish_interrupted_prune(
    memory_dir: Path, *, default_branch: str, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
) -> None:
    """Roll a crashed prune's journal forward (every write and sync starts with this; cheap when none).

    When that cannot be done now (a lock timeout, a write error, a file that does not parse) the journal
    is kept for the next attempt and the caller goes on.
    """
    if not (memory_dir / JOURNAL_NAME).exists():
        return
    try:
        with memory_lock(memory_dir, lock_timeout):
            _roll_forward(memory_dir, default_branch)
    except (OSError, MnemeError, _Unparseable, UnicodeDecodeError):
        return  # the journal stays; the next write or sync tries again
