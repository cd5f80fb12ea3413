"""Legion text as a reader sees it (issue 25): pitfall blocks say only what the file said, options go anywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.mirror.record_mapping import memory_content

from .test_legion_cli import run

BLOCKS = """# Pitfalls

## PIT-001: Negative tests that pass because an earlier check fails first
- **Date**: 2026-09-26
- **Tags**: testing

Build each fixture so that exactly one check can reject it.

---

## PIT-002: Plain objects keyed by player ids hit Object.prototype members
- **Date**: 2026-09-27
- **Resolved**: no

Use Object.hasOwn for records keyed by user-controlled ids.
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "300")
    memory_dir = tmp_path / ".planning" / "memory"
    memory_dir.mkdir(parents=True)
    (memory_dir / "ERRORS.md").write_text(BLOCKS, encoding="utf-8")
    return memory_dir


def test_a_pitfall_block_without_a_resolved_line_shows_no_resolved_field(folder, capsys):
    first, second = parse(BLOCKS, "ERRORS.md").records
    assert "Resolved" not in memory_content(first)
    assert "Resolved: no" in memory_content(second)
    assert first.resolved and "resolved_stated" not in first.to_json()  # the spec's default still ranks it

    code, out, _ = run(capsys, "legion", "recall", "errors", "--dir", str(folder))
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("PIT-")}
    assert code == 0 and " yes " not in rows["PIT-001"] and " no " in rows["PIT-002"], out


def test_legion_recall_takes_options_before_the_query(folder, capsys):
    before = run(capsys, "legion", "recall", "errors", "--json", "--dir", str(folder), "Object.hasOwn player ids")
    after = run(capsys, "legion", "recall", "errors", "Object.hasOwn player ids", "--dir", str(folder), "--json")
    assert before[0] == 0 and before == after
    assert [r["id"] for r in json.loads(before[1])["records"]] == ["PIT-002"]
    code, _, err = run(capsys, "legion", "recall", "errors", "--json", "text", "--nonsense")
    assert code == 2 and "unrecognized arguments: --nonsense" in err


def test_the_lock_files_stay_out_of_git_status(tmp_path, capsys, monkeypatch):
    import subprocess

    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", "."], check=True)
    code, _, _ = run(
        capsys, "legion", "record", "pattern", "--pattern", "pin versions", "--context", "ci", "--branch", "main"
    )
    assert code == 0 and run(capsys, "legion", "sync")[0] == 0
    folder = tmp_path / ".planning" / "memory"
    assert (folder / ".lock").exists() and (folder / ".sync.lock").exists()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], capture_output=True, text=True, check=True
    ).stdout
    assert status.splitlines() == ["?? .planning/memory/PATTERNS.md"]


def test_a_projects_own_gitignore_is_left_alone(folder, capsys):
    (folder / ".gitignore").write_text("*.bak\n")
    run(capsys, "legion", "sync", "--dir", str(folder))
    assert (folder / ".gitignore").read_text() == "*.bak\n"


def test_an_exported_preference_reads_in_the_recall_table(folder, capsys):
    assert run(capsys, "save", "--kind", "preference", "Prefer small reviewable PRs", "-p", "proj")[0] == 0
    assert run(capsys, "legion", "sync", "--dir", str(folder), "-p", "proj")[0] == 0
    code, out, _ = run(capsys, "legion", "recall", "preferences", "--dir", str(folder))
    row = next(line for line in out.splitlines() if line.startswith("PRF-"))
    assert code == 0 and "Context" in out and "Prefer small reviewable PRs" in row


def test_the_sync_preview_counts_per_file_and_writes_nothing(folder, tmp_path):
    from mneme_tui.legion.mirror.sync_preview import preview_sync
    from mneme_tui.legion.skill.api import LegionMemory
    from mneme_tui.memory.store import Store

    store = Store(tmp_path / "preview.db")
    try:
        store.save("Prefer tabs", kind="preference", repo_id="proj")
        before = (folder / "ERRORS.md").read_bytes()
        preview = preview_sync(store, LegionMemory(folder), "proj")
        assert preview.imports == {"ERRORS.md": 2} and preview.exports == {"PREFERENCES.md": 1}
        assert preview.writes_files and preview.lines() == [
            "ERRORS.md: import 2, export 0",
            "PREFERENCES.md: import 0, export 1",
        ]
        assert (folder / "ERRORS.md").read_bytes() == before and not (folder / "PREFERENCES.md").exists()
    finally:
        store.close()
