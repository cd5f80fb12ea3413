"""Text helpers shared by the CLI and the TUI: showing untrusted memory text literally, and ages."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with control characters (ESC, BEL, CR, …) shown as ``\\xNN`` so a terminal can't act on them.

    Newlines and tabs are kept; everything else, brackets and emoji included, is left exactly as is.
    """
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def one_line(text: str, width: int | None = None) -> str:
    """The first non-empty line of ``text``, printable, cut to ``width`` characters with an ellipsis."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return cut(printable(line.replace("\t", " ")), width)


def age(created_at: datetime, now: datetime) -> str:
    """A compact age like ``45s``, ``12m``, ``5h``, ``3d``, ``7w``, ``2y``."""
    seconds = max(0.0, (now - created_at).total_seconds())
    for unit, size in (("y", 365 * 86400), ("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size * (2 if unit in "yw" else 1):
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def json_document(document: Any) -> str:
    """A JSON document as ``--json`` prints it and the MCP tools return it: indented, unicode kept as is."""
    return json.dumps(document, ensure_ascii=False, indent=2)


def cut(line: str, width: int | None) -> str:
    """``line`` cut to ``width`` characters with an ellipsis (unchanged when ``width`` is None)."""
    if width is None or len(line) <= width:
        return line
    return line[: max(0, width - 1)] + "…"


def match_and_age(score: float, components: dict[str, float]) -> tuple[float, float]:
    """A recall score's two parts a person reads apart: how well the text matched (the score without the age
    factor and the boosts) and the age factor (``decay``: 1 when new, falling with age)."""
    decay = components.get("decay", 1.0)
    factor = decay * components.get("reinforcement", 1.0) * components.get("locality", 1.0)
    return (score / factor if factor > 0 else 0.0), decay


def with_article(word: str) -> str:
    """``word`` with its indefinite article: ``a pitfall``, ``an outcome``."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``1 block``, ``2 blocks`` (``plural`` when adding an ``s`` is wrong)."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"
