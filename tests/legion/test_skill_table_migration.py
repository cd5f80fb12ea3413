"""Skill §11 Backwards Compatibility: a legacy table gets a Branch column before a new row needs one."""

from __future__ import annotations

import shutil
from pathlib import Path

from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.legion_records import Record
from mneme_tui.legion.markdown.schemas import branch_position
from mneme_tui.legion.markdown.storage import load_document
from mneme_tui.legion.markdown.table_migration import add_branch_column, insert_cell, tables_without_branch
from mneme_tui.legion.skill.api import LegionMemory

LEGACY = (
    "# Memory — Outcome Log\r\n"
    "\r\n"
    "Prose with a | pipe that is not a row.\r\n"
    "\r\n"
    "| ID | Date | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\r\n"
    "|----|------|-------|------|-------|-----------|---------|------------|------|---------|\r\n"
    "| O-001 | 2026-10-01 | 1 | 01-01 | a | build | success | 2 | x | piped \\| summary |\r\n"
    "\r\n"
    "A note between rows.\r\n"
    "\r\n"
    "| O-002 | 2026-10-02 | 1 | 01-02 | b | build | failed | 5 | y | second |\r\n"
    "\r\n"
    "| Action | Owner |\r\n"
    "|---|---|\r\n"
    "| unrelated | me |\r\n"
)
FIELDS_THAT_MOVE = {"line", "source_file", "key"}


def _same_records(before: list[Record], after: list[Record]) -> None:
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        old_json = {k: v for k, v in old.to_json().items() if k not in FIELDS_THAT_MOVE}
        new_json = {k: v for k, v in new.to_json().items() if k not in FIELDS_THAT_MOVE}
        assert old_json == new_json


# §11: "Existing records without a Branch field are treated as "main" (or whatever the default branch is)"
# ... "No migration needed — old records are valid, new records just have an extra column"
def test_legacy_ten_column_table_gains_branch_losslessly() -> None:
    document = parse(LEGACY, "OUTCOMES.md", default_branch="develop")
    assert [t.fields[:3] for t in tables_without_branch(document)] == [["id", "date", "phase"]]
    migrated = add_branch_column(document)
    lines = migrated.splitlines(keepends=True)
    assert (
        lines[4]
        == "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\r\n"
    )
    assert lines[5].startswith("|----|------|--------|-------|")
    assert lines[6] == "| O-001 | 2026-10-01 |  | 1 | 01-01 | a | build | success | 2 | x | piped \\| summary |\r\n"
    assert lines[10] == "| O-002 | 2026-10-02 |  | 1 | 01-02 | b | build | failed | 5 | y | second |\r\n"
    untouched = [0, 1, 2, 3, 7, 8, 9, 11, 12, 13, 14]
    assert [lines[i] for i in untouched] == [LEGACY.splitlines(keepends=True)[i] for i in untouched]
    again = parse(migrated, "OUTCOMES.md", default_branch="develop")
    assert again.parseable and not tables_without_branch(again)
    _same_records(document.records, again.records)
    assert {r.branch for r in again.records} == {"develop"}
    assert add_branch_column(again) == migrated  # idempotent


def test_nine_column_corpus_file_migrates_losslessly(corpus: Path) -> None:
    """The Dokapon OUTCOMES.md has neither ID nor Branch: Branch goes right after Date."""
    document = load_document(corpus / "ace027__Dokapon-kingdom-2__OUTCOMES.md")
    assert tables_without_branch(document)
    again = parse(add_branch_column(document), "OUTCOMES.md")
    assert again.parseable and not again.warnings and not tables_without_branch(again)
    _same_records(document.records, again.records)


def test_a_new_record_on_develop_keeps_its_branch_after_migration(corpus: Path, tmp_path: Path) -> None:
    """The call site: the write path migrates (under the write lock) before appending to a table without Branch."""
    folder = tmp_path / "project" / ".planning" / "memory"
    folder.mkdir(parents=True)
    shutil.copyfile(corpus / "ace027__Dokapon-kingdom-2__OUTCOMES.md", folder / "OUTCOMES.md")
    memory = LegionMemory(folder, branch_provider=lambda root: "develop", claude_home=tmp_path / "home")
    memory.record_outcome(agent="a", outcome="success", summary="on develop", task_type="build")
    found = memory.recall_outcomes(branch="current").records
    assert [r.summary for r in found] == ["on develop"] and found[0].branch == "develop"
    assert not tables_without_branch(memory.load("OUTCOMES.md"))


