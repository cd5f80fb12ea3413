"""Agent lookups in Legion's agent catalog (``CATALOG.md``): first task type and division per agent.

Searched under the project root, first match wins: ``skills/agent-registry/CATALOG.md``, then
``.planning/CATALOG.md``. Any table with ``ID`` and ``Task Types`` columns counts; the division is
taken from the nearest ``### <Name> Division`` heading above the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from mneme_tui.legion.markdown.cells import is_separator_line, split_row
from mneme_tui.legion.markdown.document import split_lines
from mneme_tui.legion.markdown.legion_records import split_tags
from mneme_tui.legion.markdown.schemas import field_name

CATALOG_PATHS = ("skills/agent-registry/CATALOG.md", ".planning/CATALOG.md")
_DIVISION = re.compile(r"^#{2,4}\s+(.+?)\s+Division\b", re.IGNORECASE)


@dataclass
class Catalog:
    """Agent ID -> task types (in catalog order) and division."""

    task_types: dict[str, list[str]] = field(default_factory=dict)
    divisions: dict[str, str] = field(default_factory=dict)

    def first_task_type(self, agent: str) -> str | None:
        types = self.task_types.get(agent.strip())
        return types[0] if types else None

    def is_cross_division(self, agent: str, task_type: str) -> bool | None:
        """True when no agent of ``agent``'s division lists ``task_type``; None when unknown."""
        own = self.divisions.get(agent.strip())
        owners = {self.divisions.get(a) for a, types in self.task_types.items() if task_type in types}
        owners.discard(None)
        if own is None or not owners:
            return None
        return own not in owners


def find_catalog(root: Path) -> Path | None:
    for relative in CATALOG_PATHS:
        candidate = root / relative
        if candidate.is_file():
            return candidate
    return None


def load_catalog(root: Path) -> Catalog:
    """Parse the catalog under ``root``; an absent or unreadable catalog is empty."""
    path = find_catalog(root)
    catalog = Catalog()
    if path is None:
        return catalog
    try:
        lines = split_lines(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return catalog
    division = ""
    columns: list[str] | None = None
    for index, line in enumerate(lines):
        heading = _DIVISION.match(line)
        if heading:
            division = heading.group(1).strip().lower()
            columns = None
            continue
        cells = split_row(line)
        if cells is None:
            columns = None
            continue
        if index + 1 < len(lines) and is_separator_line(lines[index + 1]):
            names = [field_name(c) for c in cells]
            columns = names if {"id", "task_types"} <= set(names) else None
            continue
        if columns is None or is_separator_line(line) or len(cells) != len(columns):
            continue
        row = dict(zip(columns, cells))
        agent = row["id"].strip()
        if agent:
            catalog.task_types[agent] = split_tags(row["task_types"])
            if division:
                catalog.divisions[agent] = division
    return catalog
