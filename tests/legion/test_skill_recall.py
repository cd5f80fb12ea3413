"""`mneme legion recall [KIND] [QUERY]`: every record type from the command line (skill §8, §9, §11, §13)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mneme_tui.legion.markdown.legion_records import PreferenceRecord
from mneme_tui.legion.markdown.schemas import ERRORS, OUTCOMES, PATTERNS, PREFERENCES
from mneme_tui.legion.skill.pattern_recall import preference_notes

from . import test_legion_cli as cli_tests
from .conftest import outcome_row

proj = cli_tests.proj  # the CLI tests' project fixture (cwd, COLUMNS, branch feature-x)
run = cli_tests.run

PATTERN_ROWS = (
    "| P-001 | 2026-10-14 | main | Golden vectors first | kernel | deterministic code | O-001 | testing, ts |\n"
    "| P-002 | 2026-06-01 | feature-x | Small PRs | review | any change | O-002 | review |\n"
    "| P-003 | 2026-10-01 | main | Schema before code | api | new endpoints | O-003 | api |\n"
)
ERROR_ROWS = (
    "| E-001 | 2026-10-01 | main | TypeError: Cannot read property 'map' of undefined | guard the list | a | false | ui |\n"
    "| E-002 | 2026-09-01 | main | TypeError: map is not a function in render | wrap in Array.from | b | true | ui |\n"
    "| E-003 | 2026-10-10 | main | ENOENT: no such file config.json | create the file | c | true | io |\n"
)
PREFERENCE_ROWS = (
    "| D-001 | 2026-10-10 | main | review-verdict | phase 2 review | 2 blockers | Accepted with edits to tests "
    "| corrective | agent-a | review, testing |\n"
    "| D-002 | 2026-10-12 | main | review-verdict | phase 3 review | 1 blocker | Split the test file "
    "| corrective | agent-b | review, testing |\n"
    "| D-003 | 2026-10-13 | feature-x | agent-selection | pick agent | agent-a | Accepted | positive | agent-a | routing |\n"
    "| D-004 | 2026-10-14 | main | fix-acceptance | fix cycle | auto fix | Fixed manually | negative | agent-a | fix |\n"
)


@pytest.fixture
def folder(proj: Path) -> Path:
    memory_dir = proj / ".planning" / "memory"
    memory_dir.mkdir(parents=True)
    (memory_dir / "OUTCOMES.md").write_text(
        OUTCOMES.template + outcome_row(1, "2026-10-10", summary="first") + outcome_row(2, "2026-10-11"),
        encoding="utf-8",
    )
    (memory_dir / "PATTERNS.md").write_text(PATTERNS.template + PATTERN_ROWS, encoding="utf-8")
    (memory_dir / "ERRORS.md").write_text(ERRORS.template + ERROR_ROWS, encoding="utf-8")
    (memory_dir / "PREFERENCES.md").write_text(PREFERENCES.template + PREFERENCE_ROWS, encoding="utf-8")
    return memory_dir


def recall_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, "legion", "recall", "--json", *argv)
    assert code == 0, err
    return json.loads(out)


def ids(document: dict) -> list[str]:
    return [record["id"] for record in document["records"]]


def test_outcomes_stay_the_default_kind(capsys, folder: Path) -> None:
    """The old form ``mneme legion recall [filters]`` still recalls outcomes, with the same JSON."""
    plain = recall_json(capsys, "--agent", "agent-a")
    named = recall_json(capsys, "outcomes", "--agent", "agent-a")
    assert plain == named and set(plain) == {"records", "total_records", "note", "warnings"}
    assert ids(plain) == ["O-002", "O-001"]


# §8 Recall Patterns: "If provided: keep records where any tag matches any query_tag" ...
# "No importance weight (all patterns are inherently high-value)" - "Sort by recency_weight descending"
def test_patterns_by_tag_branch_and_limit(capsys, folder: Path) -> None:
    assert ids(recall_json(capsys, "patterns")) == ["P-001", "P-003", "P-002"]
    assert ids(recall_json(capsys, "patterns", "--tags", "api,testing")) == ["P-001", "P-003"]
    assert ids(recall_json(capsys, "patterns", "--branch", "current")) == ["P-002"]  # §11 "current"
    document = recall_json(capsys, "patterns", "-n", "1")
    assert ids(document) == ["P-001"] and document["total_records"] == 3
    assert document["records"][0]["recency_weight"] == 1.0


# §9 Recall Errors: "score each entry by keyword overlap between error_text and Error Signature" ...
# "Prioritize entries where Resolved = true (verified fixes)" - "Include Resolved = false entries at lower rank"
def test_errors_query_matches_key_terms_resolved_first(capsys, folder: Path) -> None:
    document = recall_json(capsys, "errors", "TypeError: cannot read property map")
    assert ids(document) == ["E-002", "E-001"]
    assert [r["resolved"] for r in document["records"]] == [True, False]
    assert ids(recall_json(capsys, "errors", "--tags", "io")) == ["E-003"]
    code, out, _ = run(capsys, "legion", "recall", "errors", "TypeError map")
    assert code == 0 and "wrap in Array.from" in out and "2 of 3 records" in out


# §13 Recall Preferences: signal_filter, decision_point_filter, query_tags, agent_filter, branch_filter;
# "preference_boost = (sum of preference scores) * 0.5"
def test_preferences_filters_boost_and_note(capsys, folder: Path) -> None:
    assert ids(recall_json(capsys, "preferences", "--signal", "corrective")) == ["D-002", "D-001"]
    assert ids(recall_json(capsys, "preferences", "--decision-point", "agent-selection")) == ["D-003"]
    document = recall_json(capsys, "preferences", "--agent", "agent-a")
    assert ids(document) == ["D-004", "D-003", "D-001"]
    boost = document["preference_boost"]
    assert (boost["positive"], boost["corrective"], boost["negative"]) == (1, 1, 1)
    assert boost["preference_score"] == 0.5 and boost["preference_boost"] == 0.25
    assert document["notes"] == [
        "Previous preference signals suggest 'Split the test file' for review (2 corrective review-verdict signals)",
        "Previous preference signals suggest 'Split the test file' for testing (2 corrective review-verdict signals)",
    ]
    assert recall_json(capsys, "preferences")["preference_boost"] is None
    code, out, _ = run(capsys, "legion", "recall", "preferences", "--agent", "agent-a")
    assert code == 0 and "Preference boost for agent-a: +0.25 (1 positive, 1 corrective, 1 negative)" in out
    assert "Previous preference signals suggest 'Split the test file' for review" in out


# §13: "Look for patterns: do corrective signals cluster around specific task types or approaches?"
# "This is advisory — never auto-select an approach based on preferences"
def test_preference_notes_need_a_cluster_of_live_corrective_review_verdicts() -> None:
    def pref(n: int, signal: str, *, point: str = "review-verdict", superseded: str = "") -> PreferenceRecord:
        return PreferenceRecord(
            id=f"D-{n:03d}",
            date=f"2026-10-{n:02d}",
            decision_point=point,
            signal=signal,
            user_choice=f"choice {n}",
            tags=["api"],
            superseded_by=superseded,
            line=n,
        )

    assert preference_notes([pref(1, "corrective")]) == []
    assert preference_notes([pref(1, "corrective"), pref(2, "positive")]) == []
    assert preference_notes([pref(1, "corrective"), pref(2, "corrective", point="manual-edit")]) == []
    assert preference_notes([pref(1, "corrective"), pref(2, "corrective", superseded="D-009")]) == []
    assert preference_notes([pref(1, "corrective"), pref(3, "corrective")]) == [
        "Previous preference signals suggest 'choice 3' for api (2 corrective review-verdict signals)"
    ]


def test_filters_that_do_not_belong_to_the_kind_are_usage_errors(capsys, folder: Path) -> None:
    for argv in (
        ("patterns", "--agent", "a"),
        ("errors", "--signal", "positive"),
        ("outcomes", "--signal", "all"),
        ("preferences", "--task-type", "x"),
        ("patterns", "some", "words"),
        ("nonsense",),
        ("preferences", "--signal", "maybe"),
        ("errors", "-n", "0"),
    ):
        code, out, err = run(capsys, "legion", "recall", *argv)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, argv


# §6: "If not exists: a. Skip the memory step entirely ... c. Do NOT display a warning or placeholder"
# Completion gate (recall): "Empty-result case returns an empty structured result, not an error"
def test_missing_folder_prints_nothing_and_json_is_empty(capsys, proj: Path) -> None:
    for kind in ("outcomes", "patterns", "errors", "preferences"):
        code, out, err = run(capsys, "legion", "recall", kind)
        assert (code, out, err) == (0, "", ""), kind
        document = recall_json(capsys, kind)
        assert document["records"] == [] and document["total_records"] == 0
    assert not (proj / ".planning").exists()


def test_every_kind_recalls_the_corpus_files(capsys, corpus: Path, proj: Path) -> None:
    memory_dir = proj / ".planning" / "memory"
    memory_dir.mkdir(parents=True)
    prefix = "ace027__Multi-model-orchestrator__bench-wf090-a__"
    for name in ("OUTCOMES.md", "PATTERNS.md", "PREFERENCES.md"):
        shutil.copyfile(corpus / (prefix + name), memory_dir / name)
    shutil.copyfile(corpus / "ace027__Dokapon-kingdom-2__ERRORS.md", memory_dir / "ERRORS.md")
    for kind in ("outcomes", "patterns", "errors", "preferences"):
        document = recall_json(capsys, kind, "-n", "50")
        assert document["total_records"] > 0 and document["records"], kind
        code, out, err = run(capsys, "legion", "recall", kind)
        assert code == 0 and "records" in out, (kind, err)
