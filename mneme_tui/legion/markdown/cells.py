"""Markdown table cell codec: escape values into cells and split row lines back into values.

Escapes (the only ones written; anything else after a backslash reads back literally):

- ``\\|``  a literal pipe
- ``\\\\`` a literal backslash
- ``\\n``  a newline (LF), ``\\r`` a carriage return, ``\\t`` a tab
- ``\\u{HEX}`` any other character that must be protected: whitespace at the start or end of a
  value (cells are trimmed when read, so edge whitespace is escaped) and control characters.

``unescape(escape(v)) == v`` for every string ``v``. Cells written by other tools (no escapes, or a
stray ``\\x``) read back as their literal text.
"""

from __future__ import annotations

import re

_SIMPLE = {"|": "\\|", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNSIMPLE = {"|": "|", "\\": "\\", "n": "\n", "r": "\r", "t": "\t"}
_SEPARATOR_CHARS = frozenset("|-: \t")
_SEPARATOR_TEXT = "".join(sorted(_SEPARATOR_CHARS))
_ESCAPED_CELL = re.compile(r"((?:\\.|[^\\|])*)\|", re.DOTALL)
"""One cell and the pipe closing it: a backslash and the character after it always belong to the cell."""
_ESCAPE = re.compile(r"\\(?:([|\\nrt])|u\{([0-9a-fA-F]{1,6})\})")
"""One escape: a simple one (group 1) or ``\\u{HEX}`` (group 2); one pass, left to right, so linear."""


def _needs_hex(char: str) -> bool:
    code = ord(char)
    return code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or char in "\u2028\u2029"


def escape_cell(value: str) -> str:
    """Encode ``value`` so it sits safely in one table cell and reads back identically."""
    if not value:
        return ""
    stripped_left = len(value) - len(value.lstrip())
    stripped_right = len(value.rstrip())
    out: list[str] = []
    for index, char in enumerate(value):
        if char in _SIMPLE:
            out.append(_SIMPLE[char])
        elif index < stripped_left or index >= stripped_right or _needs_hex(char):
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return "".join(out)


def _unescape_one(match: re.Match[str]) -> str:
    simple, code = match.group(1), match.group(2)
    if simple is not None:
        return _UNSIMPLE[simple]
    value = int(code, 16)
    return chr(value) if value <= 0x10FFFF else match.group(0)


def unescape_cell(cell: str) -> str:
    """Decode one trimmed cell; unknown escapes stay as written (``C:\\path`` reads as is)."""
    if "\\" not in cell:
        return cell
    return _ESCAPE.sub(_unescape_one, cell)


def is_row_line(line: str) -> bool:
    """True when a line looks like a table row: it starts and ends with a pipe (after trimming)."""
    cells = split_raw_cells(line)
    return bool(cells)


def split_raw_cells(line: str) -> list[str] | None:
    """Split a row line into trimmed, still-escaped cells; None when it is not a row.

    A ``\\|`` is part of a cell; only unescaped pipes separate cells.
    """
    text = line.strip()
    if not text.startswith("|"):
        return None
    if "\\" not in text:
        parts = text.split("|")
        if parts[-1].strip():
            return None
        return list(map(str.strip, parts[1:-1]))
    cells: list[str] = []
    position = 1
    while match := _ESCAPED_CELL.match(text, position):
        cells.append(match.group(1).strip())
        position = match.end()
    if text[position:].strip():
        return None  # text after the last pipe: not a table row
    return cells


def split_row(line: str) -> list[str] | None:
    """Split a row line into decoded cell values; None when it is not a row."""
    cells = split_raw_cells(line)
    if cells is None:
        return None
    return [unescape_cell(cell) for cell in cells]


def is_separator_line(line: str) -> bool:
    """True for a header separator such as ``|----|:---:|``."""
    text = line.strip()
    if not text.startswith("|") or "-" not in text or text.strip(_SEPARATOR_TEXT):  # another character
        return False
    cells = split_raw_cells(line)
    if not cells:
        return False
    return all(re.fullmatch(r":?-{1,}:?", cell.replace(" ", "")) for cell in cells)


def join_row(values: list[str]) -> str:
    """Render decoded values as one row line (no newline)."""
    return "| " + " | ".join(escape_cell(value) for value in values) + " |"
