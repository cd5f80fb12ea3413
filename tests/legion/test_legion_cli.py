"""`mneme legion ...`: sync, recall, briefing, agents, record, prune, compact (plain, --json, bad input)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mneme_tui.cli import legion_commands, main
from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.schemas import ARCHIVE, OUTCOMES, PREFERENCES

from .conftest import outcome_row

ROWS = [
    outcome_row(
        1,
        "2026-10-10",
        agent="agent-a",
        task_type="frontend",
        tags="ui, web",
        summary="Refactored app.py [Store.save] [bold]x[/bold]",
    ),
    outcome_row(
        2,
        "2026-10-11",
        agent="agent-a",
        task_type="frontend",
        outcome="failed",
        importance=5,
        branch="feature-x",
        summary="broke the build",
    ),
    outcome_row(3, "2026-10-12", agent="agent-b", task_type="backend", tags="api", summary="api done"),
    outcome_row(4, "2026-10-13", agent="agent-b", task_type="backend", tags="api", summary="api tests"),
    outcome_row(5, "2026-01-02", agent="agent-c", task_type="backend", importance=1, summary="old and small"),
]


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setattr(legion_commands, "BRANCH_PROVIDER", lambda folder: "feature-x")
    return root


@pytest.fixture
def folder(proj: Path) -> Path:
    memory_dir = proj / ".planning" / "memory"
    memory_dir.mkdir(parents=True)
    (memory_dir / "OUTCOMES.md").write_text(OUTCOMES.template + "".join(ROWS), encoding="utf-8")
    return memory_dir


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and err.startswith("mneme")


# ---------------------------------------------------------------------------------- sync
def test_sync_plain_then_unchanged(capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "sync", "-p", "proj")
    assert code == 0
    assert "5 added, 0 updated, 0 unchanged" in out and "OUTCOMES.md: 5 records: 5 added" in out
    code, out, _ = run(capsys, "legion", "sync", "-p", "proj")
    assert code == 0 and "0 added, 0 updated, 5 unchanged" in out


def test_sync_json(capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "sync", "--json", "-p", "proj", "--dir", str(folder))
    document = json.loads(out)
    assert code == 0 and document["synced"] is True and document["project"] == "proj"
    assert document["totals"]["added"] == 5
    entry = next(f for f in document["files"] if f["file"] == "OUTCOMES.md")
    assert {"added", "updated", "unchanged", "removed", "not_imported", "exported", "records"} <= set(entry)
    code, out, _ = run(capsys, "list", "-p", "proj", "--json", "-n", "50")
    assert code == 0 and len(json.loads(out)) == 5 and {m["kind"] for m in json.loads(out)} == {"outcome"}


def test_sync_exports_a_saved_preference(capsys, folder: Path) -> None:
    code, _, _ = run(capsys, "save", "--kind", "preference", "-p", "proj", "Prefer small PRs")
    assert code == 0
    code, out, _ = run(capsys, "legion", "sync", "-p", "proj")
    assert code == 0 and "1 exported" in out
    records = parse((folder / "PREFERENCES.md").read_text(encoding="utf-8")).records
    assert [r.context for r in records] == ["Prefer small PRs"]


def test_sync_uses_env_folder_and_project_default(
    capsys, proj: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "OUTCOMES.md").write_text(OUTCOMES.template + ROWS[0], encoding="utf-8")
    monkeypatch.setenv("MNEME_LEGION_DIR", str(other))
    monkeypatch.setenv("MNEME_REPO", "envrepo")
    code, out, _ = run(capsys, "legion", "sync", "--json")
    document = json.loads(out)
    assert code == 0 and document["memory_dir"] == str(other) and document["project"] == "envrepo"


def test_sync_missing_folder_is_calm(capsys, proj: Path) -> None:
    code, out, _ = run(capsys, "legion", "sync")
    assert code == 0 and "nothing to sync" in out
    code, out, _ = run(capsys, "legion", "sync", "--json")
    assert code == 0 and json.loads(out)["synced"] is False
    assert not Path(os.environ["MNEME_DB"]).exists()


def test_dir_that_is_a_file_is_one_line_error(capsys, proj: Path) -> None:
    (proj / "afile").write_text("x")
    code, out, err = run(capsys, "legion", "sync", "--dir", "afile")
    assert code == 1 and out == "" and one_line_error(err) and "is not a folder" in err


# -------------------------------------------------------------------------------- recall
def test_recall_plain_shows_text_literally(capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "recall")
    assert code == 0
    assert "[Store.save]" in out and "[bold]x[/bold]" in out
    assert "4 of 5 records" in out  # the January row decays below 0.2


def test_recall_json_and_filters(capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "recall", "--json", "--agent", "agent-b", "-n", "1")
    document = json.loads(out)
    assert code == 0 and document["total_records"] == 5 and len(document["records"]) == 1
    record = document["records"][0]
    for key in (
        "id",
        "date",
        "branch",
        "phase",
        "plan",
        "agent",
        "task_type",
        "outcome",
        "importance",
        "tags",
        "summary",
        "decay_score",
        "recency_weight",
    ):
        assert key in record
    assert record["id"] == "O-004" and record["decay_score"] == 2.0
    _, out, _ = run(capsys, "legion", "recall", "--json", "--tags", "api,web")
    assert sorted(r["id"] for r in json.loads(out)["records"]) == ["O-001", "O-003", "O-004"]
    _, out, _ = run(capsys, "legion", "recall", "--json", "--task-type", "frontend", "--branch", "current")
    assert [r["id"] for r in json.loads(out)["records"]] == ["O-002"]
    _, out, _ = run(capsys, "legion", "recall", "--agent", "nobody")
    assert "No matching outcomes (5 records" in out


def test_recall_bad_limit_is_usage_error(capsys, folder: Path) -> None:
    code, out, err = run(capsys, "legion", "recall", "-n", "0")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_read_commands_with_missing_folder_are_calm(capsys, proj: Path) -> None:
    for command in ("recall", "briefing", "agents"):
        code, out, err = run(capsys, "legion", command)
        # Skill §6: "Do NOT display a warning or placeholder about missing memory"
        assert code == 0 and out == "" and err == "", command
    code, out, _ = run(capsys, "legion", "recall", "--json")
    assert code == 0 and json.loads(out)["records"] == []
    code, out, _ = run(capsys, "legion", "agents", "--json")
    assert code == 0 and json.loads(out) == {"agents": [], "archetypes": []}
    assert not (proj / ".planning").exists()


# ------------------------------------------------------------------------ briefing/agents
def test_briefing_plain_and_json(capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "briefing")
    assert code == 0 and "Session briefing: 5 outcome records" in out and "Top agents" in out
    code, out, _ = run(capsys, "legion", "briefing", "--json")
    document = json.loads(out)
    assert code == 0 and document["total_records"] == 5 and len(document["recent_outcomes"]) == 4
    assert document["top_agents"][0]["agent_id"] in {"agent-a", "agent-b"}


def test_agents_plain_and_json(capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "agents")
    assert code == 0 and "agent-b" in out and "Task types" in out
    code, out, _ = run(capsys, "legion", "agents", "--json", "--task-types", "api")  # spec §4: by tags
    assert code == 0 and [a["agent_id"] for a in json.loads(out)["agents"]] == ["agent-b"]
    code, out, _ = run(capsys, "legion", "agents", "--json", "--task-types", "backend")
    assert code == 0 and json.loads(out)["agents"] == []  # no row is tagged backend
    code, out, _ = run(capsys, "legion", "agents", "--json", "--task-types", "backend", "--match", "either")
    document = json.loads(out)
    assert code == 0 and [a["agent_id"] for a in document["agents"]] == ["agent-b"]
    assert document["agents"][0]["memory_score"] > 0
    assert [t["task_type"] for t in document["archetypes"]] == ["backend"]


# -------------------------------------------------------------------------------- record
def test_record_outcome_plain_and_json(capsys, folder: Path) -> None:
    code, out, _ = run(
        capsys,
        "legion",
        "record",
        "outcome",
        "--agent",
        "agent-z",
        "--outcome",
        "success",
        "--summary",
        "shipped [it]",
        "--task-type",
        "frontend",
        "--tags",
        "a,b",
        "--plan",
        "07-01",
    )
    assert code == 0 and "Recorded O-006 in OUTCOMES.md" in out
    code, out, _ = run(
        capsys,
        "legion",
        "record",
        "outcome",
        "--json",
        "--agent",
        "agent-z",
        "--outcome",
        "partial",
        "--summary",
        "half",
        "--importance",
        "4",
    )
    document = json.loads(out)
    assert code == 0 and document["action"] == "created" and document["record"]["id"] == "O-007"
    assert document["record"]["branch"] == "feature-x" and document["record"]["importance"] == 4
    records = parse((folder / "OUTCOMES.md").read_text(encoding="utf-8")).records
    assert records[-2].summary == "shipped [it]" and records[-2].tags == ["a", "b"]


def test_record_pattern_error_preference(capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "record", "pattern", "--pattern", "wave tests", "--reuse-criteria", "3+")
    assert code == 0 and "Recorded P-001 in PATTERNS.md" in out
    args = ("legion", "record", "error", "--error-signature", "TypeError: x is undefined", "--fix", "guard x")
    code, out, _ = run(capsys, *args)
    assert code == 0 and "Recorded E-001" in out
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0 and json.loads(out)["action"] == "skipped"
    code, out, _ = run(
        capsys,
        "legion",
        "record",
        "preference",
        "--decision-point",
        "agent-selection",
        "--context",
        "picked b",
        "--signal",
        "positive",
        "--json",
    )
    assert code == 0 and json.loads(out)["record"]["id"] == "D-001"
    assert json.loads(out)["record"]["agent"] == "system"


@pytest.mark.parametrize(
    "argv",
    [
        ("outcome", "--agent", "", "--outcome", "success", "--summary", "s"),
        ("outcome", "--agent", "a", "--outcome", "success", "--summary", "s", "--importance", "9"),
        ("pattern", "--pattern", "   "),
        ("error", "--error-signature", "x", "--fix", ""),
        ("pattern", "--pattern", "p", "--branch", " "),
    ],
)
def test_record_validation_is_one_line_and_writes_nothing(capsys, proj: Path, argv: tuple[str, ...]) -> None:
    code, out, err = run(capsys, "legion", "record", *argv)
    assert code == 1 and out == "" and one_line_error(err) and "ERR_VALIDATION_FAILED" in err
    assert not any((proj / ".planning" / "memory").glob("*.md"))


@pytest.mark.parametrize(
    "argv",
    [
        ("outcome", "--agent", "a", "--importance", "high"),
        ("lesson", "--text", "x"),
        ("outcome", "--review-cycles", "-1"),
        ("outcome", "--agent", "a", "--outcome", "maybe", "--summary", "s"),
        ("outcome", "--outcome", "success", "--summary", "s"),
        ("error", "--error-signature", "x"),
        ("preference", "--decision-point", "lunch", "--context", "c", "--signal", "positive"),
        ("preference", "--decision-point", "manual-edit", "--context", "c", "--signal", "meh"),
    ],
)
def test_record_usage_errors_exit_2(capsys, proj: Path, argv: tuple[str, ...]) -> None:
    code, out, err = run(capsys, "legion", "record", *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert not any((proj / ".planning" / "memory").glob("*.md"))


def test_record_without_fields_names_every_missing_option(capsys, proj: Path) -> None:
    code, _, err = run(capsys, "legion", "record", "outcome")
    assert code == 2 and "required: --agent, --outcome, --summary" in err
    code, _, err = run(capsys, "legion", "record", "preference", "--signal", "positive")
    assert code == 2 and "required: --decision-point, --context" in err


def test_record_write_failure_prints_the_record(capsys, proj: Path) -> None:
    memory_dir = proj / ".planning" / "memory"
    memory_dir.mkdir(parents=True)
    broken = "<<<<<<< HEAD\n| P-001 |\n>>>>>>> b\n"
    (memory_dir / "PATTERNS.md").write_text(broken, encoding="utf-8")
    code, out, err = run(capsys, "legion", "record", "pattern", "--pattern", "keep me", "--context", "ctx")
    assert code == 1 and one_line_error(err) and "not rewritten" in err
    assert "pattern: keep me" in out and "context: ctx" in out
    assert (memory_dir / "PATTERNS.md").read_text(encoding="utf-8") == broken
    code, out, _ = run(capsys, "legion", "record", "pattern", "--pattern", "keep me", "--json")
    assert code == 1 and "keep me" in json.loads(out)["record_text"]


# --------------------------------------------------------------------------------- prune
def test_prune_preview_then_apply(capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "prune")
    assert code == 0 and "O-005" in out and "--apply" in out and "Kept 4" in out
    code, out, _ = run(capsys, "legion", "prune", "--json")
    document = json.loads(out)
    assert code == 0 and document["applied"] is False and "result" not in document
    assert [c["id"] for c in document["candidates"]] == ["O-005"]
    assert document["candidates"][0]["reason"] == "old, low importance" and len(document["kept"]) == 4
    code, out, _ = run(capsys, "legion", "prune", "--apply", "--json")
    document = json.loads(out)
    assert code == 0 and document["applied"] is True
    assert document["result"]["archived"] == 1 and document["result"]["remaining"] == 4
    archived = parse((folder / ARCHIVE.file_name).read_text(encoding="utf-8")).records
    assert [r.id for r in archived] == ["O-005"]
    code, out, _ = run(capsys, "legion", "prune", "--apply")
    assert code == 0 and "No records eligible for pruning" in out


def test_prune_apply_prints_the_report_on_separate_lines(capsys, folder: Path) -> None:
    code, out, _ = run(capsys, "legion", "prune", "--apply")
    assert code == 0 and "\\n" not in out
    assert "Pruned 1 records → .planning/memory/ARCHIVE.md\nRemaining: 4 active records\n" in out


def test_prune_missing_folder(capsys, proj: Path) -> None:
    code, out, _ = run(capsys, "legion", "prune", "--json")
    assert code == 0 and json.loads(out)["candidates"] == [] and json.loads(out)["applied"] is False


def test_pruned_row_after_sync_is_archived_in_store(capsys, folder: Path) -> None:
    run(capsys, "legion", "sync", "-p", "proj")
    run(capsys, "legion", "prune", "--apply")
    _code, out, _ = run(capsys, "legion", "sync", "-p", "proj", "--json")
    assert json.loads(out)["totals"]["added"] == 0
    _, out, _ = run(capsys, "list", "-p", "proj", "--status", "superseded", "--json")
    assert [m["content"].splitlines()[0] for m in json.loads(out)] == ["old and small"]


# ------------------------------------------------------------------------------- compact
SUMMARY = """---
requirements: [REQ-01]
---
# Plan 01 Summary

