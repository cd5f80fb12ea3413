"""Text charts for the briefing: horizontal bars."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from mneme_tui.tui.widgets.score_bars import bar


def bar_chart(
    items: Sequence[tuple[str, float]],
    *,
    maximum: float,
    width: int = 24,
    label_width: int = 28,
    value_format: str = "{:.2f}",
    style: str = "green on #303030",
) -> Text:
    """One line per ``(label, value)``: the label (literal, cut), a bar scaled to ``maximum``, the value."""
    out = Text(end="")
    for label, value in items:
        shown = label if len(label) <= label_width else label[: label_width - 1] + "…"
        out.append(f"{shown:<{label_width}} ")
        out.append(bar(value / maximum if maximum else 0.0, width), style=style)
        out.append(" " + value_format.format(value), style="bold")
        out.append("\n")
    out.rstrip()
    return out
