"""Which parts of a memory's text a query matched, by the same word analysis the ranking profile used.

The TUI styles these spans; nothing here knows about Rich or Textual.
"""

from __future__ import annotations

import re

from mneme_tui.memory.analysis import _CAMEL, DEFAULT_ANALYZER, WORD
from mneme_tui.memory.ranking import DEFAULT_PROFILE
from mneme_tui.memory.vectors import tokenize


def matched_spans(text: str, query: str, profile: str = DEFAULT_PROFILE) -> list[tuple[int, int]]:
    """``(start, end)`` offsets in ``text`` of the words (or identifier parts) that match ``query``.

    ``spec`` matches whole lowercase words (its lexical overlap); every other profile matches the
    ``bm25`` analysis: identifier parts, stop words ignored, Porter stems (``locking`` matches ``locked``).
    Adjacent matched parts join into one span; spans are sorted and never overlap.
    """
    if profile == "spec":
        words = set(tokenize(query))
        spans = [(m.start(), m.end()) for m in WORD.finditer(text) if m.group().lower() in words]
    else:
        terms = set(DEFAULT_ANALYZER.terms(query))
        spans = [span for m in WORD.finditer(text) for span in _matched_parts(m, terms)] if terms else []
    return _joined(spans)


def _matched_parts(word: re.Match[str], terms: set[str]) -> list[tuple[int, int]]:
    """The identifier parts of one word whose analysed term is a query term."""
    spans = []
    start = word.start()
    for part in _CAMEL.split(word.group()):
        if any(term in terms for term in DEFAULT_ANALYZER.word_terms(part)):
            spans.append((start, start + len(part)))
        start += len(part)
    return spans


def _joined(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and out[-1][1] == start:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def matched_line(text: str, query: str, profile: str = DEFAULT_PROFILE) -> int | None:
    """The index (in ``text.splitlines()``) of the first line the query matched, when that is not the first
    non-empty line (which a one-line list shows anyway); None otherwise."""
    if not query.strip():
        return None
    lines = text.splitlines()
    first = next((number for number, line in enumerate(lines) if line.strip()), None)
    for number, line in enumerate(lines):
        if matched_spans(line, query, profile):
            return None if number == first else number
    return None
