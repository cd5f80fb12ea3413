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
    line = printable(line.replace("\t", " "))
    if width is not None and len(line) > width:
        return line[: max(0, width - 1)] + "…"
    return line


def age(created_at: datetime, now: datetime) -> str:
    """A compact age like ``45s``, ``12m``, ``5h``, ``3d``, ``7w``, ``2y``."""
    seconds = max(0.0, (now - created_at).total_seconds())
    for unit, size in (("y", 365 * 86400), ("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size * (2 if unit in "yw" else 1):
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def json_document(document: Any) -> str:
    """A JSON document as ``--json`` prints it: indented, unicode kept as is."""
    return json.dumps(document, ensure_ascii=False, indent=2)


def compact_json(document: Any) -> str:
    """A JSON document as the MCP tools return it: without indentation or spaces, unicode kept as is."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))
