"""Settings, current phase, prune plan / apply / restore, next ID after prune, auto-prune."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.planning import current_phase_from_text, load_memory_settings
from mneme_tui.legion.markdown.schemas import ARCHIVE
from mneme_tui.legion.skill import prune as prune_mod
from mneme_tui.legion.skill.api import LegionMemory

from .conftest import outcome_row, write_outcomes


def _settings(project: Path, payload: str) -> None:
    (project / ".planning").mkdir(exist_ok=True)
    (project / ".planning/settings.json").write_text(payload, encoding="utf-8")


def test_settings_defaults_values_and_malformed(project: Path) -> None:
    settings = load_memory_settings(project)
    assert (settings.auto_prune, settings.prune_threshold, settings.prune_age_days) == (False, 200, 90)
    _settings(project, json.dumps({"memory": {"auto_prune": True, "prune_threshold": 5, "prune_age_days": 30}}))
    settings = load_memory_settings(project)
    assert (settings.auto_prune, settings.prune_threshold, settings.prune_age_days) == (True, 5, 30)
    _settings(project, "{not json")
    settings = load_memory_settings(project)
    assert settings.prune_threshold == 200 and len(settings.warnings) == 1
    _settings(project, json.dumps({"memory": {"auto_prune": "yes", "prune_age_days": -3, "prune_threshold": 10}}))
    settings = load_memory_settings(project)
    assert (settings.auto_prune, settings.prune_age_days, settings.prune_threshold) == (False, 90, 10)
    assert len(settings.warnings) == 2


@pytest.mark.parametrize(
    ("text", "phase"),
    [
        ("# State\nPhase: 5\n", 5),
        ("**Current Phase:** 05 — memory layer\n", 5),
        ("- Current phase: 7 of 9 (Polish)\n", 7),
        ("## Current Phase\n\nPhase 3: Dispatch board\n", 3),
        ("## Current Position\n\n4 — Outlook push\n", 4),
        ("# State\n## Phase 3: done\nNothing current\n", None),
        ("", None),
    ],
)
def test_current_phase_forms(text: str, phase: int | None) -> None:
    assert current_phase_from_text(text.splitlines()) == phase


def _project_rows() -> list[str]:
    return [
        outcome_row(1, "2026-01-10", importance=2, phase="1"),  # candidate
        outcome_row(2, "2026-01-11", importance=4, phase="1"),  # high importance
        outcome_row(3, "2026-01-12", importance=3, phase="5"),  # current phase
        outcome_row(4, "2026-10-01", importance=1, phase="2"),  # recent
        outcome_row(5, "someday", importance=1, phase="2"),  # undated
        outcome_row(6, "2026-07-16", importance=3, phase="02"),  # 91 days: candidate
        outcome_row(7, "2026-07-17", importance=3, phase="2"),  # 90 days: recent
    ]


def _state(project: Path, phase: int) -> None:
    (project / ".planning").mkdir(exist_ok=True)
    (project / ".planning/STATE.md").write_text(f"# Project State\n\nCurrent Phase: {phase} (memory)\n", "utf-8")


def test_prune_plan_lists_candidates_and_reasons(memory: LegionMemory, project: Path) -> None:
    write_outcomes(memory, _project_rows())
    _state(project, 5)
    plan = memory.prune_plan()
    assert plan.current_phase == 5 and plan.total_records == 7
    assert [e.record.id for e in plan.candidates] == ["O-001", "O-006"]
    assert {e.record.id: e.reason for e in plan.kept} == {
        "O-002": "high importance",
        "O-003": "current phase",
        "O-004": "recent",
        "O-005": "undated",
        "O-007": "recent",
    }
    assert plan.to_json()["candidates"][1]["days_old"] == 91


def test_apply_prune_moves_rows_and_reports(memory: LegionMemory, project: Path) -> None:
    path = write_outcomes(memory, _project_rows())
    original_lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    _state(project, 5)
    result = memory.apply_prune(memory.prune_plan())
    assert result.ok and result.archived == 2 and result.remaining == 5
    assert (result.preserved_high_importance, result.preserved_current_phase, result.archive_total) == (1, 1, 2)
    assert result.message.startswith("Pruned 2 records → .planning/memory/ARCHIVE.md\nRemaining: 5 active records")
    archive_text = (memory.memory_dir / "ARCHIVE.md").read_text(encoding="utf-8")
    assert archive_text == ARCHIVE.template + original_lines[9] + original_lines[14]  # rows moved byte for byte
    remaining = path.read_text(encoding="utf-8")
    assert remaining == "".join(line for i, line in enumerate(original_lines) if i not in (9, 14))
    # next ID keeps counting past archived rows
    assert memory.record_outcome(agent="a", outcome="success", summary="s", task_type="t").record.id == "O-008"
    again = memory.prune_plan()
    assert again.candidates == [] and again.message.startswith("No records eligible for pruning")
    assert memory.apply_prune(again).archive_total == 2


def test_next_id_after_pruning_the_newest_rows(memory: LegionMemory) -> None:
    write_outcomes(memory, [outcome_row(n, "2026-01-01") for n in range(1, 6)])
    result = memory.apply_prune(memory.prune_plan())
    assert result.archived == 5 and result.remaining == 0
    assert memory.record_outcome(agent="a", outcome="success", summary="s", task_type="t").record.id == "O-006"


def test_prune_restores_both_files_when_verification_fails(
    memory: LegionMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_outcomes(memory, _project_rows())
    archive = memory.memory_dir / "ARCHIVE.md"
    archive.write_text(ARCHIVE.template + outcome_row(90, "2025-01-01"), encoding="utf-8")
    before_out, before_arc = path.read_bytes(), archive.read_bytes()
    monkeypatch.setattr(prune_mod, "verify_prune", lambda *args, **kw: False)
    result = memory.apply_prune(memory.prune_plan())
    assert not result.ok and result.archived == 0
    assert result.message == "Prune verification failed. OUTCOMES.md restored to pre-prune state."
    assert "O-001" in result.records_text and "O-006" in result.records_text
    assert path.read_bytes() == before_out and archive.read_bytes() == before_arc


def test_prune_failure_removes_a_new_archive(memory: LegionMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    write_outcomes(memory, _project_rows())
    monkeypatch.setattr(prune_mod, "verify_prune", lambda *args, **kw: False)
    assert not memory.apply_prune(memory.prune_plan()).ok
    assert not (memory.memory_dir / "ARCHIVE.md").exists()


def test_prune_keeps_prose_and_fragments(memory: LegionMemory, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory.memory_dir.mkdir(parents=True)
    text = (corpus / "ace027__custom-psa-nolegion__OUTCOMES.md").read_text(encoding="utf-8")
    (memory.memory_dir / "OUTCOMES.md").write_text(text, encoding="utf-8")
    plan = memory.prune_plan()  # clock 2026-10-15: nothing is 90 days old
    assert plan.candidates == [] and plan.total_records == 26
    monkeypatch.setenv("MNEME_NOW", "2027-06-01T00:00:00")
    plan = memory.prune_plan()
    result = memory.apply_prune(plan)
    after = parse((memory.memory_dir / "OUTCOMES.md").read_text(encoding="utf-8"), "OUTCOMES.md")
    assert result.archived == len(plan.candidates) > 0
    assert len(after.records) == 26 - result.archived
    assert [n.label for n in after.not_imported()] == ["Phase 2 — Shipped 2026-10-10", "Phase 3 — Shipped 2026-10-10"]
    assert all(r.importance >= 4 for r in after.records)


def test_auto_prune_runs_after_store_over_threshold(memory: LegionMemory, project: Path) -> None:
    write_outcomes(memory, [outcome_row(n, "2026-01-01") for n in range(1, 4)])
    _settings(project, json.dumps({"memory": {"auto_prune": True, "prune_threshold": 3}}))
    result = memory.record_outcome(agent="a", outcome="success", summary="s", task_type="t")
    assert result.prune is not None and result.prune.ok and result.prune.archived == 3
    assert [r.id for r in memory.recall_outcomes().records] == ["O-004"]
    _settings(project, json.dumps({"memory": {"auto_prune": False, "prune_threshold": 0}}))
    assert memory.record_outcome(agent="a", outcome="success", summary="s", task_type="t").prune is None