## Accomplishments
- Built `src/app.py`

## Performance
- took 3 minutes
"""


def test_compact_plain_and_json(capsys, tmp_path: Path, proj: Path) -> None:
    phase = tmp_path / "03-api"
    phase.mkdir()
    (phase / "03-01-SUMMARY.md").write_text(SUMMARY, encoding="utf-8")
    code, out, _ = run(capsys, "legion", "compact", str(phase))
    assert code == 0 and "03-COMPACTED.md" in out and "REQ-01" in out
    code, out, _ = run(capsys, "legion", "compact", str(phase), "--json")
    document = json.loads(out)
    assert code == 0 and document["requirements_satisfied"] == ["REQ-01"]
    assert (phase / "03-COMPACTED.md").is_file() and "took 3 minutes" not in (phase / "03-COMPACTED.md").read_text()


def test_compact_bad_folder(capsys, tmp_path: Path, proj: Path) -> None:
    code, out, err = run(capsys, "legion", "compact", str(tmp_path / "nope"))
    assert code == 1 and out == "" and one_line_error(err)
    empty = tmp_path / "04-empty"
    empty.mkdir()
    code, out, err = run(capsys, "legion", "compact", str(empty))
    assert code == 1 and one_line_error(err) and "SUMMARY" in err


def test_legion_without_action_is_usage_error(capsys, proj: Path) -> None:
    code, out, _err = run(capsys, "legion")
    assert code == 2 and out == ""


def test_preferences_template_is_what_export_writes(capsys, folder: Path) -> None:
    run(capsys, "save", "--kind", "preference", "-p", "proj", "Tabs")
    run(capsys, "legion", "sync", "-p", "proj")
    assert (folder / "PREFERENCES.md").read_text(encoding="utf-8").startswith(PREFERENCES.template)


# ------------------------------------------------------------------ skill conformance (issue 20)
def test_read_commands_with_a_folder_but_no_outcomes_display_nothing(capsys, proj: Path) -> None:
    """Skill §6: OUTCOMES.md absent (the folder present) -> nothing displayed, no placeholder line."""
    (proj / ".planning" / "memory").mkdir(parents=True)
    for argv in (("recall",), ("briefing",), ("agents",), ("recall", "patterns")):
        code, out, err = run(capsys, "legion", *argv)
        assert code == 0 and out == "" and err == "", argv


def test_a_failed_write_prints_the_record_as_it_would_have_been_written(
    capsys, proj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Skill §3 step 7: the recovery record carries the ID and the computed importance, not blanks and 2."""
    from mneme_tui.legion.markdown import storage

    memory_dir = proj / ".planning" / "memory"
    memory_dir.mkdir(parents=True)
    (memory_dir / "OUTCOMES.md").write_text(OUTCOMES.template + ROWS[0], encoding="utf-8")
    real_load = storage.load_document

    def lose_the_row(path, **kw):  # the write "lands" nowhere: verification fails
        document = real_load(path, **kw)
        document.segments = [s for s in document.segments if "lost write" not in s.text]
        return document

    monkeypatch.setattr(storage, "load_document", lose_the_row)
    code, out, err = run(
        capsys, "legion", "record", "outcome", "--agent", "agent-z", "--outcome", "failed", "--summary", "lost write"
    )
    assert code == 1 and one_line_error(err)
    assert "  id: O-002" in out and "  importance: 5" in out and "  summary: lost write" in out


