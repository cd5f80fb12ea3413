"""Store operations (spec §3, §8, §9, §13): IDs, importance, task-type inference, error de-duplication.

- Next ID = highest ``{prefix}-NNN`` in the file **and** ARCHIVE.md, plus one, zero-padded to three
  digits. (The spec's "count + 1" re-issues IDs after a prune or a merge; the highest ID never does.)
- A new row goes after the last row of the last fragment of the file's table, in that table's own
  column layout (a 9-column table without ID/Branch gets a 9-column row). A file holding no table of
  its kind (only ``## PAT/PIT/PRF`` blocks, or ``## Phase`` notes) gets a canonical table section
  (``## Records`` / ``## Patterns`` / ``## Errors`` / ``## Preferences``) appended at its end.
- Heading blocks are never rewritten; error de-duplication only looks at table rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.catalog import Catalog
from mneme_tui.legion.cells import join_row
from mneme_tui.legion.document import Document, renumber
from mneme_tui.legion.errormatch import similar
from mneme_tui.legion.records import (
    ErrorRecord,
    Record,
    record_text,
    values_for_fields,
)
from mneme_tui.legion.schemas import ARCHIVE, ERRORS, TableSchema, reject_placeholders
from mneme_tui.legion.storage import load_document, modify_file

OUTCOMES_VALUES = ("success", "partial", "failed")
SIGNALS = ("positive", "negative", "corrective")
DECISION_POINTS = ("review-verdict", "review-override", "agent-selection", "manual-edit", "fix-acceptance")
GENERAL_TASK_TYPE = "general"


@dataclass
class StoreResult:
    """What a store call did: ``created``, ``updated`` (error fix replaced) or ``skipped`` (duplicate)."""

    action: str
    record: Record
    file: str
    existing_id: str = ""
    prune: Any = None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["record"] = self.record.to_json()
        data["prune"] = self.prune.to_json() if self.prune is not None else None
        return data


def base_importance(
    outcome: str, *, review_escalated: bool = False, review_cycles: int = 0, trivial: bool = False
) -> int:
    """Spec §2 base score: failed 5, escalated review 4, partial or 2+ review cycles 3, trivial 1, else 2."""
    if outcome == "failed":
        return 5
    if review_escalated:
        return 4
    if outcome == "partial" or review_cycles >= 2:
        return 3
    if trivial:
        return 1
    return 2


def importance_with_modifiers(
    base: int, *, first_time: bool = False, cross_division: bool = False, review_blockers: int = 0
) -> int:
    """Base + 1 for each of: first time for this agent/task type, cross-division, 3+ blockers; cap 5."""
    bonus = int(first_time) + int(cross_division) + int(review_blockers >= 3)
    return min(5, base + bonus)


def resolve_task_type(given: str | None, agent: str, catalog: Catalog) -> str:
    """Spec §3 step 4: the given type, else the agent's first CATALOG.md task type, else ``general``."""
    if given and given.strip():
        return given.strip()
    if agent.strip() and agent.strip() != "autonomous":
        found = catalog.first_task_type(agent)
        if found:
            return found
    return GENERAL_TASK_TYPE


def next_id(prefix: str, documents: Iterable[Document]) -> str:
    """``{prefix}-{max+1:03d}`` over every record ID with that prefix in ``documents``."""
    pattern = re.compile(rf"^{re.escape(prefix)}-(\d+)$")
    highest = 0
    for document in documents:
        for record in document.records:
            match = pattern.match(record.id.strip())
            if match:
                highest = max(highest, int(match.group(1)))
    return f"{prefix}-{highest + 1:03d}"


def require_choice(name: str, value: str, choices: Iterable[str]) -> str:
    clean = value.strip().lower()
    options = tuple(choices)
    if clean not in options:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{name} must be one of {', '.join(options)}; got {value!r}")
    return clean


