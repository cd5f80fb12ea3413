"""How ``mneme recall`` prints its results as text: a one-line header per result, its text indented below.

On a terminal the text is wrapped at word boundaries to the terminal's width; piped, every line of the memory
is printed whole, so a program reading it never meets a folded word. A long memory shows its first lines and
the line the query matched, and says how many lines it left out. The score is printed with its two parts a
person reads separately, the match and the age factor, and a legend line ends the list.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from datetime import datetime

from mneme_tui import display
from mneme_tui.memory.matched_spans import matched_line
from mneme_tui.memory.records import ScoredMemory

INDENT = "    "
MAX_LINES = 6
"""A memory longer than this many lines shows its first ``HEAD_LINES`` and the line the query matched."""
HEAD_LINES = 3
LEGEND = (
    "score = match × age × boosts. match: how well the text fits the query (1 = the best fit); "
    "age: 1 for a new memory, falling as it gets older (each kind at its own rate); boosts: up to ×1.5 "
    "for memories tasks used before, ×1.25 for the searched repository's own."
)


def print_recall(results: list[ScoredMemory], *, query: str, profile: str, now: datetime) -> None:
    """Every result as a header line and its indented text, a blank line between results, then the legend."""
    width = _terminal_width()
    for rank, result in enumerate(results, start=1):
        if rank > 1:
            print()
        print(display.cut(header(rank, result, now), width))
        lines, hidden = body_lines(
            result.memory.content, query=query, profile=profile, width=None if width is None else width - len(INDENT)
        )
        for line in lines:
            print(f"{INDENT}{line}" if line else "")
        if hidden:
            print(f"{INDENT}… {hidden} more line{'s' if hidden != 1 else ''} (mneme show {result.memory.id})")
    print()
    print("\n".join(textwrap.wrap(LEGEND, width)) if width else LEGEND)


def header(rank: int, result: ScoredMemory, now: datetime) -> str:
    """``1. #82 score 0.773 (match 0.62, age 0.70) architecture, 13w old · atlas-api · Migrations``."""
    memory = result.memory
    topic = f" · {display.one_line(memory.topic)}" if memory.topic else ""
    where = f"{memory.kind}, {display.age(memory.created_at, now)} old · {display.one_line(memory.repo_id)}{topic}"
    return f"{rank}. #{memory.id} {score_text(result)} {where}"


def score_text(result: ScoredMemory) -> str:
    """``score 0.089 (match 1.00, age 0.09)``: the score, how well the text matched, and its age factor."""
    match, decay = display.match_and_age(result.score, result.components)
    return f"score {result.score:.3f} (match {match:.2f}, age {decay:.2f})"


def body_lines(content: str, *, query: str, profile: str, width: int | None) -> tuple[list[str], int]:
    """The lines of ``content`` to print (control characters made visible, tabs as spaces), wrapped to
    ``width`` when it is set, and how many lines were left out: a long memory keeps its first lines and the
    line the query matched, ``…`` between."""
    text = content.strip("\n")
    lines = [display.printable(line.replace("\t", "    ")).rstrip() for line in text.splitlines()]
    hidden = 0
    if len(lines) > MAX_LINES:
        hit = matched_line(text, query, profile)
        extra = ["…", lines[hit]] if hit is not None and hit >= HEAD_LINES else []
        hidden = len(lines) - HEAD_LINES - len(extra[1:])
        lines = lines[:HEAD_LINES] + extra
    if width is None:
        return lines, hidden
    wrapped: list[str] = []
    for line in lines:
        wrapped.extend(textwrap.wrap(line, width, break_on_hyphens=False) or [""])
    return wrapped, hidden


def _terminal_width() -> int | None:
    """The terminal's width (at least 24 columns); None when stdout is piped (nothing is wrapped or cut)."""
    if not sys.stdout.isatty():
        return None
    return max(24, shutil.get_terminal_size().columns)
