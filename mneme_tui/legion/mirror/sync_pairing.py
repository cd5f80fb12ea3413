"""Pairing the records of a Legion memory folder with their companion rows (the sync's plan).

See :mod:`mneme_tui.legion.mirror.sync` for the identity and pairing rules.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from mneme_tui.legion.markdown.legion_records import Record
from mneme_tui.legion.markdown.schemas import ARCHIVE, OUTCOMES
from mneme_tui.legion.mirror import record_mapping as mt
from mneme_tui.legion.mirror.record_mapping import (
    OUTCOMES_FAMILY,
    content_hash,
    family_of,
    record_identity,
    record_json,
)
from mneme_tui.legion.skill.read_results import FileReport, MemoryReport
from mneme_tui.memory import kinds as K
from mneme_tui.memory.records import Memory


@dataclass(slots=True)
class Incoming:
    """One record read from a file, with its identity and (once planned) what it pairs with.

    Its columns' JSON text is not kept (a large file has hundreds of thousands of records): pairing keeps
    only the content hash, and writing a companion row makes the text again (:meth:`columns_and_hash`)."""

    record: Record
    file: str
    family: str
    identity: str
    occurrence: int
    hash: str = ""  # content hash: set by pairing when there are rows to pair with, else by columns_and_hash
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

    def columns_and_hash(self) -> tuple[str, str]:
        """The record's columns as JSON text (``legion_records.columns``) and its content hash (once made, the
        hash is kept: a record redacted on its way in keeps the hash of the file's row)."""
        text = record_json(self.record)
        self.hash = self.hash or content_hash(self.record.kind, text)
        return text, self.hash


@dataclass
class PairingPlan:
    incoming: list[Incoming]
    vanished: list[mt.MirrorRow]
    dangling: list[mt.MirrorRow]
    by_headline: dict[tuple[str, str, str], list[Incoming]] | None = None


def _file_order(report: MemoryReport) -> list[FileReport]:
    """Files in reading order for occurrences: ARCHIVE.md (older rows) before OUTCOMES.md."""
    return sorted(report.files, key=lambda f: 0 if f.file == ARCHIVE.file_name else 1)


def _incoming(report: MemoryReport) -> list[Incoming]:
    seen: dict[tuple[str, str, str], int] = defaultdict(int)
    out: list[Incoming] = []
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
            out.append(Incoming(record, file, family, identity, occurrence))
    return out


def _broken(report: MemoryReport) -> tuple[set[str], set[str]]:
    """Files that exist but did not parse, and the families they make uncertain."""
    files = {f.file for f in report.files if f.exists and not f.parseable}
    families = set(files)
    if files & {OUTCOMES.file_name, ARCHIVE.file_name}:
        families.add(OUTCOMES_FAMILY)
    return files, families


def pair_records(report: MemoryReport, rows: list[mt.MirrorRow]) -> PairingPlan:
    """Pair every record with a companion row (same identity: equal hash first, then occurrence order)."""
    broken_files, broken_families = _broken(report)
    incoming = _incoming(report)
    dangling = [r for r in rows if r.memory_status is None]
    existing: dict[tuple[str, str, str], list[mt.MirrorRow]] = defaultdict(list)
    for row in rows:
        if row.memory_status is not None and row.state == mt.LINKED and row.source_file not in broken_files:
            existing[row.key].append(row)
    if not existing:  # nothing to pair with (a first sync): every record is new
        return PairingPlan(incoming, [], dangling)
    groups: dict[tuple[str, str, str], list[Incoming]] = defaultdict(list)
    for item in incoming:
        item.hash = content_hash(item.record.kind, record_json(item.record))
        groups[item.key].append(item)
    for key, items in groups.items():
        left = sorted(existing.pop(key, []), key=lambda r: r.occurrence)
        by_hash: dict[str, list[mt.MirrorRow]] = defaultdict(list)
        for row in left:
            by_hash[row.content_hash].append(row)
        unpaired: list[Incoming] = []
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
            existing[key] = rest[len(unpaired) :]
    vanished = [
        row
        for rows_left in existing.values()
        for row in rows_left
        if row.family not in broken_families and row.source_file not in broken_files
    ]
    return PairingPlan(incoming, vanished, dangling)
