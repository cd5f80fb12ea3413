"""Issue 12, done when: ``handshake --json`` on a store holding only imported Legion files lists no verified
patterns and no graduation candidates. The Mneme spec 3.1: statutory kinds are "minted strictly by 2PC task
sync"; a PATTERNS.md or ERRORS.md row was never verified by one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mneme_tui.legion.markdown.schemas import ERRORS, PATTERNS

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "legion-corpus"
TABLES = ("OUTCOMES.md", "PATTERNS.md", "ERRORS.md", "PREFERENCES.md")
ERROR_ROWS = (
    "| E-001 | 2026-02-01 | main | TypeError: x is undefined | guard x | agent-a | true | frontend |\n"
    "| E-002 | 2026-02-03 | main | Hydration mismatch in header | render on client | agent-b | true | frontend |\n"
)
PATTERN_ROW = "| P-001 | 2026-02-02 | main | Wave tests | phase 5 | 3+ plans | O-001 | testing, waves |\n"


def _synthetic_folder(root: Path) -> Path:
    folder = root / "synthetic" / ".planning" / "memory"
    folder.mkdir(parents=True)
    (folder / "ERRORS.md").write_text(ERRORS.template + ERROR_ROWS, encoding="utf-8")
    (folder / "PATTERNS.md").write_text(PATTERNS.template + PATTERN_ROW, encoding="utf-8")
    return folder


def _corpus_folders(root: Path) -> dict[str, Path]:
    """One memory folder per corpus project, its files under their Legion names."""
    folders: dict[str, Path] = {}
    for source in sorted(CORPUS.glob("*__*.md")):
        project, _, table = source.name.rpartition("__")
        if table in TABLES:
            folder = root / "corpus" / project / ".planning" / "memory"
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, folder / table)
            folders[project.replace("__", "-").lower()] = folder
    return folders


def _assert_nothing_verified(cli, repo: str) -> dict:
    result = cli("handshake", "-p", repo, "--json")
    assert result.code == 0, result.err
    view = result.json()
    assert view["verified_patterns"] == []
    assert view["graduation_candidates"] == []
    assert cli("task", "candidates", "-p", repo, "--json").json() == []
    return view


def test_imported_legion_rows_are_never_verified_patterns_or_graduation_candidates(cli, tmp_path: Path):
    folder = _synthetic_folder(tmp_path)
    assert cli("legion", "sync", "-p", "web", "--dir", str(folder)).code == 0
    view = _assert_nothing_verified(cli, "web")
    imported = {(item["kind"], item["file"], item["record_id"]) for item in view["imported"]}
    assert imported == {
        ("error", "ERRORS.md", "E-001"),
        ("error", "ERRORS.md", "E-002"),
        ("practice", "PATTERNS.md", "P-001"),
    }
    assert all(
        item["provenance"]["source"] == "legion-import" and not item["provenance"]["verified"]
        for item in view["imported"]
    )
    text = cli("handshake", "-p", "web").out
    assert "## Verified patterns (0)" in text and "## Graduation candidates (0)" in text
    assert "From: Legion import · PATTERNS.md P-001 (not task-verified)" in text


def test_the_corpus_imported_gives_no_verified_patterns_and_no_candidates(cli, tmp_path: Path):
    if not CORPUS.is_dir():
        pytest.skip("legion corpus folder (../shared/legion-corpus) is absent")
    folders = _corpus_folders(tmp_path)
    assert folders
    for repo, folder in folders.items():
        result = cli("legion", "sync", "-p", repo, "--dir", str(folder))
        assert result.code == 0, result.err
    listed = cli("list", "--json", "-A", "-n", "100000", "--status", "all").json()
    assert listed and {m["provenance"]["source"] for m in listed} == {"legion-import"}
    assert not {m["kind"] for m in listed} & {"pattern", "pitfall", "task", "review"}
    for repo in folders:
        _assert_nothing_verified(cli, repo)
