"""Untrusted repositories and odd files: symlinks, modes, a directory for ARCHIVE.md, stray rows, stale temps."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mneme_tui.errors import MnemeError
from mneme_tui.legion.markdown.storage import LegionWriteError
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.legion.skill.compaction import compact_phase
from reliability.legion_projects import OLD_DATE, outcome_line

SECRET = "top secret token 12345\n"


def _record(memory: LegionMemory, summary: str = "s") -> None:
    memory.record_outcome(agent="a", outcome="success", summary=summary)


def test_symlinked_memory_file_leaving_the_folder_is_refused(legion_project: LegionMemory, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    outcomes = legion_project.memory_dir / "OUTCOMES.md"
    outcomes.unlink()
    outcomes.symlink_to(secret)
    with pytest.raises(LegionWriteError) as info:
        _record(legion_project)
    first = str(info.value).splitlines()[0]
    assert "symlink" in first and "outside" in first and "refusing" in first
    assert secret.read_text(encoding="utf-8") == SECRET and outcomes.is_symlink()
    report = legion_project.read_all().file("OUTCOMES.md")
    assert report is not None and report.records == [] and "symlink" in report.warnings[0]


def test_dangling_symlink_is_never_written_through(legion_project: LegionMemory) -> None:
    patterns = legion_project.memory_dir / "PATTERNS.md"
    target = legion_project.memory_dir / "elsewhere.md"
    patterns.symlink_to(target)
    with pytest.raises(LegionWriteError) as info:
        legion_project.record_pattern(pattern="p")
    assert "dangling symlink" in str(info.value).splitlines()[0]
    assert not target.exists() and patterns.is_symlink()


def test_symlink_inside_the_folder_is_followed(legion_project: LegionMemory) -> None:
    folder = legion_project.memory_dir
    (folder / "OUTCOMES.md").rename(folder / "real-outcomes.md")
    (folder / "OUTCOMES.md").symlink_to("real-outcomes.md")
    _record(legion_project, "through the link")
    assert (folder / "OUTCOMES.md").is_symlink()
    assert "through the link" in (folder / "real-outcomes.md").read_text(encoding="utf-8")


def test_lock_file_symlink_is_refused(legion_project: LegionMemory, tmp_path: Path) -> None:
    (legion_project.memory_dir / ".lock").symlink_to(tmp_path / "elsewhere.lock")
    with pytest.raises(LegionWriteError) as info:
        _record(legion_project)
    assert ".lock is a symlink" in str(info.value).splitlines()[0]
    assert not (tmp_path / "elsewhere.lock").exists()


def test_compaction_refuses_summary_symlinks_leaving_the_phase(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(SECRET, encoding="utf-8")
    phase = tmp_path / "project" / ".planning" / "phases" / "02-api"
    phase.mkdir(parents=True)
    (phase / "02-01-SUMMARY.md").symlink_to(secret)
    with pytest.raises(MnemeError, match="outside"):
        compact_phase(phase)
    assert not (phase / "02-COMPACTED.md").exists()


@pytest.mark.parametrize("action", ["record", "prune"])
def test_rewrite_keeps_mode(legion_project: LegionMemory, action: str) -> None:
    folder = legion_project.memory_dir
    outcomes = folder / "OUTCOMES.md"
    with open(outcomes, "a", encoding="utf-8") as handle:
        handle.write("\nNotes after the table: a record is inserted, so the file is rewritten.\n")
    outcomes.chmod(0o600)
    if action == "record":
        _record(legion_project)
    else:
        assert legion_project.apply_prune(legion_project.prune_plan()).ok
    assert stat.S_IMODE(outcomes.stat().st_mode) == 0o600


def test_archive_that_is_a_directory_fails_with_the_spec_message(legion_project: LegionMemory) -> None:
    folder = legion_project.memory_dir
    (folder / "ARCHIVE.md").mkdir()
    before = (folder / "OUTCOMES.md").read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "mneme_tui", "legion", "prune", "--apply", "--dir", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    error = result.stderr.strip().splitlines()
    assert len(error) == 1
    assert error[0].startswith("mneme: Prune verification failed. OUTCOMES.md restored to pre-prune state.")
    assert str(folder / "ARCHIVE.md") in error[0] and "is a directory" in error[0] and "move it aside" in error[0]
    assert "summary: old 1" in result.stdout  # the records, as text, for manual handling
    assert (folder / "OUTCOMES.md").read_bytes() == before and (folder / "ARCHIVE.md").is_dir()


def test_stray_rows_warn_and_their_ids_are_never_reused(legion_project: LegionMemory) -> None:
    outcomes = legion_project.memory_dir / "OUTCOMES.md"
    with open(outcomes, "a", encoding="utf-8") as handle:
        handle.write(outcome_line("O-040", OLD_DATE, "no closing pipe").rstrip().rstrip("|") + "\n")
    report = legion_project.read_all().file("OUTCOMES.md")
    assert report is not None
    assert any("without a closing pipe" in w for w in report.warnings)
    stored = legion_project.record_outcome(agent="a", outcome="success", summary="after the stray row")
    assert stored.record.id == "O-041"
    headless = legion_project.memory_dir / "PATTERNS.md"
    headless.write_text("# Patterns\n\n| P-009 | 2026-11-01 | main | p | c | r | s | t |\n", encoding="utf-8")
    assert any("no table header" in w for w in legion_project.read_all().file("PATTERNS.md").warnings)  # type: ignore[union-attr]
    assert legion_project.record_pattern(pattern="new").record.id == "P-010"


def test_stale_temp_files_are_cleaned_by_the_next_write(legion_project: LegionMemory) -> None:
    folder = legion_project.memory_dir
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    dead_pid = int(dead.stdout)
    gone = folder / f".OUTCOMES.md.{dead_pid}.0123abcd.tmp"
    live = folder / f".OUTCOMES.md.{os.getpid()}.89abcdef.tmp"
    old = folder / f".PATTERNS.md.{os.getpid()}.deadbeef.tmp"
    unrelated = folder / ".notes.tmp"
    for path in (gone, live, old, unrelated):
        path.write_text("half a file", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    _record(legion_project)
    assert not gone.exists() and not old.exists()
    assert live.exists() and unrelated.exists()  # a live writer's temp file, and one that is not ours


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changing a file's group needs root")
def test_rewrite_keeps_group(legion_project: LegionMemory) -> None:
    outcomes = legion_project.memory_dir / "OUTCOMES.md"
    with open(outcomes, "a", encoding="utf-8") as handle:
        handle.write("\nNotes after the table.\n")
    os.chown(outcomes, -1, 4242)
    _record(legion_project)
    assert outcomes.stat().st_gid == 4242


@pytest.mark.parametrize("link", [".planning/memory", ".planning"])
def test_memory_folder_symlinked_out_of_the_project_is_refused(tmp_path: Path, link: str) -> None:
    """``.planning/memory`` (or ``.planning``) a symlink to a folder outside the work tree: no write, no import."""
    root, outside = tmp_path / "project", tmp_path / "outside"
    target = outside / "memory" if link == ".planning/memory" else outside
    (outside / "memory").mkdir(parents=True)
    (outside / "memory" / "OUTCOMES.md").write_text(
        "| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\n"
        "|----|------|--------|-------|------|-------|-----------|---------|------------|------|---------|\n"
        + outcome_line("O-001", "2026-11-01", "an outside record"),
        encoding="utf-8",
    )
    (root / ".planning").mkdir(parents=True) if link == ".planning/memory" else root.mkdir()
    (root / link).symlink_to(target, target_is_directory=True)
    before = (outside / "memory" / "OUTCOMES.md").read_bytes()
    memory = LegionMemory.for_project(root, branch_provider=lambda _root: "main", claude_home=tmp_path / "home")
    with pytest.raises(MnemeError) as info:
        _record(memory)
    first = str(info.value).splitlines()[0]
    assert "symlink" in first and "outside" in first and "refusing" in first
    assert (outside / "memory" / "OUTCOMES.md").read_bytes() == before
    assert sorted(p.name for p in (outside / "memory").iterdir()) == ["OUTCOMES.md"]
    report = memory.read_all().file("OUTCOMES.md")
    assert report is not None and report.records == [] and "symlink" in report.warnings[0]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mneme_tui",
            "legion",
            "sync",
            "--dir",
            str(root / ".planning" / "memory"),
            "-p",
            "proj",
            "--db",
            str(tmp_path / "m.db"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0 and "refusing" in result.stderr and "an outside record" not in result.stdout


def test_memory_folder_symlinked_inside_the_project_is_followed(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "kept" / "memory").mkdir(parents=True)
    (root / ".planning").mkdir()
    (root / ".planning" / "memory").symlink_to(root / "kept" / "memory", target_is_directory=True)
    memory = LegionMemory.for_project(root, branch_provider=lambda _root: "main", claude_home=tmp_path / "home")
    _record(memory, "inside")
    assert "inside" in (root / "kept" / "memory" / "OUTCOMES.md").read_text(encoding="utf-8")


def test_a_rewrite_journal_that_is_a_symlink_is_never_applied(legion_project: LegionMemory, tmp_path: Path) -> None:
    """A repository that ships ``.OUTCOMES.md.rewrite-journal`` as a symlink: readers and writers ignore it."""
    outcomes = legion_project.memory_dir / "OUTCOMES.md"
    before = outcomes.read_bytes()
    crafted = tmp_path / "crafted"
    digest = hashlib.sha256(before[6:]).hexdigest()  # a journal that would apply: "hacked" over the first bytes
    crafted.write_bytes(
        f'{{"offset": 0, "unread": {len(before)}, "check_end": {len(before)}, '
        f'"check_digest": "{digest}", "size": 6}}\n'.encode()
        + b"hacked"
    )
    link = legion_project.memory_dir / ".OUTCOMES.md.rewrite-journal"
    link.symlink_to(crafted)
    assert len(legion_project.load("OUTCOMES.md").records) == 21
    _record(legion_project, "after the link")
    assert outcomes.read_bytes().startswith(before) and not link.is_symlink() and crafted.exists()
