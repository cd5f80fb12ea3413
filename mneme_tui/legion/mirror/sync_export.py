"""The sync's export: store-side memories appended to the Legion files (rules in :mod:`mneme_tui.legion.mirror.sync`).

Each target file is written once per sync, with all its pending records (one append when the table
ends the file), and without holding the database lock.

Only what is known is written. A store-side preference has no decision point, signal or agent, so it
becomes a ``/legion:learn`` heading block (``## PRF-NNN: first line`` with Date, Type, Branch, Tags and
the rest of the text), which recall reads as a preference with an empty signal (no preference boost).
Pitfalls and patterns leave Agent empty; a pitfall is Resolved only when task sync verified it (task
sync mints one for a gate that failed and then passed), otherwise ``false``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from mneme_tui.errors import MnemeError
from mneme_tui.legion.markdown.blocks import match_heading
from mneme_tui.legion.markdown.legion_records import PreferenceRecord, Record
from mneme_tui.legion.markdown.schemas import ERROR, ERRORS, PATTERN, PATTERNS, PREFERENCE, PREFERENCES
from mneme_tui.legion.mirror import record_mapping as mt
from mneme_tui.legion.mirror.record_mapping import headline
from mneme_tui.legion.mirror.sync_pairing import Incoming, PairingPlan, pair_records
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.legion.skill.record_files import StoreResult
from mneme_tui.memory import kinds as K
from mneme_tui.memory.records import Memory
from mneme_tui.memory.store import Store

EXPORT_KINDS = ("preference", "pitfall", "pattern")
_SCHEMAS = {PREFERENCES.file_name: PREFERENCES, ERRORS.file_name: ERRORS, PATTERNS.file_name: PATTERNS}


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
        return {
            "memory_id": self.memory_id,
            "kind": self.kind,
            "file": self.file,
            "action": self.action,
            "record_id": self.record_id,
            "message": self.message,
        }


@dataclass
class Export:
    """A store memory to append: target file, record kind and the headline it will carry."""

    memory: Memory
    kind: str
    file: str
    headline: str
    result: StoreResult | None = None
    outcome: ExportedMemory | None = None


def _export_spec(memory: Memory) -> Export:
    text = memory.content.strip()
    if memory.kind == "preference":  # the block's title, as the parser will read it back
        title = match_heading(f"## PRF-000: {' '.join(memory.first_line.split())}")
        return Export(memory, PREFERENCE, PREFERENCES.file_name, title.group("title") if title else text)
    if memory.kind == "pitfall":
        signature = memory.topic.strip() if memory.topic.strip() not in ("", "General") else memory.first_line
        return Export(memory, ERROR, ERRORS.file_name, signature)
    return Export(memory, PATTERN, PATTERNS.file_name, memory.first_line)


def _export_tags(memory: Memory) -> list[str]:
    topic = memory.topic.replace(",", ";").strip()
    return [topic] if topic and topic != "General" else []


def _record(legion: LegionMemory, spec: Export, branch: str) -> Record:
    """The Legion record that carries ``spec``'s memory (export rules in :mod:`mneme_tui.legion.mirror.sync`)."""
    memory = spec.memory
    tags = _export_tags(memory)
    rest = (
        memory.content.strip()[len(memory.first_line) :].strip()
        if memory.content.strip().startswith(memory.first_line)
        else ""
    )
    if spec.kind == PREFERENCE:
        return PreferenceRecord(
            date=legion.today().isoformat(), branch=branch, context=spec.headline, tags=tags, layout="block", body=rest
        )
    if spec.kind == ERROR:
        return legion.error_record(
            error_signature=spec.headline,
            fix=memory.content.strip(),
            agent="",
            resolved=memory.verified,
            tags=tags,
            branch=branch,
        )
    source = f"mneme task {memory.task_id}" if memory.task_id.strip() else "mneme"
    return legion.pattern_record(pattern=spec.headline, context=rest, source=source, tags=tags, branch=branch)


def _failed(spec: Export, message: str) -> None:
    spec.outcome = ExportedMemory(spec.memory.id, spec.memory.kind, spec.file, "failed", message=message)


def find_link(plan: PairingPlan, spec: Export, claimed: set[int]) -> Incoming | None:
    """The unpaired record of the target file that mirrors ``spec`` (the appended row, or an identical one)."""
    if plan.by_headline is None:
        plan.by_headline = defaultdict(list)
        for item in plan.incoming:
            if item.match is None:
                plan.by_headline[(item.file, item.record.kind, headline(item.record))].append(item)
    pool = [
        i
        for i in plan.by_headline.get((spec.file, spec.kind, spec.headline), [])
        if i.link is None and id(i) not in claimed
    ]
    if not pool:
        return None
    stored = spec.result.record if spec.result is not None else None
    if stored is not None:
        for test in (
            lambda i: i.record.id == stored.id and i.record.line == stored.line,
            lambda i: i.record.id == stored.id,
        ):
            found = [i for i in pool if test(i)]
            if found:
                return found[-1]
        return pool[-1]
    return pool[0]


def export_candidates(store: Store, project: str, rows: list[mt.MirrorRow]) -> list[Export]:
    """The project's active store-side memories that no record mirrors yet, each with the file it goes to."""
    known = {row.memory_id for row in rows}
    found: list[Memory] = []
    for kind in EXPORT_KINDS:
        found += store.list(status=K.ACTIVE, repo_id=project, kind=kind, limit=None, order="id")
    return [_export_spec(m) for m in sorted(found, key=lambda m: m.id) if m.id not in known]


def export_memories(
    store: Store, legion: LegionMemory, project: str, rows: list[mt.MirrorRow], warnings: list[str]
) -> list[Export]:
    """Append the project's unmirrored store memories to their files (one write per file; no database lock).

    Returns every candidate: appended ones carry ``result``, failed ones ``outcome``; the rest are
    already in a file and are linked by the import.
    """
    specs = export_candidates(store, project, rows)
    if not specs:
        return []
    files = legion.read_all()
    plan = pair_records(files, rows)
    claimed: set[int] = set()
    pending = []
    for spec in specs:
        found = find_link(plan, spec, claimed)
        if found is None:
            pending.append(spec)
        else:
            claimed.add(id(found))
    if pending and not legion.settings.enabled:
        warnings.append(
            f"memory.enabled is false in .planning/settings.json: {len(pending)} store memories not exported"
        )
        return [s for s in specs if s not in pending]
    branch = legion.branch() if pending else ""
    by_file: dict[str, list[tuple[Export, Record]]] = defaultdict(list)
    for spec in pending:
        target = files.file(spec.file)
        if target is not None and target.exists and not target.parseable:
            _failed(spec, f"{spec.file} did not parse; not exported")
            continue
        try:
            by_file[spec.file].append((spec, _record(legion, spec, branch)))
        except MnemeError as exc:
            _failed(spec, exc.message.splitlines()[0] if exc.message else str(exc))
    for file_name, group in by_file.items():
        try:
            results = legion.store(_SCHEMAS[file_name], [record for _, record in group])
        except MnemeError as exc:
            for spec, _ in group:
                _failed(spec, exc.message.splitlines()[0] if exc.message else str(exc))
            continue
        for (spec, _), result in zip(group, results):
            spec.result = result
    return specs
