"""Store operations: IDs, importance, task types, branches, templates, errors, dedup, concurrency."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from mneme_tui.errors import MnemeError
from mneme_tui.legion.markdown import storage
from mneme_tui.legion.markdown.folder_lock import memory_lock
from mneme_tui.legion.markdown.schemas import ARCHIVE, ERRORS, OUTCOMES, PATTERNS, PREFERENCES
from mneme_tui.legion.markdown.storage import LegionWriteError
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.legion.skill.gitbranch import current_branch, git_branch
from mneme_tui.legion.skill.record_files import base_importance, importance_with_modifiers

from .conftest import outcome_row, write_outcomes

CATALOG = """# Agent Catalog

### Engineering Division (2 agents)

| ID | File | Specialty | Task Types |
|----|------|-----------|------------|
| engineering-backend-architect | `agents/x.md` | APIs | backend, api-development |
| engineering-frontend-developer | `agents/y.md` | UI | frontend, react |

### Design Division (1 agent)

| ID | File | Specialty | Task Types |
|----|------|-----------|------------|
| design-ui-designer | `agents/z.md` | visuals | ui-design, design-systems |
"""


def _store(memory: LegionMemory, **kw):
    args = {
        "agent": "agent-a",
        "outcome": "success",
        "summary": "done",
        "phase": 1,
        "plan": "01-01",
        "task_type": "frontend",
    }
    args.update(kw)
    return memory.record_outcome(**args)


def test_first_store_creates_folder_and_template(memory: LegionMemory) -> None:
    result = _store(memory, tags=["ui", "phase-1"])
    path = memory.memory_dir / "OUTCOMES.md"
    text = path.read_text(encoding="utf-8")
    assert text.startswith(OUTCOMES.template)
    assert text[len(OUTCOMES.template) :] == (
        "| O-001 | 2026-10-15 | main | 1 | 01-01 | agent-a | frontend | success | 3 | ui, phase-1 | done |\n"
    )
    assert result.record.id == "O-001" and result.action == "created"
    assert result.record.importance == 3  # standard success 2 + first time for agent/task type
    assert (memory.memory_dir / ".lock").exists()


@pytest.mark.parametrize(
    ("method", "schema", "kwargs"),
    [
        (
            "record_pattern",
            PATTERNS,
            {
                "pattern": "wave tests",
                "context": "phase 5",
                "reuse_criteria": "3+ plans",
                "source": "O-001",
                "tags": ["testing"],
            },
        ),
        ("record_error", ERRORS, {"error_signature": "TypeError: x is undefined", "fix": "guard", "agent": "a"}),
        (
            "record_preference",
            PREFERENCES,
            {
                "decision_point": "review-verdict",
                "context": "Phase 1 review",
                "proposed": "PASS",
                "user_choice": "accepted",
                "signal": "positive",
            },
        ),
    ],
)
def test_other_files_get_their_templates(memory: LegionMemory, method: str, schema, kwargs: dict) -> None:
    result = getattr(memory, method)(**kwargs)
    text = (memory.memory_dir / schema.file_name).read_text(encoding="utf-8")
    assert text.startswith(schema.template)
    assert result.record.id == f"{schema.id_prefix}-001"
    assert len(text.splitlines()) == len(schema.template.splitlines()) + 1


def test_reads_never_create_files(memory: LegionMemory) -> None:
    assert memory.recall_outcomes().records == []
    assert memory.briefing().total_records == 0
    assert memory.recall_errors(error_text="boom").records == []
    assert memory.prune_plan().candidates == []
    report = memory.read_all()
    assert all(not f.exists and f.warnings == [] for f in report.files)
    assert not memory.memory_dir.exists()


def test_next_id_is_highest_plus_one_including_archive(memory: LegionMemory) -> None:
    write_outcomes(memory, [outcome_row(1, "2026-10-01"), outcome_row(7, "2026-10-02"), outcome_row(3, "2026-10-03")])
    (memory.memory_dir / "ARCHIVE.md").write_text(ARCHIVE.template + outcome_row(12, "2025-01-01"), encoding="utf-8")
    assert _store(memory).record.id == "O-013"
    (memory.memory_dir / "ARCHIVE.md").unlink()
    assert _store(memory).record.id == "O-014"


def test_duplicate_ids_from_a_merge_both_survive(memory: LegionMemory) -> None:
    write_outcomes(
        memory,
        [
            outcome_row(1, "2026-10-01"),
            outcome_row(2, "2026-10-02", agent="x"),
            outcome_row(2, "2026-10-02", agent="y"),
        ],
    )
    records = memory.read_all().file("OUTCOMES.md").records  # type: ignore[union-attr]
    assert [r.key for r in records] == ["OUTCOMES.md:O-001:0", "OUTCOMES.md:O-002:0", "OUTCOMES.md:O-002:1"]
    assert _store(memory).record.id == "O-003"


def test_importance_base_and_modifiers() -> None:
    assert base_importance("failed") == 5
    assert base_importance("success", review_escalated=True) == 4
    assert base_importance("partial") == 3 and base_importance("success", review_cycles=2) == 3
    assert base_importance("success") == 2 and base_importance("success", trivial=True) == 1
    assert importance_with_modifiers(2, first_time=True, cross_division=True, review_blockers=3) == 5
    assert importance_with_modifiers(4, first_time=True, cross_division=True) == 5  # capped


def test_importance_uses_history_and_catalog_divisions(memory: LegionMemory, project: Path) -> None:
    (project / "skills/agent-registry").mkdir(parents=True)
    (project / "skills/agent-registry/CATALOG.md").write_text(CATALOG, encoding="utf-8")
    first = _store(memory, agent="engineering-frontend-developer", task_type="frontend")
    again = _store(memory, agent="engineering-frontend-developer", task_type="frontend")
    cross = _store(memory, agent="design-ui-designer", task_type="backend", outcome="partial", review_blockers=3)
    assert (first.record.importance, again.record.importance) == (3, 2)
    assert cross.record.importance == 5  # 3 + first time + cross-division + blockers, capped at 5
    assert _store(memory, importance=1).record.importance == 1


def test_task_type_inference_chain(memory: LegionMemory, project: Path) -> None:
    assert _store(memory, agent="engineering-backend-architect", task_type=None).record.task_type == "general"
    (project / ".planning").mkdir(exist_ok=True)
    (project / ".planning/CATALOG.md").write_text(CATALOG, encoding="utf-8")
    assert _store(memory, agent="engineering-backend-architect", task_type="").record.task_type == "backend"
    assert _store(memory, agent="engineering-backend-architect", task_type="ci-cd").record.task_type == "ci-cd"
    assert _store(memory, agent="autonomous", task_type=None).record.task_type == "general"
    assert _store(memory, agent="not-in-catalog", task_type=None).record.task_type == "general"


def test_branch_detection_and_fallback(project: Path, tmp_path: Path) -> None:
    assert current_branch(project, lambda root: "feature/auth") == "feature/auth"
    assert current_branch(project, lambda root: "") == "unknown"

    def broken(root: Path) -> str:
        raise OSError("no git")

    assert current_branch(project, broken) == "unknown"
    assert git_branch(tmp_path / "missing-folder") == "unknown"
    memory = LegionMemory.for_project(project, branch_provider=broken, claude_home=tmp_path)
    assert _store(memory).record.branch == "unknown"


def test_validation_errors(memory: LegionMemory) -> None:
    with pytest.raises(MnemeError):
        _store(memory, outcome="great")
    with pytest.raises(MnemeError):
        _store(memory, summary="  ")
    with pytest.raises(MnemeError):
        memory.record_preference(
            decision_point="review-verdict", context="c", proposed="p", user_choice="u", signal="meh"
        )
    assert not (memory.memory_dir / "OUTCOMES.md").exists()


def test_unparseable_file_is_never_rewritten(memory: LegionMemory) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01"), "| O-002 | 2026-10-02 | main | broken |\n"])
    before = path.read_bytes()
    recall = memory.recall_outcomes()
    assert recall.records == [] and len(recall.warnings) == 1
    assert recall.warnings[0].startswith("Warning: OUTCOMES.md could not be parsed")
    with pytest.raises(LegionWriteError) as info:
        _store(memory, summary="precious text")
    assert "precious text" in info.value.record_text and "precious text" in str(info.value)
    assert path.read_bytes() == before


def test_conflict_markers_and_bad_utf8_are_unparseable(memory: LegionMemory) -> None:
    path = write_outcomes(
        memory,
        ["<<<<<<< HEAD\n", outcome_row(1, "2026-10-01"), "=======\n", outcome_row(1, "2026-10-02"), ">>>>>>> branch\n"],
    )
    assert memory.recall_outcomes().warnings and memory.recall_outcomes().records == []
    path.write_bytes(b"# x\n\xff\xfe\n")
    report = memory.read_all().file("OUTCOMES.md")
    assert report is not None and not report.parseable and len(report.warnings) == 1


def test_failed_verification_restores_and_reports(memory: LegionMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01")])
    before = path.read_bytes()
    real_load = storage.load_document

    def lying_load(p, **kw):
        doc = real_load(p, **kw)
        doc.segments = [s for s in doc.segments if s.kind != "row"]  # pretend the rows vanished
        return doc

    monkeypatch.setattr(storage, "load_document", lying_load)
    with pytest.raises(LegionWriteError) as info:
        _store(memory, summary="keep me")
    assert "keep me" in info.value.record_text
    assert path.read_bytes() == before
    assert [p.name for p in memory.memory_dir.iterdir() if p.name.endswith(".tmp")] == []


def test_write_failure_keeps_old_file(memory: LegionMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01")])
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("\nNotes after the table: a record must be inserted, so the file is rewritten.\n")
    before = path.read_bytes()

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(storage.os, "replace", failing_replace)
    with pytest.raises(LegionWriteError) as info:
        _store(memory, summary="not lost")
    assert "not lost" in str(info.value)
    assert path.read_bytes() == before
    assert not any(p.name.endswith(".tmp") for p in memory.memory_dir.iterdir())


def test_lock_timeout_is_an_error(memory: LegionMemory) -> None:
    memory.lock_timeout = 0.05
    with memory_lock(memory.memory_dir), pytest.raises(LegionWriteError) as info:
        _store(memory, summary="waiting")
    assert "timed out" in str(info.value) and "waiting" in info.value.record_text


def test_crlf_file_keeps_its_line_endings(memory: LegionMemory) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01")])
    crlf = path.read_bytes().replace(b"\n", b"\r\n")
    path.write_bytes(crlf)
    _store(memory)
    data = path.read_bytes()
    assert data.startswith(crlf) and data.endswith(b"\r\n") and data.count(b"\n") == data.count(b"\r\n")


def test_file_without_trailing_newline(memory: LegionMemory) -> None:
    path = write_outcomes(memory, [outcome_row(1, "2026-10-01").rstrip("\n")])
    _store(memory)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[-2].startswith("| O-001") and lines[-1].startswith("| O-002")


def test_error_dedup_is_fuzzy(memory: LegionMemory) -> None:
    first = memory.record_error(
        error_signature="TypeError: Cannot read property 'map' of undefined in render",
        fix="add optional chaining",
        agent="dev-a",
        resolved=True,
        tags=["react"],
    )
    dup = memory.record_error(
        error_signature="typeerror: cannot read property 'map' of undefined", fix="something else"
    )
    assert dup.action == "skipped" and dup.existing_id == first.record.id == "E-001"

    unresolved = memory.record_error(
        error_signature="ECONNREFUSED 127.0.0.1:5432 while running migrations", fix="retry", resolved=False, tags=["db"]
    )
    assert unresolved.record.id == "E-002" and unresolved.action == "created"
    updated = memory.record_error(
        error_signature="connect ECONNREFUSED 127.0.0.1:5432 running migrations",
        fix="start postgres before migrations",
        agent="dev-b",
        tags=["postgres"],
    )
    assert updated.action == "updated" and updated.record.id == "E-002"
    rows = memory.recall_errors(limit=None).records
    assert len(rows) == 2
    fixed = next(r for r in rows if r.id == "E-002")
    assert fixed.fix == "start postgres before migrations" and fixed.resolved and fixed.tags == ["db", "postgres"]

    other = memory.record_error(error_signature="ModuleNotFoundError: No module named 'yaml'", fix="pip install pyyaml")
    assert other.action == "created" and other.record.id == "E-003"


def _append_many(args: tuple[str, str, int]) -> None:
    root, name, count = args
    memory = LegionMemory.for_project(Path(root), branch_provider=lambda r: "main", claude_home=Path(root))
    for n in range(count):
        memory.record_outcome(agent=name, outcome="success", summary=f"{name} {n}", task_type="x", importance=2)


def test_two_processes_appending_lose_nothing(project: Path) -> None:
    context = multiprocessing.get_context("fork")
    with context.Pool(2) as pool:
        pool.map(_append_many, [(str(project), "proc-a", 50), (str(project), "proc-b", 50)])
    memory = LegionMemory.for_project(project, branch_provider=lambda r: "main", claude_home=project)
    records = memory.read_all().file("OUTCOMES.md").records  # type: ignore[union-attr]
    assert len(records) == 100
    assert sorted(r.summary for r in records) == sorted(
        [f"proc-a {n}" for n in range(50)] + [f"proc-b {n}" for n in range(50)]
    )
    assert sorted(r.id for r in records) == [f"O-{n:03d}" for n in range(1, 101)]
