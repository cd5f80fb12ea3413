"""Tolerant, lossless parsing of one Legion memory file into ordered segments.

Every line of the file lands in exactly one segment, unchanged, so ``parse(text).render() == text``
byte for byte. Segment kinds:

- ``header``: a memory table's header + separator rows (columns name the schema, in any order);
- ``row``: one record row; rows after prose with no header of their own continue the last table;
- ``block``: a ``## PAT-/PIT-/PRF-NNN: ...`` heading block (bullets, prose, embedded tables, ``---``);
- ``not_imported``: kept but not records - ``## ...`` sections whose first line is ``key: value``
  (e.g. ``## Phase 3 — Shipped``) and unrelated tables such as a RETRO action-items table;
- ``prose``: everything else (titles, intros, a bullet that merely contains ``|``).

A UTF-8 byte order mark at the start is kept aside (``Document.bom``) and put back by ``render()``,
so a file an editor saved with one parses like any other.

A file is *unparseable* (one warning, no records, never rewritten) when it is not UTF-8, holds git
conflict markers, a row inside a table fragment has the wrong number of cells, or a table that is
nearly the file's own (half its columns or more) lacks a column the file's records need (spec §7:
"missing columns"): such a file is neither read nor written into.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from mneme_tui.legion.markdown.blocks import match_heading, record_from_block
from mneme_tui.legion.markdown.cells import is_separator_line, join_row, split_raw_cells, unescape_cell
from mneme_tui.legion.markdown.legion_records import Record, record_from_values, values_for_fields
from mneme_tui.legion.markdown.schemas import (
    DEFAULT_BRANCH,
    FILE_SCHEMAS,
    TableSchema,
    branch_position,
    field_name,
    schema_for_header,
)

_SECTION_HEADING = re.compile(r"^#{1,2}(\s|$)")
_KEY_VALUE = re.compile(r"^[a-z][a-z0-9_]*:(\s|$)")
_CONFLICT = re.compile(r"^(<{7}|>{7})(\s|$)")
_ID_CELL = re.compile(r"^[A-Z]{1,4}-\d+$")
BOM = "\ufeff"


@dataclass
class TableInfo:
    """A memory table: its schema and the field names of its header, in column order."""

    schema: TableSchema
    fields: list[str]


def row_fields(table: TableInfo, cells: int) -> list[str] | None:
    """The columns of a row with ``cells`` cells under ``table``'s header, or None when it does not fit.

    A row fits when it has the header's cells, or when it differs by exactly the Branch column: a
    10-cell row that an older agent appended (``echo >>``) after the table gained Branch reads as a
    legacy row (default branch), and an 11-cell row appended under a legacy header keeps its branch.
    The parser still refuses such a row when its cells do not read cleanly in that layout.
    """
    fields = table.fields
    if cells == len(fields):
        return fields
    if "branch" in fields and cells == len(fields) - 1:
        return [f for f in fields if f != "branch"]
    if "branch" not in fields and "branch" in table.schema.fields and cells == len(fields) + 1:
        position = branch_position(fields)
        return [*fields[:position], "branch", *fields[position:]]
    return None


@dataclass
class Segment:
    """A run of original lines (each with its line ending) and what they mean."""

    kind: str
    lines: list[str]
    start_line: int
    record: Record | None = None
    table: TableInfo | None = None
    label: str = ""
    items: int = 0
    row_fields: list[str] | None = None
    """A row's own columns when they differ from its table's by the Branch column (see :func:`row_fields`)."""

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def fields(self) -> list[str]:
        """The columns this row's cells are in (its table's, unless it is a row of the other layout)."""
        if self.row_fields is not None:
            return self.row_fields
        return self.table.fields if self.table is not None else []


@dataclass
class NotImported:
    """A kept-as-is block that is not a record (reported, never dropped)."""

    label: str
    kind: str
    start_line: int
    line_count: int
    items: int = 0


@dataclass
class Document:
    """A parsed memory file: ordered segments plus warnings; ``render()`` gives the bytes back."""

    file_name: str
    segments: list[Segment] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    parseable: bool = True
    exists: bool = True
    bom: str = ""
    """The byte order mark the text started with ("" when none), kept out of the first line."""

    def render(self) -> str:
        return self.bom + "".join(segment.text for segment in self.segments)

    @property
    def records(self) -> list[Record]:
        return [s.record for s in self.segments if s.record is not None]

    def not_imported(self) -> list[NotImported]:
        return [
            NotImported(s.label, "table" if s.items else "section", s.start_line, len(s.lines), s.items)
            for s in self.segments
            if s.kind == "not_imported"
        ]

    def last_table_segment(self, kind: str) -> int | None:
        """Index of the last header/row segment of a table holding ``kind`` records."""
        for index in range(len(self.segments) - 1, -1, -1):
            segment = self.segments[index]
            if segment.kind in {"header", "row"} and segment.table and segment.table.schema.kind == kind:
                return index
        return None

    def append_row(self, record: Record, schema: TableSchema, raw: str | None = None) -> Segment:
        """Append ``record`` to the last fragment of its table (or a new canonical table at the end).

        ``raw`` is an already rendered row line to use verbatim (prune moves rows byte for byte).
        """
        anchor = self.last_table_segment(schema.kind)
        newline = "\n"
        table: TableInfo | None
        if anchor is None:
            self._ensure_trailing_newline()
            text = self.render()
            lead = "" if not text or text.endswith("\n\n") else "\n"
            table = TableInfo(schema, list(schema.fields))
            header = lead + f"## {schema.section}\n\n" + schema.header_lines()
            self.segments.append(Segment("header", header.splitlines(keepends=True), 0, table=table))
            anchor = len(self.segments) - 1
        else:
            table = self.segments[anchor].table
            assert table is not None
            last = self.segments[anchor].lines
            if last[-1].endswith("\r\n"):
                newline = "\r\n"
            elif not last[-1].endswith("\n"):
                last[-1] += "\n"
        if raw is not None:
            line = raw.rstrip("\r\n") + newline
        else:
            line = join_row(values_for_fields(record, table.fields)) + newline
        segment = Segment("row", [line], 0, record=record, table=table)
        self.segments.insert(anchor + 1, segment)
        return segment

    def append_block(self, text: str, record: Record) -> Segment:
        """Append a heading block (``text``, ending in a newline) at the end of the file, after a blank line."""
        self._ensure_trailing_newline()
        current = self.render()
        if current and not current.endswith("\n\n"):
            self.segments.append(Segment("prose", ["\n"], 0))
        segment = Segment("block", text.splitlines(keepends=True), 0, record=record)
        self.segments.append(segment)
        return segment

    def _ensure_trailing_newline(self) -> None:
        for segment in reversed(self.segments):
            if segment.lines:
                if not segment.lines[-1].endswith("\n"):
                    segment.lines[-1] += "\n"
                return


def split_lines(text: str) -> list[str]:
    """Split on LF only (keeping endings); other Unicode line breaks stay inside their line."""
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def unparseable(file_name: str, text: str, reason: str) -> Document:
    """A document that keeps the text but yields no records, with the spec's one-line warning."""
    warning = f"Warning: {file_name} could not be parsed ({reason}). Proceeding without memory."
    lines = split_lines(text)
    return Document(file_name, [Segment("prose", lines, 1)] if lines else [], [warning], False)


