"""Shared fixtures for the Legion memory tests: a fixed clock, a project folder, the corpus path."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme_tui.legion.skill.api import LegionMemory

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "legion-corpus"
FIXED_NOW = "2026-10-15T12:00:00"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("MNEME_NOW", FIXED_NOW)
    return FIXED_NOW


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("legion corpus folder (../shared/legion-corpus) is absent")
    return CORPUS


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def memory(project: Path, tmp_path: Path) -> LegionMemory:
    return LegionMemory.for_project(project, branch_provider=lambda root: "main", claude_home=tmp_path / "home")


def outcome_row(
    n: int,
    date: str,
    *,
    agent: str = "agent-a",
    outcome: str = "success",
    importance: int = 2,
    task_type: str = "frontend",
    phase: str = "1",
    branch: str = "main",
    tags: str = "ui",
    summary: str = "done",
) -> str:
    return (
        f"| O-{n:03d} | {date} | {branch} | {phase} | 0{phase}-01 | {agent} | {task_type} | {outcome} "
        f"| {importance} | {tags} | {summary} |\n"
    )


def write_outcomes(memory: LegionMemory, rows: list[str]) -> Path:
    from mneme_tui.legion.markdown.schemas import OUTCOMES

    memory.memory_dir.mkdir(parents=True, exist_ok=True)
    path = memory.memory_dir / "OUTCOMES.md"
    path.write_text(OUTCOMES.template + "".join(rows), encoding="utf-8")
    return path


@pytest.fixture
def store(db_target):
    """A fresh Store on each backend (``db_target``): Legion sync runs the same on SQLite and PostgreSQL."""
    from mneme_tui.memory.store import Store

    opened = Store(db_target)
    yield opened
    opened.close()