def test_branch_position_and_cell_insertion() -> None:
    assert branch_position(["id", "date", "phase"]) == 2
    assert branch_position(["id", "phase"]) == 1
    assert branch_position(["phase", "agent"]) == 0
    assert insert_cell("| a | b |\n", 1, "x") == "| a | x | b |\n"
    assert insert_cell("|---|---|", 1, "---", pad=False) == "|---|---|---|"
    assert insert_cell("| --- | --- |", 2, "---", pad=False) == "| --- | --- | --- |"
    assert insert_cell("| a\\|b | c |", 1, "") == "| a\\|b |  | c |"


def test_unparseable_file_is_returned_as_is() -> None:
    text = (
        "| ID | Date | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\n|--|\n<<<<<<< HEAD\n"
    )
    document = parse(text, "OUTCOMES.md")
    assert not document.parseable and add_branch_column(document) == text


# An agent that still writes the legacy layout keeps appending 10-cell rows (`echo >>`) after the table gained
# Branch, and a newer one may append 11-cell rows under a legacy header: neither makes the file unreadable.
BRANCHED = (
    "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\n"
    "|----|------|--------|-------|------|-------|-----------|---------|------------|------|---------|\n"
    "| O-001 | 2026-10-01 | feat | 1 | 01 | a | build | success | 2 | x | first |\n"
)
LEGACY_ROW = "| O-002 | 2026-10-02 | 1 | 02 | b | build | failed | 5 | y | appended by an old agent |\n"


def test_a_legacy_row_appended_under_a_branch_header_reads_as_the_default_branch() -> None:
    document = parse(BRANCHED + LEGACY_ROW, "OUTCOMES.md", default_branch="develop")
    assert document.parseable and not document.warnings
    first, second = document.records
    assert (first.branch, second.branch) == ("feat", "develop")
    assert (second.agent, second.outcome, second.summary) == ("b", "failed", "appended by an old agent")
    assert document.render() == BRANCHED + LEGACY_ROW
    assert add_branch_column(document) == BRANCHED + LEGACY_ROW  # the table has Branch: nothing to migrate


def test_a_branch_row_appended_under_a_legacy_header_keeps_its_branch_through_migration() -> None:
    legacy = LEGACY.replace("\r\n", "\n").split("\n| Action")[0]
    newer = "| O-003 | 2026-10-03 | feat | 1 | 01-03 | c | build | success | 3 | z | newer agent |\n"
    document = parse(legacy + newer, "OUTCOMES.md", default_branch="develop")
    assert document.parseable and not document.warnings
    assert [r.branch for r in document.records] == ["develop", "develop", "feat"]
    migrated = add_branch_column(document)
    assert migrated.endswith(newer)  # not given a second Branch cell
    again = parse(migrated, "OUTCOMES.md", default_branch="develop")
    assert again.parseable and not again.warnings
    _same_records(document.records, again.records)


def test_a_row_off_by_more_than_the_branch_column_still_stops_the_parse() -> None:
    short = "| O-002 | 2026-10-02 | 1 | 02 | b | build | failed | 5 | y |\n"
    document = parse(BRANCHED + short, "OUTCOMES.md")
    assert not document.parseable and "line 4 has 9 cells, the table has 11" in document.warnings[0]


def test_recording_after_a_legacy_append_writes_the_header_layout(tmp_path: Path) -> None:
    folder = tmp_path / "project" / ".planning" / "memory"
    folder.mkdir(parents=True)
    (folder / "OUTCOMES.md").write_text("# Memory — Outcome Log\n\n" + BRANCHED + LEGACY_ROW, encoding="utf-8")
    memory = LegionMemory(folder, branch_provider=lambda root: "develop", claude_home=tmp_path / "home")
    memory.record_outcome(agent="d", outcome="success", summary="after the old agent", task_type="build")
    lines = (folder / "OUTCOMES.md").read_text(encoding="utf-8").splitlines()
    assert lines[-2] == LEGACY_ROW.rstrip("\n")
    assert lines[-1].startswith("| O-003 | ") and lines[-1].split(" | ")[2] == "develop"
    # the legacy row reads as the default branch ("main" outside git), not the current one
    assert [r.branch for r in memory.recall_outcomes(branch="all").records if r.id == "O-002"] == ["main"]
