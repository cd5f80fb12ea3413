"""Skill §13 in the briefing: the "Previous preference signals suggest…" note (text, --json, BriefingReport)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.legion.skill.briefing_report import briefing_report

from . import test_skill_recall as recall_tests

proj = recall_tests.proj
folder = recall_tests.folder
run = recall_tests.run

NOTES = [
    "Previous preference signals suggest 'Split the test file' for review (2 corrective review-verdict signals)",
    "Previous preference signals suggest 'Split the test file' for testing (2 corrective review-verdict signals)",
]


# §13 "During /legion:plan approach suggestion: 1. Recall preferences with decision_point_filter: "review-verdict"
# 2. Look for patterns: do corrective signals cluster around specific task types or approaches?
# 3. Surface as a note: "Previous preference signals suggest {pattern} for {task type}""
def test_briefing_report_carries_the_preference_notes(folder: Path, tmp_path: Path) -> None:
    legion = LegionMemory(folder, branch_provider=lambda root: "main", claude_home=tmp_path / "home")
    report = briefing_report(legion)
    assert report.preference_notes == NOTES
    assert report.to_json()["preference_notes"] == NOTES


def test_briefing_prints_the_notes_in_text_and_json(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "briefing")
    assert code == 0 and [line for line in out.splitlines() if line.startswith("Previous")] == NOTES
    code, out, _ = run(capsys, "legion", "briefing", "--json")
    assert code == 0 and json.loads(out)["preference_notes"] == NOTES


# §13 "This is advisory": no cluster, no note; §6: nothing printed without memory
def test_no_cluster_no_note(capsys: pytest.CaptureFixture[str], folder: Path) -> None:
    (folder / "PREFERENCES.md").unlink()
    code, out, _ = run(capsys, "legion", "briefing")
    assert code == 0 and "Previous preference signals" not in out
    code, out, _ = run(capsys, "legion", "briefing", "--json")
    assert json.loads(out)["preference_notes"] == []
