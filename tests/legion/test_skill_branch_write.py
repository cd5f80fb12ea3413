"""Skill §11 on the write path: a new record in a legacy table without a Branch column keeps its branch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mneme_tui.cli import legion_commands, main
from mneme_tui.legion.markdown.document import Document
from mneme_tui.legion.markdown.legion_records import OutcomeRecord, Record
from mneme_tui.legion.markdown.schemas import OUTCOMES
from mneme_tui.legion.markdown.storage import load_document
from mneme_tui.legion.skill.record_files import store_records

HEADER = "| ID | Date | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\n"
OLD_ROWS = [
    "| O-001 | 2026-10-01 | 1 | 01-01 | a | build | success | 2 | x | piped \\| summary |\n",
    "| O-002 | 2026-10-02 | 1 | 01-02 | b | build | failed | 5 | y | second |\n",
]
LEGACY = "# Memory — Outcome Log\n\nNotes stay.\n\n" + HEADER + "|----|----|----|----|----|----|----|----|----|----|\n"
HAND_ROW = "| O-003 | 2026-10-03 | 1 | 01-03 | c | build | success | 2 | z | appended by hand |\n"


def _with_empty_branch(row: str) -> str:
    """``row`` with an empty cell after Date (the only change the migration may make to it)."""
    head, date, rest = row.split(" | ", 2)
    return f"{head} | {date} |  | {rest}"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, _ = capsys.readouterr()
    return code, out


# §11 Branch Field in Records: "For each store operation (OUTCOMES, PATTERNS, ERRORS), record the current git
# branch." Backwards Compatibility: "old records are valid, new records just have an extra column"
def test_a_record_on_develop_in_a_legacy_table_is_recalled_by_branch(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    folder = root / ".planning" / "memory"
    folder.mkdir(parents=True)
    monkeypatch.chdir(root)
    monkeypatch.setattr(legion_commands, "BRANCH_PROVIDER", lambda _: "develop")
    path = folder / "OUTCOMES.md"
    path.write_text(LEGACY + "".join(OLD_ROWS), encoding="utf-8")
    with path.open("a", encoding="utf-8") as other_writer:  # an agent appends without our lock
        other_writer.write(HAND_ROW)

    code, _ = _run(
        capsys,
        "legion",
        "record",
        "outcome",
        "--agent",
        "d",
        "--outcome",
        "success",
        "--summary",
        "made on develop",
        "--task-type",
        "build",
    )
    assert code == 0
    code, out = _run(capsys, "legion", "recall", "--branch", "develop", "--json")
    found = json.loads(out)["records"]
    assert code == 0 and [r["summary"] for r in found] == ["made on develop"]
    assert found[0]["id"] == "O-004" and found[0]["branch"] == "develop"

    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[:4] == LEGACY.splitlines(keepends=True)[:4]
    assert lines[4] == HEADER.replace("| Date |", "| Date | Branch |")
    assert lines[6:9] == [_with_empty_branch(row) for row in [*OLD_ROWS, HAND_ROW]]
    assert lines[9].startswith("| O-004 | 2026-10-15 | develop | ") and len(lines) == 10
    old = load_document(path, default_branch="main").records[:3]
    assert [r.branch for r in old] == ["main"] * 3  # old rows still read as the default branch


def test_a_row_appended_while_migrating_is_kept_and_migrated(tmp_path: Path) -> None:
    """Another writer appends after our read: the change is redone on the new content, nothing lost."""
    folder = tmp_path / "memory"
    folder.mkdir()
    path = folder / "OUTCOMES.md"
    path.write_text(LEGACY + "".join(OLD_ROWS), encoding="utf-8")
    appended: list[bool] = []

    def prepare(record: Record, document: Document) -> Record:
        if not appended:
            appended.append(True)
            with path.open("a", encoding="utf-8") as other_writer:
                other_writer.write(HAND_ROW)
        return record

    new = OutcomeRecord(
        date="2026-10-15",
        branch="develop",
        agent="d",
        task_type="build",
        outcome="success",
        importance=2,
        summary="made on develop",
    )
    [result] = store_records(folder, OUTCOMES, [new], default_branch="main", lock_timeout=5, prepare=prepare)
    document = load_document(path)
    assert document.parseable
    assert [r.summary for r in document.records] == ["piped | summary", "second", "appended by hand", "made on develop"]
    assert result.record.id == "O-004" and document.records[-1].branch == "develop"
