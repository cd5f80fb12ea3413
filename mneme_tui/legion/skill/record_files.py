"""Storing records in the memory files (spec §3, §8, §9, §13): IDs, importance, task-type inference,
error de-duplication.

- Next ID = highest ``{prefix}-NNN`` in the file **and** ARCHIVE.md, plus one, zero-padded to three
  digits. (The spec's "count + 1" re-issues IDs after a prune or a merge; the highest ID never does.)
- A new row goes after the last row of the last fragment of the file's table, in that table's own
  column layout (a 9-column table without ID/Branch gets a 9-column row). A file holding no table of
  its kind (only ``## PAT/PIT/PRF`` blocks, or ``## Phase`` notes) gets a canonical table section
  (``## Records`` / ``## Patterns`` / ``## Errors`` / ``## Preferences``) appended at its end.
- A table without a Branch column (a legacy 10-column OUTCOMES.md) gets one before a new row is
  added (:func:`mneme_tui.legion.markdown.table_migration.migrate_for_new_row`), in the same checked write.
- A record with ``layout="block"`` (the sync's export of a store-side preference) is appended at the
  end of the file as a ``/legion:learn`` heading block, ``## PRF-NNN: title`` (:func:`_add_block`).
- Heading blocks are never rewritten; error de-duplication only looks at table rows.
- Several records for one file are stored with one write (:func:`store_records`); when the table ends
  the file that write is an append (see :mod:`mneme_tui.legion.markdown.storage`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.markdown.agent_catalog import Catalog
from mneme_tui.legion.markdown.blocks import block_text, record_from_block
from mneme_tui.legion.markdown.cells import join_row
from mneme_tui.legion.markdown.document import Document, renumber
from mneme_tui.legion.markdown.legion_records import ErrorRecord, Record, record_text, values_for_fields
from mneme_tui.legion.markdown.schemas import ARCHIVE, BLOCK_KINDS, ERRORS, TableSchema, reject_placeholders
from mneme_tui.legion.markdown.storage import load_document, modify_file
from mneme_tui.legion.markdown.table_migration import migrate_for_new_row
from mneme_tui.legion.skill.errormatch import similar

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


def highest_id(prefix: str, documents: Iterable[Document]) -> int:
    """The highest ``NNN`` of ``{prefix}-NNN`` IDs in ``documents`` (0 when none).

    Counts records and also every table-looking line whose first cell is such an ID (a row without a
    trailing pipe, or under a missing header, is no record but its ID is never issued again).
    """
    pattern = re.compile(rf"^{re.escape(prefix)}-(\d+)$")
    line_ids = re.compile(rf"^[ \t]*\|[ \t]*{re.escape(prefix)}-(\d+)[ \t]*(?:\||$)", re.MULTILINE)
    highest = 0
    for document in documents:
        for record in document.records:
            match = pattern.match(record.id.strip())
            if match:
                highest = max(highest, int(match.group(1)))
        for match in line_ids.finditer(document.render()):
            highest = max(highest, int(match.group(1)))
    return highest


def require_choice(name: str, value: str, choices: Iterable[str]) -> str:
    clean = value.strip().lower()
    options = tuple(choices)
    if clean not in options:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{name} must be one of {', '.join(options)}; got {value!r}")
    return clean


class _Ids:
    """Hands out the next IDs of one file: computed once per write, then counted up."""

    def __init__(self, schema: TableSchema, document: Document, archive: Document) -> None:
        self.schema = schema
        self.document = document
        self.last = highest_id(schema.id_prefix, [document, archive])

    def assign(self, record: Record) -> Record:
        """``record`` with the next ID (none when the file's table has no ID column)."""
        anchor = self.document.last_table_segment(self.schema.kind)
        table = self.document.segments[anchor].table if anchor is not None else None
        if table is not None and "id" not in table.fields:
            return replace(record, id="")
        self.last += 1
        return replace(record, id=f"{self.schema.id_prefix}-{self.last:03d}")


def _add_error(document: Document, ids: _Ids, record: ErrorRecord) -> tuple[str, Record]:
    """Spec §9 on one document: skip a duplicate with a resolved fix, update an unresolved one, else append."""
    rows = [s for s in document.segments if s.kind == "row" and isinstance(s.record, ErrorRecord)]
    matches = [s for s in rows if similar(s.record.error_signature, record.error_signature)]  # type: ignore[union-attr]
    resolved = [s for s in matches if s.record.resolved]  # type: ignore[union-attr]
    if resolved:
        return "skipped", resolved[0].record  # type: ignore[return-value]
    if matches:
        segment = matches[0]
        old = segment.record
        assert isinstance(old, ErrorRecord) and segment.table is not None
        tags = list(dict.fromkeys([*old.tags, *record.tags]))
        new = replace(old, fix=record.fix, resolved=True, agent=record.agent or old.agent, tags=tags)
        ending = "\r\n" if segment.lines[0].endswith("\r\n") else ("\n" if segment.lines[0].endswith("\n") else "")
        segment.lines = [join_row(values_for_fields(new, segment.table.fields)) + ending]  # in the header's layout
        segment.row_fields = None
        segment.record = new
        return "updated", new
    segment = document.append_row(ids.assign(record), ERRORS)
    assert segment.record is not None
    return "created", segment.record


def _add_block(document: Document, archive: Document, record: Record, default_branch: str) -> Record:
    """Append ``record`` as a heading block with the next ``PRF/PAT/PIT-NNN`` ID: its headline as the title,
    Date, Type, Branch and Tags bullets (only those known) and its ``body``."""
    prefix = next(p for p, kind in BLOCK_KINDS.items() if kind == record.kind)
    block_id = f"{prefix}-{highest_id(prefix, [document, archive]) + 1:03d}"
    title = str(getattr(record, _BLOCK_TITLES[record.kind]))
    tags = ", ".join(record.tags)
    bullets = [("Date", record.date), ("Type", record.kind), ("Branch", record.branch), ("Tags", tags)]
    text = block_text(block_id, title, bullets, record.body)
    stored = record_from_block(text.splitlines(keepends=True), default_branch=default_branch)
    segment = document.append_block(text, stored)
    assert segment.record is not None
    return segment.record


_BLOCK_TITLES = {"preference": "context", "pattern": "pattern", "error": "error_signature"}


def store_records(
    memory_dir: Path,
    schema: TableSchema,
    records: list[Record],
    *,
    default_branch: str,
    lock_timeout: float,
    prepare: Callable[[Record, Document], Record] | None = None,
) -> list[StoreResult]:
    """Store ``records`` in ``schema``'s file with one write (an append when the table ends the file).

    Each gets the next ID (``prepare`` may finish it from the current file); errors follow spec §9
    (:func:`_add_error`). Verified afterwards: every stored row is in the file with its values.
    """
    for record in records:
        reject_placeholders(record.to_json())
    path = memory_dir / schema.file_name
    recovery = ["\n\n".join(record_text(r) for r in records)]  # as written, once the change has run (spec §3 Step 7)

    def change(document: Document) -> list[tuple[str, Record, list[str]]]:
        migrate_for_new_row(document, schema.kind, default_branch=default_branch)  # spec §11: keep the branch
        archive = load_document(memory_dir / ARCHIVE.file_name, default_branch=default_branch)
        done = _add_records(document, archive, schema, records, prepare, default_branch)
        renumber(document)
        recovery[0] = "\n\n".join(record_text(stored) for action, stored in done if action != "skipped") or recovery[0]
        fields = _fields_by_record(document)
        return [
            (action, stored, values_for_fields(stored, fields.get(id(stored), list(schema.fields))))
            for action, stored in done
        ]

    def verify(reread: Document, stored: list[tuple[str, Record, list[str]]]) -> bool:
        return _all_stored(schema, reread, stored)

    stored = modify_file(
        path,
        change,
        template=schema.template,
        verify=verify,
        record_text=lambda: recovery[0],
        default_branch=default_branch,
        lock_timeout=lock_timeout,
    )
    return [
        StoreResult(action, record, schema.file_name, existing_id=record.id if action == "skipped" else "")
        for action, record, _ in stored
    ]


def _add_records(
    document: Document,
    archive: Document,
    schema: TableSchema,
    records: list[Record],
    prepare: Callable[[Record, Document], Record] | None,
    default_branch: str,
) -> list[tuple[str, Record]]:
    """Add each record to ``document`` (a block, an error as spec §9 says, or a row with the next ID), as
    ``(action, stored record)``."""
    ids = _Ids(schema, document, archive)
    done: list[tuple[str, Record]] = []
    for record in records:
        if record.layout == "block":
            done.append(("created", _add_block(document, archive, record, default_branch)))
            continue
        if isinstance(record, ErrorRecord) and schema is ERRORS:
            done.append(_add_error(document, ids, record))
            continue
        final = ids.assign(record)
        if prepare is not None:
            final = prepare(final, document)
        segment = document.append_row(final, schema)
        assert segment.record is not None
        done.append(("created", segment.record))
    return done


def _all_stored(schema: TableSchema, reread: Document, stored: list[tuple[str, Record, list[str]]]) -> bool:
    """Whether every stored record is in the file read back, with the values it was written with."""
    fields = _fields_by_record(reread)
    columns = list(schema.fields)  # a heading block's values are compared under the canonical columns
    by_id: dict[str, list[Record]] = {}
    for found in reread.records:
        if found.kind == schema.kind:
            by_id.setdefault(found.id, []).append(found)
    return all(
        any(values_for_fields(r, fields.get(id(r), columns)) == values for r in by_id.get(record.id, []))
        for _, record, values in stored
    )


def append_record(
    memory_dir: Path,
    schema: TableSchema,
    record: Record,
    *,
    default_branch: str,
    lock_timeout: float,
    prepare: Callable[[Record, Document], Record] | None = None,
) -> StoreResult:
    """Store one record (see :func:`store_records`)."""
    return store_records(
        memory_dir, schema, [record], default_branch=default_branch, lock_timeout=lock_timeout, prepare=prepare
    )[0]


def _fields_by_record(document: Document) -> dict[int, list[str]]:
    """The table columns of every row record, by ``id(record)`` (heading blocks have none)."""
    return {id(s.record): s.fields for s in document.segments if s.record is not None and s.table is not None}
