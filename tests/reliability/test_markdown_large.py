"""Large inputs stay correct (their speed is linear; ``mneme bench`` and the README measure it, tests don't)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme_tui.legion.markdown.cells import escape_cell, unescape_cell
from mneme_tui.legion.markdown.schemas import OUTCOMES
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.legion.skill.compaction import compact_phase

LINES = 3000


def test_large_summary_keeps_every_path_and_requirement(tmp_path: Path) -> None:
    phase = tmp_path / "03-big"
    phase.mkdir()
    body = ["---", "requirements-completed: [REQ-1]", "---", "# Phase 3 Plan 01: big", "", "## Accomplishments"]
    body += [f"- built part {i} in `src/m{i}/f{i}.py` for REQ-{i + 1}" for i in range(LINES)]
    body += ["", "## Execution Log", "```"] + [f"touched lib/log{i}/x{i}.py" for i in range(LINES)] + ["```"]
    (phase / "03-01-SUMMARY.md").write_text("\n".join(body), encoding="utf-8")
    result = compact_phase(phase)
    text = Path(result.path).read_text(encoding="utf-8")
    assert all(f"`src/m{i}/f{i}.py`" in text and f"REQ-{i + 1}" in text for i in range(LINES))
    # paths only in a dropped code fence (a log) are no files of the phase (skill §12): not added back
    assert "lib/log" not in text and result.missing_added == []


def test_huge_escaped_cell_round_trips(tmp_path: Path) -> None:
    value = "a|b\\c\nd\u0001 " * 50_000
    assert unescape_cell(escape_cell(value)) == value
    memory = LegionMemory.for_project(tmp_path, branch_provider=lambda _root: "main", claude_home=tmp_path / "h")
    memory.memory_dir.mkdir(parents=True)
    (memory.memory_dir / "OUTCOMES.md").write_text(OUTCOMES.template, encoding="utf-8")
    stored = memory.record_outcome(agent="a", outcome="success", summary=value)
    assert memory.recall_outcomes(limit=None).records[0].summary == value
    assert stored.record.id == "O-001"


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mneme_tui.legion.markdown import storage

    memory = LegionMemory.for_project(tmp_path, branch_provider=lambda _root: "main", claude_home=tmp_path / "h")
    memory.memory_dir.mkdir(parents=True)
    outcomes = memory.memory_dir / "OUTCOMES.md"
    outcomes.write_text(OUTCOMES.template + "x" * 5000, encoding="utf-8")
    monkeypatch.setattr(storage, "MAX_FILE_BYTES", 4096)
    report = memory.read_all().file("OUTCOMES.md")
    assert report is not None and not report.parseable and "4,096-byte limit" in report.warnings[0]
    before = outcomes.read_bytes()
    with pytest.raises(storage.LegionWriteError) as info:
        memory.record_outcome(agent="a", outcome="success", summary="kept in the error")
    assert "4,096-byte limit" in str(info.value).splitlines()[0] and "kept in the error" in info.value.record_text
    assert outcomes.read_bytes() == before
