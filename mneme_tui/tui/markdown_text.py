"""Markdown that memories carry (code fences, pipe tables) laid out readably, always as literal text.

Not a Markdown renderer: only fences and tables change shape (fenced code on a shaded block, table
columns aligned); every character of the memory is still shown as stored, nothing is parsed as Rich
markup or links, and control characters show as ``\\xNN``.
"""

from __future__ import annotations

import re

from rich.text import Text

from mneme_tui import display

CODE_STYLE = "on grey15"
FENCE_STYLE = "dim"
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def readable_text(content: str) -> Text:
    """``content`` as a Text: fenced code shaded, pipe tables aligned, everything else as stored."""
    out = Text(end="")
    lines = display.printable(content).split("\n")
    index = 0
    in_fence = False
    while index < len(lines):
        line = lines[index]
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            _append_line(out, line, FENCE_STYLE, index, len(lines))
            index += 1
        elif in_fence:
            _append_line(out, line, CODE_STYLE, index, len(lines))
            index += 1
        elif _is_table_row(line):
            end = index
            while end < len(lines) and _is_table_row(lines[end]):
                end += 1
            _append_table(out, lines[index:end], last=end >= len(lines))
            index = end
        else:
            _append_line(out, line, "", index, len(lines))
            index += 1
    return out


def _append_line(out: Text, line: str, style: str, index: int, count: int) -> None:
    out.append(line, style=style)
    if index < count - 1:
        out.append("\n")


def _is_table_row(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("|") and stripped.count("|") >= 2


def _cells(line: str) -> list[str]:
    stripped = line.strip()
    if stripped.startswith("|"):
        stripped = stripped[1:]
    if stripped.endswith("|"):
        stripped = stripped[:-1]
    return [cell.strip() for cell in stripped.split("|")]


def _append_table(out: Text, rows: list[str], *, last: bool) -> None:
    parsed = [None if TABLE_RULE.match(row) else _cells(row) for row in rows]
    columns = max(len(cells) for cells in parsed if cells is not None) if any(parsed) else 0
    widths = [
        max((len(cells[i]) for cells in parsed if cells is not None and i < len(cells)), default=0)
        for i in range(columns)
    ]
    for position, cells in enumerate(parsed):
        if cells is None:
            out.append("─┼─".join("─" * width for width in widths), style=FENCE_STYLE)
        else:
            padded = cells + [""] * (columns - len(cells))
            for column, (cell, width) in enumerate(zip(padded, widths)):
                if column:
                    out.append(" │ ", style=FENCE_STYLE)
                out.append(cell.ljust(width), style="bold" if position == 0 else "")
        if position < len(parsed) - 1 or not last:
            out.append("\n")
