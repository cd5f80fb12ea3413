"""The score of a recall result broken into its factors, each with a small bar."""

from __future__ import annotations

from rich.text import Text

# (name, low, high): the range each factor can take, so its bar is full at ``high``.
FACTORS: tuple[tuple[str, float, float], ...] = (
    ("cosine", 0.0, 1.0),
    ("lexical", 0.0, 1.0),
    ("decay", 0.0, 1.0),
    ("reinforcement", 1.0, 1.5),
    ("locality", 1.0, 1.25),
)
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(fraction: float, width: int) -> str:
    """A left-aligned bar of ``width`` cells filled to ``fraction`` (clamped to 0..1), in eighths."""
    fraction = min(1.0, max(0.0, fraction))
    eighths = round(fraction * width * 8)
    full, rest = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[rest] if rest else "")
    return text.ljust(width)


def score_breakdown(components: dict[str, float], score: float, *, width: int = 14) -> Text:
    """Lines ``name  value  bar`` for the five factors (plus any extra a profile adds) and the total."""
    out = Text(end="")
    names = [name for name, _, _ in FACTORS]
    extra = [name for name in components if name not in names]
    ranges = {name: (low, high) for name, low, high in FACTORS}
    for name in names + extra:
        if name not in components:
            continue
        value = components[name]
        low, high = ranges.get(name, (0.0, 1.0))
        fraction = (value - low) / (high - low) if high > low else 0.0
        out.append(f"{name:<14}", style="dim")
        out.append(f"{value:>7.3f} ")
        out.append(bar(fraction, width), style="green" if value > low else "dim")
        out.append("\n")
    out.append(f"{'score':<14}", style="bold")
    out.append(f"{score:>7.4f}", style="bold")
    return out
