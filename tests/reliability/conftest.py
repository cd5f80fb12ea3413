"""Fixtures for the markdown reliability suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme_tui.legion.skill.api import LegionMemory
from reliability.legion_projects import make_project


@pytest.fixture
def legion_project(tmp_path: Path) -> LegionMemory:
    return make_project(tmp_path / "project")
