"""Legion projects for the markdown reliability suite: old (prunable) and new outcomes."""

from __future__ import annotations

from pathlib import Path

from mneme_tui.legion.markdown.schemas import OUTCOMES, PREFERENCES
from mneme_tui.legion.skill.api import LegionMemory

OLD_DATE = "2025-01-10"
"""Older than the default prune age at the suite's fixed clock: importance 2 rows dated so are pruned."""


def outcome_line(ident: str, date: str, summary: str, *, importance: int = 2) -> str:
    return f"| {ident} | {date} | main | 1 | 01-01 | agent-a | frontend | success | {importance} | ui | {summary} |\n"


def preference_line(ident: str, context: str) -> str:
    return f"| {ident} | 2026-11-01 | main | manual-edit | {context} | p | u | positive | hand | x |\n"


def make_project(root: Path, old_rows: int = 20) -> LegionMemory:
    """A project whose OUTCOMES.md holds ``old_rows`` prunable rows and one kept row; PREFERENCES.md is empty."""
    memory = LegionMemory.for_project(root, branch_provider=lambda _root: "main", claude_home=root / "home")
    memory.memory_dir.mkdir(parents=True)
    rows = [outcome_line(f"O-{n:03d}", OLD_DATE, f"old {n}") for n in range(1, old_rows + 1)]
    rows.append(outcome_line(f"O-{old_rows + 1:03d}", "2026-11-20", "recent, kept", importance=5))
    (memory.memory_dir / OUTCOMES.file_name).write_text(OUTCOMES.template + "".join(rows), encoding="utf-8")
    (memory.memory_dir / PREFERENCES.file_name).write_text(PREFERENCES.template, encoding="utf-8")
    return memory
