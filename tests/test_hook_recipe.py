"""The documented Claude Code SessionStart hook (docs/agents.md), run exactly as written (its commands are read
from the page's JSON block, so the test fails if the docs drift): clean text, exit 0, in a set-up repo and in an empty one."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

RECIPE_PAGE = Path(__file__).parent.parent / "docs" / "agents.md"
NOW = "2026-11-30T12:00:00Z"
SUMMARY = "shipped the markdown parser behind a feature flag, all green"
WALKTHROUGH = "Split Store.save so each function stays small."


def hook_commands() -> list[str]:
    """The commands of the documented SessionStart hook, in order."""
    blocks = re.findall(r"```json\n(.*?)```", RECIPE_PAGE.read_text(encoding="utf-8"), re.DOTALL)
    settings = next(json.loads(block) for block in blocks if "SessionStart" in block)
    return [hook["command"] for entry in settings["hooks"]["SessionStart"] for hook in entry["hooks"]]


def run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` as the hook runs it, stdout piped; ``mneme`` is this checkout's (``python -m mneme_tui``)."""
    argv = shlex.split(command)
    assert argv[0] == "mneme", command
    env = {**os.environ, "MNEME_NOW": NOW, "COLUMNS": "40"}
    return subprocess.run(
        [sys.executable, "-m", "mneme_tui", *argv[1:]],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def git_repo(folder: Path) -> Path:
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def assert_clean(done: subprocess.CompletedProcess[str], command: str) -> str:
    assert done.returncode == 0, (command, done.stderr)
    assert done.stderr == "", (command, done.stderr)
    assert "\x1b" not in done.stdout and all(line == line.rstrip() for line in done.stdout.splitlines()), command
    return done.stdout


def test_the_readme_hook_runs_the_handshake_and_the_briefing() -> None:
    assert [shlex.split(command)[:2] for command in hook_commands()] == [["mneme", "handshake"], ["mneme", "legion"]]


def test_hook_commands_in_a_project_with_a_store_and_legion_memory(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "shop")
    (repo / "src").mkdir()
    (repo / "src" / "store.py").write_text("def save():\n    return 1\n")
    gate = {"name": "Cognitive Complexity", "file": "src/store.py"}
    (tmp_path / "report.json").write_text(
        json.dumps(
            {
                "task_id": "INT-1",
                "repo": "shop",
                "modified_files": ["src/store.py"],
                "walkthrough": WALKTHROUGH,
                "runs": [
                    {"gates": [{**gate, "passed": False, "message": "over"}]},
                    {"gates": [{**gate, "passed": True, "message": "ok"}]},
                ],
            }
        )
    )
    assert_clean(run(f"mneme task sync {tmp_path / 'report.json'}", repo), "task sync")
    assert_clean(
        run(
            f"mneme legion record outcome --agent backend-engineer --outcome success --summary '{SUMMARY}' "
            "--branch main",
            repo,
        ),
        "record",
    )
    handshake, briefing = (assert_clean(run(command, repo), command) for command in hook_commands())
    assert "# Mneme orientation: repo shop" in handshake and "## Learned pitfalls (1)" in handshake
    assert f"   {WALKTHROUGH}" in handshake.splitlines()
    assert briefing.startswith("Session briefing: 1 outcome records\n")
    assert any("backend-engineer" in line and SUMMARY in line for line in briefing.splitlines())


def test_hook_commands_in_an_empty_repo_and_outside_git(tmp_path: Path) -> None:
    """No store yet, no Legion folder: the handshake prints its short empty orientation, the briefing prints
    nothing (the Legion skill's graceful degradation), both exit 0, nothing on stderr."""
    for folder in (git_repo(tmp_path / "empty"), tmp_path / "plain"):
        folder.mkdir(exist_ok=True)
        handshake, briefing = (assert_clean(run(command, folder), command) for command in hook_commands())
        assert handshake.startswith("# Mneme orientation: repo ") and "## Learned pitfalls (0)\nNone." in handshake
        assert len(handshake.splitlines()) < 15
        assert briefing == ""
        assert not (folder / ".planning").exists()