def test_a_write_into_an_unparsed_file_still_shows_the_base_importance(capsys, proj: Path) -> None:
    memory_dir = proj / ".planning" / "memory"
    memory_dir.mkdir(parents=True)
    (memory_dir / "OUTCOMES.md").write_text("<<<<<<< HEAD\n=======\n>>>>>>> b\n", encoding="utf-8")
    code, out, _ = run(capsys, "legion", "record", "outcome", "--agent", "a", "--outcome", "partial", "--summary", "s")
    assert code == 1 and "  importance: 3" in out  # partial: base 3 (no file to learn "first time" from)


MISSING_OUTCOME_COLUMN = (
    "# Memory — Outcome Log\n\n## Records\n\n"
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Importance | Tags | Summary |\n"
    "|----|------|--------|-------|------|-------|-----------|------------|------|---------|\n"
    "| O-001 | 2026-10-01 | main | 1 | 01-01 | a | frontend | 2 | ui | no outcome column |\n"
)


def test_a_table_missing_a_required_column_warns_and_is_never_written_into(capsys, proj: Path) -> None:
    """Skill §7: "could not be parsed" (missing columns); a record is refused, not a second ## Records."""
    memory_dir = proj / ".planning" / "memory"
    memory_dir.mkdir(parents=True)
    path = memory_dir / "OUTCOMES.md"
    path.write_text(MISSING_OUTCOME_COLUMN, encoding="utf-8")
    code, out, err = run(capsys, "legion", "recall")
    assert code == 0 and "Warning: OUTCOMES.md could not be parsed" in err and "lacks the Outcome column" in err
    code, out, err = run(
        capsys, "legion", "record", "outcome", "--agent", "a", "--outcome", "success", "--summary", "s"
    )
    assert code == 1 and one_line_error(err) and "could not be parsed" in err and "summary: s" in out
    assert path.read_text(encoding="utf-8") == MISSING_OUTCOME_COLUMN


