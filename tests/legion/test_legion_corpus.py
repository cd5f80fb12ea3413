"""Compatibility with real Legion files (../shared/legion-corpus): counts, oddities, byte-identical render."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.inplace import unpadded
from mneme_tui.legion.markdown.legion_records import ErrorRecord, OutcomeRecord, PreferenceRecord
from mneme_tui.legion.markdown.table_migration import add_branch_column
from mneme_tui.legion.skill.api import LegionMemory

# file -> (records by kind, not-imported blocks, action items in not-imported tables)
EXPECTED = {
    "ace027__custom-psa-nolegion__OUTCOMES.md": ({"outcome": 26}, 2, 0),
    "ace027__custom-psa-nolegion__PATTERNS.md": ({"pattern": 2}, 0, 0),
    "ace027__custom-psa-nolegion__PREFERENCES.md": ({"preference": 6}, 0, 0),
    "ace027__custom-psa-nolegion__RETRO.md": ({}, 1, 13),
    "ace027__Dokapon-kingdom-2__OUTCOMES.md": ({"outcome": 14}, 0, 0),
    "ace027__Dokapon-kingdom-2__ERRORS.md": ({"error": 2}, 0, 0),
    "ace027__Dokapon-kingdom-2__PREFERENCES.md": ({"preference": 3}, 0, 0),
    "ace027__Dokapon-kingdom-2__PREFERENCES.later.md": ({"preference": 6}, 0, 0),
    "ace027__soulbound__OUTCOMES.md": ({}, 8, 0),
    "ace027__Multi-model-orchestrator__bench-wf090-a__OUTCOMES.md": ({"outcome": 13}, 0, 0),
    "ace027__Multi-model-orchestrator__bench-wf090-b__OUTCOMES.md": ({"outcome": 17}, 0, 0),
    "ace027__Multi-model-orchestrator__bench-wf090-a__PATTERNS.md": ({"pattern": 1}, 0, 0),
    "ace027__Multi-model-orchestrator__bench-wf090-a__PREFERENCES.md": ({"preference": 5}, 0, 0),
    "ace027__Multi-model-orchestrator__bench-wf090-b__PREFERENCES.md": ({"preference": 8}, 0, 0),
    "ace027__Multi-model-orchestrator__bench-phase6-board__OUTCOMES.md": ({"outcome": 1}, 0, 0),
    "9thLevelSoftware__Project-Phoenix-MP__RETRO.md": ({}, 1, 8),
}


def _parse(corpus: Path, name: str):
    return parse((corpus / name).read_text(encoding="utf-8"), name)


def test_every_corpus_file_is_covered(corpus: Path) -> None:
    files = {p.name for p in corpus.glob("*.md")} - {"INDEX.md"}
    assert files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts_match_index(corpus: Path, name: str) -> None:
    kinds, blocks, items = EXPECTED[name]
    doc = _parse(corpus, name)
    assert doc.parseable and doc.warnings == []
    assert dict(Counter(r.kind for r in doc.records)) == kinds
    not_imported = doc.not_imported()
    assert len(not_imported) == blocks
    assert sum(n.items for n in not_imported) == items


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_render_is_byte_identical(corpus: Path, name: str) -> None:
    data = (corpus / name).read_bytes()
    assert parse(data.decode("utf-8"), name).render().encode("utf-8") == data


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_padding_after_a_rows_closing_pipe_reads_and_renders_exactly(corpus: Path, name: str) -> None:
    """The padding a prune beside an open writer leaves (spaces after the last row's pipe) changes no record."""
    text = (corpus / name).read_text(encoding="utf-8")
    plain = parse(text, name)
    rows = [s for s in plain.segments if s.kind == "row"]
    if not rows:
        pytest.skip("no table rows to pad")
    last = rows[-1]
    index = plain.segments.index(last)
    line = last.lines[-1]
    body = line.rstrip("\r\n")
    last.lines[-1] = body + " " * 5000 + line[len(body) :]
    padded_text = plain.render()
    padded = parse(padded_text, name)
    assert padded.parseable and padded.warnings == plain.warnings
    assert padded.render() == padded_text
    assert [vars(r) for r in padded.records] == [vars(r) for r in parse(text, name).records]
    assert unpadded(padded.segments[index].lines[-1]) == line


def test_fragmented_table_rows_continue_the_last_table(corpus: Path) -> None:
    doc = _parse(corpus, "ace027__custom-psa-nolegion__OUTCOMES.md")
    ids = [r.id for r in doc.records]
    assert ids == [f"O-{n:03d}" for n in range(1, 27)]
    labels = [n.label for n in doc.not_imported()]
    assert labels[0].startswith("Phase 2") and labels[1].startswith("Phase 3")
    shell = next(r for r in doc.records if r.id == "O-013")
    assert isinstance(shell, OutcomeRecord) and ">/dev/null 2>&1;" in shell.summary


def test_nine_column_table_without_id_or_branch(corpus: Path) -> None:
    doc = _parse(corpus, "ace027__Dokapon-kingdom-2__OUTCOMES.md")
    first = doc.records[0]
    assert isinstance(first, OutcomeRecord)
    assert first.id == "" and first.branch == "main" and first.phase == "01"
    review = doc.records[4]
    assert isinstance(review, OutcomeRecord) and review.plan == "review" and review.importance == 5
    assert review.agent.count(",") == 3
    assert [r.occurrence for r in doc.records] == list(range(14))
    assert len({r.key for r in doc.records}) == 14


def test_pitfall_blocks_under_pitfalls_title(corpus: Path) -> None:
    doc = _parse(corpus, "ace027__Dokapon-kingdom-2__ERRORS.md")
    first, second = doc.records
    assert isinstance(first, ErrorRecord) and first.id == "PIT-001" and first.layout == "block"
    assert first.date == "2026-09-26" and "testing" in first.tags and first.extra["phase"] == "Phase 1 (review)"
    assert first.error_signature.startswith("Negative tests")
    assert "exactly one check" in first.fix
    assert second.id == "PIT-002"


def test_preference_blocks_supersession_and_embedded_table(corpus: Path) -> None:
    early = _parse(corpus, "ace027__Dokapon-kingdom-2__PREFERENCES.md")
    prf3 = early.records[2]
    assert isinstance(prf3, PreferenceRecord) and prf3.superseded_by == ""
    assert "| Review | `opus` |" in prf3.body  # the unrelated table stays inside the block
    later = _parse(corpus, "ace027__Dokapon-kingdom-2__PREFERENCES.later.md")
    by_id = {r.id: r for r in later.records}
    assert list(by_id) == [f"PRF-00{n}" for n in range(1, 7)]
    assert by_id["PRF-003"].superseded_by == "PRF-006"
    assert by_id["PRF-002"].signal == "corrective"  # type: ignore[attr-defined]
    assert by_id["PRF-003"].context.startswith("Balanced cost profile")  # type: ignore[attr-defined]


def test_pipe_inside_bullet_is_prose(corpus: Path) -> None:
    doc = _parse(corpus, "9thLevelSoftware__Project-Phoenix-MP__RETRO.md")
    assert doc.records == []
    prose = "".join(s.text for s in doc.segments if s.kind == "prose")
    assert "Review first-pass: 7/8" in prose


def test_facade_reads_a_corpus_project(corpus: Path, memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    for source, target in [
        ("ace027__custom-psa-nolegion__OUTCOMES.md", "OUTCOMES.md"),
        ("ace027__custom-psa-nolegion__PATTERNS.md", "PATTERNS.md"),
        ("ace027__custom-psa-nolegion__PREFERENCES.md", "PREFERENCES.md"),
        ("ace027__custom-psa-nolegion__RETRO.md", "RETRO.md"),
    ]:
        shutil.copy(corpus / source, memory.memory_dir / target)
    report = memory.read_all()
    counts = {f.file: (f.record_count, f.not_imported_count) for f in report.files}
    assert counts["OUTCOMES.md"] == (26, 2)
    assert counts["RETRO.md"] == (0, 1)
    assert counts["ERRORS.md"] == (0, 0) and not report.file("ERRORS.md").exists  # type: ignore[union-attr]
    assert report.to_json()["files"][0]["records"][0]["id"] == "O-001"
    assert not (memory.memory_dir / "ERRORS.md").exists()


@pytest.mark.parametrize(
    ("source", "target", "method", "kwargs"),
    [
        (
            "ace027__custom-psa-nolegion__OUTCOMES.md",
            "OUTCOMES.md",
            "record_outcome",
            {
                "agent": "engineering-senior-developer",
                "outcome": "success",
                "summary": "new",
                "phase": 5,
                "plan": "05-01",
                "task_type": "implementation",
            },
        ),
        (
            "ace027__Dokapon-kingdom-2__OUTCOMES.md",
            "OUTCOMES.md",
            "record_outcome",
            {
                "agent": "engineering-senior-developer",
                "outcome": "partial",
                "summary": "nine columns",
                "phase": "03",
                "plan": "03-01",
                "task_type": "implementation",
            },
        ),
        (
            "ace027__Dokapon-kingdom-2__ERRORS.md",
            "ERRORS.md",
            "record_error",
            {"error_signature": "ECONNREFUSED 127.0.0.1:5432 during migrate", "fix": "start postgres first"},
        ),
        (
            "ace027__Dokapon-kingdom-2__PREFERENCES.later.md",
            "PREFERENCES.md",
            "record_preference",
            {
                "decision_point": "review-verdict",
                "context": "Phase 3 review",
                "proposed": "PASS",
                "user_choice": "accepted",
                "signal": "positive",
            },
        ),
        (
            "ace027__soulbound__OUTCOMES.md",
            "OUTCOMES.md",
            "record_outcome",
            {"agent": "ship-pipeline", "outcome": "success", "summary": "shipped", "task_type": "ship"},
        ),
    ],
)
def test_store_into_corpus_file_keeps_everything_else(
    corpus: Path, memory: LegionMemory, source: str, target: str, method: str, kwargs: dict
) -> None:
    memory.memory_dir.mkdir(parents=True)
    original = (corpus / source).read_text(encoding="utf-8")
    (memory.memory_dir / target).write_text(original, encoding="utf-8")
    before = parse(original, target)
    result = getattr(memory, method)(**kwargs)
    assert result.action == "created"
    after_text = (memory.memory_dir / target).read_text(encoding="utf-8")
    after = parse(after_text, target)
    assert len(after.records) == len(before.records) + 1
    # every original line is still there, in order, unchanged - but for the empty Branch cell a table without
    # that column gains before the new row is added (skill §11)
    new_lines = after_text.split("\n")
    position = 0
    for line in add_branch_column(before).split("\n"):
        position = new_lines.index(line, position) + 1
    assert [n.label for n in after.not_imported()] == [n.label for n in before.not_imported()]
