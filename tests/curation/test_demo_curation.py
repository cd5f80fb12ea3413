"""The demo workspace shows every proposal kind (its project is a git work tree for the stale kind)."""

from __future__ import annotations

import shutil
from datetime import datetime

import pytest

from mneme_tui.demo import DEMO_REPO, build_demo_workspace
from mneme_tui.memory.curation.choices import KINDS
from mneme_tui.memory.curation.proposals import open_proposals
from mneme_tui.memory.store import Store


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_demo_shows_every_proposal_kind(tmp_path) -> None:
    workspace = build_demo_workspace(tmp_path / "demo", datetime(2026, 11, 29, 12))
    proposals = open_proposals(Store(workspace.db_path), DEMO_REPO, root=workspace.project_dir)
    assert {p.kind for p in proposals} == set(KINDS)
    assert any("src/sync/legion.py no longer exists" in p.reason for p in proposals)
