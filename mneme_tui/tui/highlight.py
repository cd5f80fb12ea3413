"""The query's matched words styled in already-literal text (spans from ``memory.highlight``)."""

from __future__ import annotations

from rich.text import Text

from mneme_tui.memory.matched_spans import matched_spans

MATCH_STYLE = "bold reverse"


def highlight(text: Text, query: str, profile: str, style: str = MATCH_STYLE) -> Text:
    """``text`` with every word the query matched (by ``profile``'s analysis) styled; never parses markup."""
    if query.strip():
        for start, end in matched_spans(text.plain, query, profile):
            text.stylize(style, start, end)
    return text
