"""What agents read: piped output is never wrapped to a width, and the ``--json`` shapes stay stable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

AGENT = "engineering-infrastructure-devops-specialist-with-a-long-name"
SUMMARY = "Parallel worktree fixes across the core, the content pipeline and the release scripts, all green"


def mneme(work: Path, *argv: str) -> str:
    """``mneme ARGV`` in a fresh process with stdout piped (not a terminal)."""
    env = {**os.environ, "MNEME_NOW": "2026-11-30T12:00:00Z", "COLUMNS": "80"}
    done = subprocess.run([sys.executable, "-m", "mneme_tui", *argv, "--db", str(work / "mneme.db")],
                          capture_output=True, text=True, check=True, cwd=work, env=env)
    return done.stdout


def test_piped_tables_keep_each_record_on_one_line(tmp_path: Path) -> None:
    folder = str(tmp_path / "memory")
    for n in range(3):
        mneme(tmp_path, "legion", "record", "outcome", "--dir", folder, "--agent", f"{AGENT}-{n}",
              "--outcome", "success", "--summary", SUMMARY, "--branch", "main")
    briefing = mneme(tmp_path, "legion", "briefing", "--dir", folder)
    recalled = mneme(tmp_path, "legion", "recall", "--dir", folder)
    for text in (briefing, recalled):
        rows = [line for line in text.splitlines() if SUMMARY in line]
        assert len(rows) == 3, text
        assert all(AGENT in row and "2026-11-30" in row for row in rows), text
        assert "\x1b[" not in text
        assert all(line == line.rstrip() for line in text.splitlines())
