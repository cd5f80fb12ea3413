"""Give memory tables without a ``Branch`` column one (spec §11), losslessly, before a new row is written.

A legacy table (OUTCOMES.md with 10 columns, or 9 with neither ID nor Branch) cannot hold a new
record's branch. ``add_branch_column`` inserts ``Branch`` after ``Date`` (after ``ID`` when there is
no Date, else first) in the header, the separator and every row of that table. Old rows get an
*empty* cell: they never recorded a branch, and an empty Branch cell reads as the default branch,
exactly as the missing column did, so every old record reads back the same. Only the table's own
lines change, and only by the inserted cell; prose, blocks, other tables and line endings keep
their bytes. A file that did not parse is never migrated.
"""

from __future__ import annotations

from mneme_tui.legion.markdown.document import Document, Segment, TableInfo, parse
from mneme_tui.legion.markdown.schemas import branch_position

BRANCH_COLUMN = "Branch"


def tables_without_branch(document: Document) -> list[TableInfo]:
    """The memory tables of ``document`` whose header has no Branch column."""
    return [
        segment.table
        for segment in document.segments
        if segment.kind == "header" and segment.table is not None and "branch" not in segment.table.fields
    ]


def migrate_for_new_row(document: Document, kind: str, *, default_branch: str) -> bool:
    """Give the table a new ``kind`` row lands in a Branch column first, in place; True when it did.

    Only when that table lacks the column and its schema has one (PREFERENCES.md has none). The
    document is replaced by the parse of :func:`add_branch_column`'s text, so it is written back
    through the caller's checked write (other writers' rows are kept there).
    """
    anchor = document.last_table_segment(kind)
    table = document.segments[anchor].table if anchor is not None else None
    if table is None or "branch" in table.fields or "branch" not in table.schema.fields:
        return False
    migrated = parse(add_branch_column(document), document.file_name, default_branch=default_branch)
    document.segments, document.warnings = migrated.segments, migrated.warnings
    return True


def add_branch_column(document: Document) -> str:
    """The text of ``document`` with a Branch column in every table that lacks one (unchanged otherwise)."""
    if not document.parseable:
        return document.render()
    legacy = tables_without_branch(document)
    return "".join(_migrated(segment, legacy) for segment in document.segments)


def _migrated(segment: Segment, legacy: list[TableInfo]) -> str:
    table = segment.table
    if table is None or segment.kind not in {"header", "row"} or not any(table is t for t in legacy):
        return segment.text
    if segment.row_fields is not None:  # a row that already has its Branch cell
        return segment.text
    position = branch_position(table.fields)
    if segment.kind == "row":
        return "".join(insert_cell(line, position, "") for line in segment.lines)
    header, separator = segment.lines
    dashes = "-" * (len(BRANCH_COLUMN) + 2)
    return insert_cell(header, position, BRANCH_COLUMN) + insert_cell(separator, position, dashes, pad=False)


def insert_cell(line: str, position: int, cell: str, *, pad: bool = True) -> str:
    """``line`` (a table row) with ``cell`` inserted as cell number ``position`` (0-based).

    The new cell goes right after the unescaped pipe that opens cell ``position``; every other byte stays.
    ``pad`` writes `` cell |`` (a row); without it the cell is written bare (``------|``), unless the
    separator's first cell is spaced.
    """
    pipes = _pipe_offsets(line)
    if position >= len(pipes):
        raise ValueError(f"a row with {len(pipes) - 1} cells has no cell {position}")
    at = pipes[position] + 1
    spaced = pad or line[pipes[0] + 1 : pipes[0] + 2] == " "
    text = f" {cell} |" if spaced else f"{cell}|"
    return line[:at] + text + line[at:]


def _pipe_offsets(line: str) -> list[int]:
    """Offsets of the unescaped pipes of a row line (``\\|`` is part of a cell)."""
    offsets: list[int] = []
    escaped = False
    for offset, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "|":
            offsets.append(offset)
    return offsets
