"""Project settings and state the memory layer reads from ``.planning/``.

- ``.planning/settings.json`` -> :class:`MemorySettings` from its ``memory`` object (defaults:
  ``enabled`` true, ``project_scoped_only`` true, ``auto_prune`` false, ``prune_threshold`` 200,
  ``prune_age_days`` 90). A malformed file or value falls back to the default with a warning.
- ``.planning/STATE.md`` -> the current phase number. Accepted forms (case-insensitive, markdown
  emphasis ignored): a line ``Phase: 5`` / ``Current Phase: 5 (name)`` / ``**Current phase:** 05 of 9``,
  or a heading ``## Current Phase`` (or ``## Current Position``) followed within five lines by
  ``Phase 5 ...`` or a line starting with the number. No match -> no current phase.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SETTINGS_PATH = Path(".planning/settings.json")
STATE_PATH = Path(".planning/STATE.md")

_PHASE_LINE = re.compile(r"^[\W_]*(?:current\s+)?phase[*_\s]*:[*_\s]*(\d+)", re.IGNORECASE)
_PHASE_HEADING = re.compile(r"^#{1,4}\s+current\s+(phase|position)\b", re.IGNORECASE)
_PHASE_WORD = re.compile(r"\bphase\s*:?\s*(\d+)", re.IGNORECASE)
_LEADING_NUMBER = re.compile(r"^[\W_]*(\d+)\b")


@dataclass
class MemorySettings:
    """settings.json ``memory.*`` with the spec's defaults, plus any warnings from reading it."""

    enabled: bool = True
    project_scoped_only: bool = True
    auto_prune: bool = False
    prune_threshold: int = 200
    prune_age_days: int = 90
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def load_memory_settings(root: Path) -> MemorySettings:
    """Read ``memory.*`` from ``root/.planning/settings.json``; never raises."""
    settings = MemorySettings()
    path = root / SETTINGS_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return settings
    except (OSError, UnicodeDecodeError) as exc:
        settings.warnings.append(f"Warning: cannot read {SETTINGS_PATH} ({exc}); using default memory settings.")
        return settings
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        settings.warnings.append(
            f"Warning: {SETTINGS_PATH} is not valid JSON (line {exc.lineno}); using default memory settings."
        )
        return settings
    memory = data.get("memory", {}) if isinstance(data, dict) else None
    if not isinstance(memory, dict):
        settings.warnings.append(f"Warning: {SETTINGS_PATH} 'memory' is not an object; using defaults.")
        return settings
    for name in ("enabled", "project_scoped_only", "auto_prune"):
        if name in memory:
            if isinstance(memory[name], bool):
                setattr(settings, name, memory[name])
            else:
                settings.warnings.append(f"Warning: memory.{name} must be true or false; using the default.")
    for name in ("prune_threshold", "prune_age_days"):
        if name in memory:
            value = memory[name]
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                setattr(settings, name, value)
            else:
                settings.warnings.append(f"Warning: memory.{name} must be a whole number >= 0; using the default.")
    return settings


def read_current_phase(root: Path) -> int | None:
    """The current phase named by ``root/.planning/STATE.md`` (see module doc), or None."""
    try:
        lines = (root / STATE_PATH).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return current_phase_from_text(lines)


def current_phase_from_text(lines: list[str]) -> int | None:
    for index, line in enumerate(lines):
        match = _PHASE_LINE.match(line)
        if match:
            return int(match.group(1))
        if _PHASE_HEADING.match(line):
            for following in [text for text in lines[index + 1 : index + 6] if text.strip()][:3]:
                word = _PHASE_WORD.search(following) or _LEADING_NUMBER.match(following)
                if word:
                    return int(word.group(1))
    return None
