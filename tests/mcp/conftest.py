"""The MCP tests' workspace: a folder outside git with a source file; the database is ``mneme.db`` in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_session import REPO


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder outside git with a Legion folder; the database is ``mneme.db`` in it."""
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "store.py").write_text("class Store:\n    def save(self):\n        return 1\n")
    monkeypatch.chdir(work)
    monkeypatch.setenv("MNEME_REPO", REPO)
    return work
