"""kill -9 at every write point of ``legion record``, ``legion sync``, ``legion prune`` and ``legion compact``.

Each command runs once cleanly (recording which write points it reaches, ``MNEME_FAULT_TRACE``), then
once per point with ``MNEME_FAULT=<point>`` (the process ``os._exit``s there, as ``kill -9`` would).
After each crash every file is its old or its new content, never partial, as every reader sees it (a
rewrite in place that a kill cut short reads through its journal as it will end, ``inplace:NAME``); the
next run works, leaves no temp file or journal behind, ends exactly where the clean run ended, holds no row twice, and a following sync
imports nothing twice.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from provenances import SAVED, SYNCED

from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.inplace import JOURNAL_SUFFIX, journalled_view
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.memory.store import Store
from reliability.legion_projects import make_project

PHASE_SUMMARY = """---
requirements-completed: [REQ-7]
---
# Phase 1 Plan 01: Summary

## Accomplishments
- Built the parser in `src/parse.py`

## Verification
- tests: 12 passed
"""


def _mneme(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mneme_tui", *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _setup(root: Path, command: str) -> tuple[list[str], Path]:
    """A fresh project for ``command``; returns the CLI arguments and the folder its files live in."""
    memory = make_project(root / "project")
    folder = memory.memory_dir
    db = root / "mneme.db"
    if command == "record-append":
        return [
            "legion",
            "record",
            "outcome",
            "--dir",
            str(folder),
            "--agent",
            "a",
            "--outcome",
            "success",
            "--summary",
            "crash test",
        ], folder
    if command == "record-rewrite":
        with open(folder / "OUTCOMES.md", "a", encoding="utf-8") as handle:
            handle.write("\nNotes after the table.\n")
        return [
            "legion",
            "record",
            "outcome",
            "--dir",
            str(folder),
            "--agent",
            "a",
            "--outcome",
            "success",
            "--summary",
            "crash test",
        ], folder
    if command == "sync":
        store = Store(db)
        store.mint("Prefer small pull requests", kind="preference", topic="style", repo_id="proj", provenance=SAVED)
        store.mint("Retry with backoff", kind="pitfall", topic="queues", repo_id="proj", provenance=SYNCED)
        store.close()
        return ["legion", "sync", "--dir", str(folder), "-p", "proj", "--db", str(db)], folder
    if command == "prune":
        return ["legion", "prune", "--apply", "--dir", str(folder)], folder
    phase = root / "project" / ".planning" / "phases" / "01-parser"
    phase.mkdir(parents=True)
    (phase / "01-01-SUMMARY.md").write_text(PHASE_SUMMARY, encoding="utf-8")
    return ["legion", "compact", str(phase)], phase


def _files(folder: Path) -> dict[str, bytes]:
    """Each file as readers see it (through an unfinished in-place rewrite's journal)."""
    return {
        p.name: journalled_view(p, p.read_bytes())
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.startswith(".")
    }


def _env(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEME_FAULT")}
    env.update(MNEME_DB=str(root / "mneme.db"), **extra)
    return env


def _rows(files: dict[str, bytes]) -> list[str]:
    rows: list[str] = []
    for name, data in files.items():
        if name.endswith(".md") and "COMPACTED" not in name:
            document = parse(data.decode("utf-8"), name)
            assert document.parseable, (name, document.warnings)
            rows += [
                f"{name}:{s.text.strip()}" if name != "ARCHIVE.md" else f"OUTCOMES.md:{s.text.strip()}"
                for s in document.segments
                if s.kind in ("row", "block")
            ]  # an exported preference is a block
    return rows


COMMANDS = ("record-append", "record-rewrite", "sync", "prune", "compact")


@pytest.mark.parametrize("command", COMMANDS)
def test_kill_at_every_write_point(command: str, tmp_path: Path) -> None:
    clean_root = tmp_path / "clean"
    args, folder = _setup(clean_root, command)
    before = _files(folder)
    trace = tmp_path / "points.txt"
    result = _mneme(args, _env(clean_root, MNEME_FAULT_TRACE=str(trace)))
    assert result.returncode == 0, result.stderr
    clean = _files(folder)
    points = list(dict.fromkeys(trace.read_text(encoding="utf-8").split()))
    assert points, "the command reached no write point"

    for index, point in enumerate(points):
        root = tmp_path / f"kill{index}"
        args, folder = _setup(root, command)
        crashed = _mneme(args, _env(root, MNEME_FAULT=point))
        assert crashed.returncode == 99, (point, crashed.stderr)
        after_crash = _files(folder)
        for name, data in after_crash.items():
            assert data in (before.get(name), clean.get(name)), f"{name} is partial after a kill at {point}"
        rerun = _mneme(args, _env(root))
        assert rerun.returncode == 0, (point, rerun.stderr)
        assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")], f"temp left after {point}"
        assert not [
            p.name for p in folder.iterdir() if p.name.endswith("journal.json") or p.name.endswith(JOURNAL_SUFFIX)
        ], f"journal left after {point}"
        final = _files(folder)
        rows = _rows(final)
        assert len(rows) == len(set(rows)), f"a row is duplicated after a kill at {point}"
        _assert_same_end(command, final, clean, point)
        if command != "compact":
            _assert_sync_imports_once(root, folder)
        shutil.rmtree(root)


def _assert_same_end(command: str, final: dict[str, bytes], clean: dict[str, bytes], point: str) -> None:
    if command.startswith("record") and point.startswith("replaced:"):
        # the first run's record landed; the rerun adds a second, as a second `record` call does
        assert final["OUTCOMES.md"].count(b"crash test") == 2
        return
    assert final == clean, f"end state differs from a clean run after a kill at {point}"


def _assert_sync_imports_once(root: Path, folder: Path) -> None:
    store = Store(root / "mneme.db")
    try:
        sync(store, folder, "proj")
        again = sync(store, folder, "proj")
        assert again.totals["added"] == again.totals["exported"] == 0
        rows = _rows(_files(folder))
        mirrored = store.list(status="all", repo_id="proj", limit=None)
        assert len(mirrored) == len(rows)
    finally:
        store.close()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
@pytest.mark.parametrize("point", ["tmp:ARCHIVE.md", "inplace:OUTCOMES.md", ""])
def test_prune_files_take_the_mode_of_outcomes(point: str, tmp_path: Path) -> None:
    """OUTCOMES.md at 0600: ARCHIVE.md and both journals (left by a kill) are created 0600 too."""
    args, folder = _setup(tmp_path, "prune")
    (folder / "OUTCOMES.md").chmod(0o600)
    result = _mneme(args, _env(tmp_path, **({"MNEME_FAULT": point} if point else {})))
    assert result.returncode == (99 if point else 0), result.stderr
    created = [
        p
        for p in folder.iterdir()
        if p.name in ("ARCHIVE.md", ".prune-journal.json") or p.name.endswith(JOURNAL_SUFFIX)
    ]
    assert created
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in created} == {p.name: "0o600" for p in created}
