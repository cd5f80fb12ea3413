"""Text charts for the briefing: horizontal bars and a success-rate series by week."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, timedelta

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


def weekly_success(dated_outcomes: Iterable[tuple[date | None, bool]], today: date, weeks: int = 12
                   ) -> list[tuple[date, int, float | None]]:
    """``(week start, outcomes, success rate or None)`` for the last ``weeks`` weeks, oldest first."""
    start = today - timedelta(days=today.weekday()) - timedelta(weeks=weeks - 1)
    totals = [0] * weeks
    wins = [0] * weeks
    for when, success in dated_outcomes:
        if when is None or when < start or when > today:
            continue
        week = (when - start).days // 7
        totals[week] += 1
        wins[week] += int(success)
    return [
        (start + timedelta(weeks=i), totals[i], (wins[i] / totals[i]) if totals[i] else None)
        for i in range(weeks)
    ]
