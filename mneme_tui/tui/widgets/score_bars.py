"""The score of a recall result broken into its factors, each with a small bar and what it means."""

from __future__ import annotations

import math

from rich.text import Text

from mneme_tui import display
from mneme_tui.memory.ranking import COMPONENT_DESCRIPTIONS, COMPONENT_RANGES, PROFILE_COMPONENTS

_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(fraction: float, width: int) -> str:
    """A left-aligned bar of ``width`` cells filled to ``fraction`` (clamped to 0..1), in eighths."""
    fraction = min(1.0, max(0.0, fraction))
    eighths = round(fraction * width * 8)
    full, rest = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[rest] if rest else "")
    return text.ljust(width)


def _names(components: dict[str, float] | None, profile: str) -> list[str]:
    order = list(PROFILE_COMPONENTS.get(profile, ()))
    if components is None:
        return order
    return [name for name in order if name in components] + [name for name in components if name not in order]


def score_breakdown(components: dict[str, float], score: float, *, profile: str = "spec", width: int = 14) -> Text:
    """Lines ``name  value  bar`` for the profile's components in reading order (plus any extra one)
    and the total. A bar is full at the top of the component's range (``ranking.COMPONENT_RANGES``); an
    unbounded component (bm25) shows its value without a bar."""
    out = Text(end="")
    names = _names(components, profile)
    for name in names:
        value = components[name]
        low, high = COMPONENT_RANGES.get(name, (0.0, 1.0))
        out.append(f"{name:<14}", style="dim")
        out.append(f"{value:>7.3f} ")
        if high is not None and high > low:
            out.append(bar((value - low) / (high - low), width), style="green" if value > low else "dim")
        out.append("\n")
    out.append(f"{'score':<14}", style="bold")
    out.append(f"{score:>7.4f}", style="bold")
    match, decay = display.match_and_age(score, components)
    out.append(f"  = match {match:.3f} (the list's column) × age {decay:.3f}", style="dim")
    if not math.isclose(match * decay, score):
        out.append(" × boosts", style="dim")
    return out


def component_legend(profile: str) -> Text:
    """One dim line per component of ``profile`` saying what it means (static per profile, so the
    Recall pane renders it once, not on every keystroke)."""
    out = Text(end="")
    for name in _names(None, profile):
        if name in COMPONENT_DESCRIPTIONS:
            out.append(f"{name}: ", style="dim bold")
            out.append(f"{COMPONENT_DESCRIPTIONS[name]}\n", style="dim")
    return out