def test_record_takes_the_phase_from_state_md_when_none_is_given(capsys, folder: Path, proj: Path) -> None:
    """Skill §3 step 5: "Phase: from the current phase context"."""
    (proj / ".planning" / "STATE.md").write_text("# State\n\nPhase: 4 of 6 (api)\n", encoding="utf-8")
    code, out, _ = run(
        capsys,
        "legion",
        "record",
        "outcome",
        "--agent",
        "a",
        "--outcome",
        "success",
        "--summary",
        "no phase given",
        "--json",
    )
    assert code == 0 and json.loads(out)["record"]["phase"] == "4"
    code, out, _ = run(
        capsys,
        "legion",
        "record",
        "outcome",
        "--agent",
        "a",
        "--outcome",
        "success",
        "--summary",
        "phase given",
        "--phase",
        "2",
        "--json",
    )
    assert code == 0 and json.loads(out)["record"]["phase"] == "2"


def test_an_auto_prune_failure_lists_the_records_in_text_mode(capsys, folder: Path) -> None:
    """Skill §7: a failed prune after a store outputs the records that would have been archived."""
    (folder.parent / "settings.json").write_text(
        '{"memory": {"auto_prune": true, "prune_threshold": 2}}', encoding="utf-8"
    )
    (folder / ARCHIVE.file_name).mkdir()  # ARCHIVE.md cannot be written
    code, out, _ = run(capsys, "legion", "record", "outcome", "--agent", "a", "--outcome", "success", "--summary", "s")
    assert code == 0 and "the records are listed below" in out
    listed = out.split("the records are listed below", 1)[1]
    assert "outcome record:" in listed and "summary: old and small" in listed
