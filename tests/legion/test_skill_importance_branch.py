"""Skill §2 "first time" bonus on comma-listed cells, and §11 rows without a Branch read as the default branch."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mneme_tui.legion.markdown.legion_records import OutcomeRecord
from mneme_tui.legion.markdown.storage import load_document
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.legion.skill.gitbranch import default_branch
from mneme_tui.legion.skill.scoring import first_time

DOKAPON = "ace027__Dokapon-kingdom-2__OUTCOMES.md"
SENIOR = "engineering-senior-developer"

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _outcome(agent: str, task_type: str) -> OutcomeRecord:
    return OutcomeRecord(agent=agent, task_type=task_type, outcome="success", summary="s")


# Spec §2 Importance: "First time an agent handles this task type: +1"
def test_first_time_reads_comma_lists_in_earlier_rows() -> None:
    history = [_outcome(SENIOR, "implementation, testing")]
    assert not first_time(history, SENIOR, "implementation")
    assert not first_time(history, SENIOR, "Testing")
    assert first_time(history, SENIOR, "documentation")
    assert first_time(history, "another-agent", "implementation")


def test_first_time_for_a_listed_agent_or_type_that_is_new() -> None:
    history = [_outcome("a, b", "review")]
    assert not first_time(history, "b", "review")
    assert first_time(history, "b, c", "review")  # c has never handled review
    assert first_time(history, "a", "review, docs")  # a has never handled docs
    assert first_time([], "a", "review")


def test_no_first_time_bonus_for_implementation_on_the_dokapon_file(corpus: Path, tmp_path: Path) -> None:
    """The corpus file's senior developer has earlier ``implementation, testing`` rows: no +1 on a new one."""
    document = load_document(corpus / DOKAPON)
    earlier = [
        r
        for r in document.records
        if isinstance(r, OutcomeRecord) and SENIOR in r.agent and "implementation" in r.task_type
    ]
    assert len(earlier) >= 9
    assert not first_time(document.records, SENIOR, "implementation")

    folder = tmp_path / "project" / ".planning" / "memory"
    folder.mkdir(parents=True)
    shutil.copyfile(corpus / DOKAPON, folder / "OUTCOMES.md")
    memory = LegionMemory(folder, branch_provider=lambda root: "main", claude_home=tmp_path / "home")
    result = memory.record_outcome(agent=SENIOR, outcome="success", summary="one more", task_type="implementation")
    assert result.record.importance == 2  # standard success, no first-time bonus


def _git(root: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", *arguments],
        cwd=root,
        check=True,
        capture_output=True,
        env={"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin", "HOME": str(root)},
    )


# Spec §11 Backwards Compatibility: 'Existing records without a Branch field are treated as "main"
# (or whatever the default branch is)'
def test_default_branch_outside_git_is_main(tmp_path: Path) -> None:
    assert default_branch(tmp_path) == "main"
    assert default_branch(tmp_path / "missing") == "main"


@needs_git
def test_default_branch_follows_origin_head(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q", "-b", "trunk")
    _git(tmp_path, "config", "init.defaultBranch", "trunk")
    assert default_branch(tmp_path) == "trunk"  # no origin/HEAD: init.defaultBranch
    _git(tmp_path, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    assert default_branch(tmp_path) == "develop"


@needs_git
def test_rows_without_branch_read_as_the_repository_default(tmp_path: Path) -> None:
    project = tmp_path / "project"
    folder = project / ".planning" / "memory"
    folder.mkdir(parents=True)
    _git(project, "init", "-q")
    _git(project, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    (folder / "OUTCOMES.md").write_text(
        "| Date | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| 2026-10-01 | 1 | 01-01 | a | build | success | 2 | x | legacy row |\n",
        encoding="utf-8",
    )
    memory = LegionMemory(folder, branch_provider=lambda root: "develop", claude_home=tmp_path / "home")
    assert memory.default_branch == "develop"
    recalled = memory.recall_outcomes(branch="current").records
    assert [r.summary for r in recalled] == ["legacy row"] and recalled[0].branch == "develop"
