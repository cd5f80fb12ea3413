"""``mneme purge --markdown``: a purged memory's row in its Legion file gets the purge marker in place of its
text, through the same safe rewrite as every other change to a memory file (``storage.modify_file``)."""

from __future__ import annotations

import dataclasses
from typing import Any

from mneme_tui.legion.markdown.cells import join_row
from mneme_tui.legion.markdown.document import Document
from mneme_tui.legion.markdown.legion_records import Record, values_for_fields
from mneme_tui.legion.markdown.storage import modify_file
from mneme_tui.legion.skill.api import LegionMemory

_KEPT = frozenset(
    {
        "id",
        "date",
        "branch",
        "source_file",
        "line",
        "occurrence",
        "layout",
        "superseded_by",
        "outcome",
        "signal",
        "decision_point",
        "phase",
        "importance",
        "resolved",
    }
)
"""Fields a purged row keeps: its identity, place, date and closed choices (none of them free text)."""


def purged_record(record: Record, marker: str) -> Record:
    """``record`` with every free-text field replaced by ``marker`` (tags and extra columns emptied)."""
    changes: dict[str, Any] = {}
    for field in dataclasses.fields(record):
        value = getattr(record, field.name)
        if field.name in _KEPT:
            continue
        if isinstance(value, str) and value:
            changes[field.name] = marker
        elif isinstance(value, list | dict) and value:
            changes[field.name] = type(value)()
    return dataclasses.replace(record, **changes)


def purge_row(legion: LegionMemory, file_name: str, record_id: str, marker: str) -> bool:
    """Rewrite the table row ``record_id`` of ``file_name`` with its text replaced by ``marker``; False when the
    file has no such row (gone, or a heading block, which is left for the person to edit)."""
    path = legion.memory_dir / file_name
    if not record_id or not path.is_file():
        return False

    def change(document: Document) -> bool:
        for segment in document.segments:
            record = segment.record
            if segment.kind == "row" and record is not None and record.id == record_id and segment.table:
                new = purged_record(record, marker)
                line = segment.lines[0]
                ending = "\r\n" if line.endswith("\r\n") else ("\n" if line.endswith("\n") else "")
                segment.lines = [join_row(values_for_fields(new, segment.fields)) + ending]
                segment.record = new
                return True
        return False

    def verify(reread: Document, changed: bool) -> bool:
        return not changed or any(
            r.id == record_id and getattr(r, "summary", marker) in (marker, "") for r in reread.records
        )

    return modify_file(
        path,
        change,
        template="",
        verify=verify,
        record_text=lambda: f"{file_name} {record_id}",
        default_branch=legion.default_branch,
        lock_timeout=legion.lock_timeout,
    )