def _missing_columns(file_name: str, fields: list[str]) -> list[str]:
    """The required columns a header lacks when it is nearly the table of ``file_name`` (else none)."""
    schema = FILE_SCHEMAS.get(file_name)
    if schema is None or len(set(fields) & set(schema.fields)) * 2 < len(schema.fields):
        return []
    names = dict(zip(schema.fields, schema.columns, strict=True))
    return [names[name] for name in schema.fields if name in schema.required and name not in fields]


def parse(text: str, file_name: str = "", *, default_branch: str = DEFAULT_BRANCH) -> Document:
    """Parse ``text`` into a lossless :class:`Document` (see the module docstring)."""
    bom = BOM if text.startswith(BOM) else ""
    document = _Parser(text[len(bom) :], file_name, default_branch).run()
    document.bom = bom
    return document


class _Parser:
    def __init__(self, text: str, file_name: str, default_branch: str) -> None:
        self.text = text
        self.file_name = file_name
        self.default_branch = default_branch
        self.lines = split_lines(text)
        self.segments: list[Segment] = []
        self.warnings: list[str] = []
        self.table: TableInfo | None = None
        self.prose: list[str] = []
        self.prose_start = 1
        self.last_kind = ""

    # -- helpers -------------------------------------------------------------------------------
    def _flush_prose(self) -> None:
        if self.prose:
            self.segments.append(Segment("prose", self.prose, self.prose_start))
            self.prose = []

    def _add(self, segment: Segment) -> None:
        self._flush_prose()
        self.segments.append(segment)
        self.last_kind = segment.kind

    def _prose_line(self, index: int) -> None:
        if not self.prose:
            self.prose_start = index + 1
        self.prose.append(self.lines[index])
        if self.lines[index].strip():
            self.last_kind = "prose"

    def _header_at(self, index: int, cells: list[str] | None = None) -> list[str] | None:
        """Header cells when a table header (row + separator) starts at ``index``."""
        if cells is None:
            cells = split_raw_cells(self.lines[index])
        if not cells or index + 1 >= len(self.lines) or not is_separator_line(self.lines[index + 1]):
            return None
        return cells

    def _ends_section(self, index: int) -> bool:
        """True when line ``index`` closes a block/section: a #/## heading or memory table content."""
        line = self.lines[index]
        if _SECTION_HEADING.match(line):
            return True
        cells = split_raw_cells(line)
        if not cells:
            return False
        header = self._header_at(index)
        if header is not None:
            return schema_for_header([field_name(unescape_cell(c)) for c in header]) is not None
        return self.table is not None and row_fields(self.table, len(cells)) is not None

    def _section_end(self, start: int) -> int:
        """First line after the block/section opened at ``start`` (embedded tables stay inside)."""
        index = start + 1
        in_foreign = False
        while index < len(self.lines):
            line = self.lines[index]
            if split_raw_cells(line):
                if in_foreign:
                    index += 1
                    continue
                header = self._header_at(index)
                if header is not None and schema_for_header([field_name(unescape_cell(c)) for c in header]) is None:
                    in_foreign = True
                    index += 2
                    continue
            in_foreign = False
            if self._ends_section(index):
                break
            index += 1
        return index

    # -- main loop -----------------------------------------------------------------------------
    def run(self) -> Document:
        for number, line in enumerate(self.lines, start=1):
            if _CONFLICT.match(line):
                return unparseable(self.file_name, self.text, f"git conflict markers at line {number}")
        index = 0
        while index < len(self.lines):
            try:
                index = self._step(index)
            except _Corrupt as exc:
                return unparseable(self.file_name, self.text, str(exc))
        self._flush_prose()
        self._number_records()
        return Document(self.file_name, self.segments, self.warnings, True)

    def _step(self, index: int) -> int:
        line = self.lines[index]
        if match_heading(line):
            end = self._section_end(index)
            block_lines = self.lines[index:end]
            record = record_from_block(block_lines, default_branch=self.default_branch)
            self._add(Segment("block", block_lines, index + 1, record=record))
            return end
        if line.startswith("## "):
            end = self._section_end(index)
            body = [text for text in self.lines[index + 1 : end] if text.strip()]
            if body and _KEY_VALUE.match(body[0]):
                label = line.strip().lstrip("#").strip()
                self._add(Segment("not_imported", self.lines[index:end], index + 1, label=label))
                return end
        cells = split_raw_cells(line)
        if cells:
            return self._table_line(index, cells)
        if cells is None and _ID_CELL.match(line.strip().lstrip("|").split("|")[0].strip()):
            self.warnings.append(
                f"{self.file_name} line {index + 1}: a row without a closing pipe was not read "
                "as a record (its ID is never reused)"
            )
        self._prose_line(index)
        return index + 1

    def _table_line(self, index: int, raw_cells: list[str]) -> int:
        header = self._header_at(index, raw_cells)
        if header is not None:
            fields = [field_name(unescape_cell(c)) for c in header]
            schema = schema_for_header(fields)
            if schema is not None:
                self.table = TableInfo(schema, fields)
                self._add(Segment("header", self.lines[index : index + 2], index + 1, table=self.table))
                return index + 2
            missing = _missing_columns(self.file_name, fields)
            if missing:
                raise _Corrupt(
                    f"the table at line {index + 1} lacks the {', '.join(missing)} column"
                    + ("s" if len(missing) > 1 else "")
                )
            end = index + 2
            while end < len(self.lines) and split_raw_cells(self.lines[end]):
                end += 1
            label = "table: " + " | ".join(unescape_cell(c) for c in header)
            self._add(Segment("not_imported", self.lines[index:end], index + 1, label=label, items=end - index - 2))
            return end
        table = self.table
        if table is not None:
            values = [unescape_cell(c) for c in raw_cells] if "\\" in self.lines[index] else raw_cells
            read = self._read_row(table, values)
            if read is not None:
                record, fields, complaints = read
                if complaints:
                    self.warnings.extend(f"{self.file_name} line {index + 1}: {c}" for c in complaints)
                own = fields if fields is not table.fields else None
                self._add(Segment("row", [self.lines[index]], index + 1, record=record, table=table, row_fields=own))
                return index + 1
            if self.last_kind in {"header", "row"} or _ID_CELL.match(values[0]):
                raise _Corrupt(f"line {index + 1} has {len(values)} cells, the table has {len(table.fields)}")
        elif _ID_CELL.match(raw_cells[0]):
            self.warnings.append(
                f"{self.file_name} line {index + 1}: a row with no table header above it was "
                "not read as a record (its ID is never reused)"
            )
        self._prose_line(index)
        return index + 1

    def _read_row(self, table: TableInfo, values: list[str]) -> tuple[Record, list[str], list[str]] | None:
        """The record of a row, its columns and complaints; None when the row does not fit ``table``.

        A row in the other Branch layout (:func:`row_fields`) is only taken when it reads cleanly.
        """
        fields = row_fields(table, len(values))
        if fields is None:
            return None
        record, complaints = record_from_values(table.schema.kind, fields, values, default_branch=self.default_branch)
        if fields is not table.fields and complaints:
            return None
        return record, fields, complaints

    def _number_records(self) -> None:
        seen: Counter[str] = Counter()
        for segment in self.segments:
            record = segment.record
            if record is None:
                continue
            record.source_file = self.file_name
            record.line = segment.start_line
            record.occurrence = seen[record.id]
            seen[record.id] += 1


class _Corrupt(Exception):
    """Raised inside the parser when a table row cannot be read."""


def renumber(document: Document) -> None:
    """Recompute line numbers and occurrences after segments were added or removed."""
    line = 1
    seen: Counter[str] = Counter()
    for segment in document.segments:
        segment.start_line = line
        line += len(segment.lines)
        if segment.record is not None:
            segment.record.source_file = document.file_name
            segment.record.line = segment.start_line
            segment.record.occurrence = seen[segment.record.id]
            seen[segment.record.id] += 1