def append_record(
    memory_dir: Path,
    schema: TableSchema,
    record: Record,
    *,
    default_branch: str,
    lock_timeout: float,
    prepare: Callable[[Record, Document], Record] | None = None,
) -> StoreResult:
    """Assign the next ID, let ``prepare`` finish the record from the current file, append, verify."""
    reject_placeholders(record.to_json())
    path = memory_dir / schema.file_name
    holder: dict[str, Any] = {}

    def change(document: Document) -> Record:
        archive = load_document(memory_dir / ARCHIVE.file_name, default_branch=default_branch)
        anchor = document.last_table_segment(schema.kind)
        table = document.segments[anchor].table if anchor is not None else None
        has_id = table is None or "id" in table.fields
        final = replace(record, id=next_id(schema.id_prefix, [document, archive]) if has_id else "")
        if prepare is not None:
            final = prepare(final, document)
        holder["count"] = len(document.records)
        segment = document.append_row(final, schema)
        renumber(document)
        assert segment.record is not None
        holder["values"] = values_for_fields(segment.record, segment.table.fields if segment.table else [])
        return segment.record

    def verify(reread: Document, stored: Record) -> bool:
        found = [r for r in reread.records if r.key == stored.key and r.kind == stored.kind]
        if len(reread.records) != holder["count"] + 1 or len(found) != 1:
            return False
        table_fields = _fields_of(reread, found[0])
        return values_for_fields(found[0], table_fields) == holder["values"]

    stored = modify_file(
        path, change, template=schema.template, verify=verify, record_text=record_text(record),
        default_branch=default_branch, lock_timeout=lock_timeout,
    )
    return StoreResult("created", stored, schema.file_name)


def _fields_of(document: Document, record: Record) -> list[str]:
    for segment in document.segments:
        if segment.record is record and segment.table is not None:
            return segment.table.fields
    return []


def store_error(
    memory_dir: Path,
    record: ErrorRecord,
    *,
    default_branch: str,
    lock_timeout: float,
) -> StoreResult:
    """Spec §9: skip a duplicate with a resolved fix, update an unresolved one, else append."""
    reject_placeholders(record.to_json())
    path = memory_dir / ERRORS.file_name
    outcome: dict[str, Any] = {}

    def change(document: Document) -> Record:
        rows = [s for s in document.segments if s.kind == "row" and isinstance(s.record, ErrorRecord)]
        matches = [s for s in rows if similar(s.record.error_signature, record.error_signature)]  # type: ignore[union-attr]
        resolved = [s for s in matches if s.record.resolved]  # type: ignore[union-attr]
        if resolved:
            outcome["action"] = "skipped"
            return resolved[0].record  # type: ignore[return-value]
        if matches:
            segment = matches[0]
            old = segment.record
            assert isinstance(old, ErrorRecord) and segment.table is not None
            tags = list(dict.fromkeys([*old.tags, *record.tags]))
            new = replace(old, fix=record.fix, resolved=True, agent=record.agent or old.agent, tags=tags)
            ending = "\r\n" if segment.lines[0].endswith("\r\n") else ("\n" if segment.lines[0].endswith("\n") else "")
            segment.lines = [join_row(values_for_fields(new, segment.table.fields)) + ending]
            segment.record = new
            outcome["action"] = "updated"
            outcome["count"] = len(document.records)
            return new
        archive = load_document(memory_dir / ARCHIVE.file_name, default_branch=default_branch)
        anchor = document.last_table_segment(ERRORS.kind)
        table = document.segments[anchor].table if anchor is not None else None
        has_id = table is None or "id" in table.fields
        final = replace(record, id=next_id(ERRORS.id_prefix, [document, archive]) if has_id else "")
        outcome["action"] = "created"
        outcome["count"] = len(document.records) + 1
        segment = document.append_row(final, ERRORS)
        renumber(document)
        assert segment.record is not None
        return segment.record

    def verify(reread: Document, stored: Record) -> bool:
        found = [r for r in reread.records if r.key == stored.key]
        return (
            len(reread.records) == outcome["count"]
            and len(found) == 1
            and isinstance(found[0], ErrorRecord)
            and found[0].fix == stored.fix  # type: ignore[attr-defined]
            and found[0].error_signature == stored.error_signature  # type: ignore[attr-defined]
        )

    stored = modify_file(
        path, change, template=ERRORS.template, verify=verify, record_text=record_text(record),
        default_branch=default_branch, lock_timeout=lock_timeout,
    )
    if outcome["action"] == "skipped":
        return StoreResult("skipped", stored, ERRORS.file_name, existing_id=stored.id)
    return StoreResult(outcome["action"], stored, ERRORS.file_name)
