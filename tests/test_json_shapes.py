"""What agents read: piped output is never wrapped to a width, and the ``--json`` shapes stay stable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mneme_tui.cli import main as cli_main

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


MEMORY = {"access_count", "content", "created_at", "id", "kind", "provenance", "repo_id", "status", "superseded_by",
          "task_id", "topic"}
HISTORY_ENTRY = {"actor", "at", "from_status", "memory_id", "reason", "to_status"}
#: Each command's ``--json`` top-level keys (for a list: its first element's); changing one breaks agents.
SHAPES: list[tuple[list[str], set[str]]] = [
    (["save", "peewee keeps one connection per thread"], MEMORY),
    (["recall", "connection"], MEMORY | {"components", "profile", "reasons", "score"}),
    (["list"], MEMORY),
    (["show", "1"], {"accessed_by", "created_by", "history", "memory", "superseded_by", "supersedes"}),
    (["supersede", "1", "peewee: one connection per thread"], {"memory", "superseded"}),
    (["dismiss", "2"], {"dismissed", "unchanged"}),
    (["restore", "2"], {"restored", "unchanged"}),
    (["handshake"], {"cooled", "cooling_days", "generated_at", "graduation_candidates", "imported", "learned_pitfalls",
                     "modified_files", "omitted", "read_only", "reinforced", "repo", "scoped", "task_id",
                     "verified_patterns"}),
    (["legion", "briefing", "--dir", "memory"],
     {"agent_scores", "agent_signals", "archetype_scores", "claude_memory", "files", "latest_preference", "note",
      "preference_notes", "preference_signals", "prune_threshold", "recent_outcomes", "top_agents", "total_records", "warnings",
      "weekly_success"}),
    (["legion", "recall", "outcomes", "--dir", "memory"], {"note", "records", "total_records", "warnings"}),
    (["legion", "recall", "patterns", "--dir", "memory"], {"records", "total_records", "warnings"}),
    (["legion", "recall", "errors", "--dir", "memory"], {"records", "total_records", "warnings"}),
    (["legion", "recall", "preferences", "--dir", "memory"],
     {"notes", "preference_boost", "records", "total_records", "warnings"}),
]


def test_json_shapes_are_stable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEME_NOW", "2026-11-30T12:00:00Z")
    monkeypatch.setenv("MNEME_REPO", "acme")
    db = str(tmp_path / "mneme.db")
    assert cli_main(["legion", "record", "outcome", "--dir", "memory", "--agent", "a", "--outcome", "success",
                     "--summary", "s", "--branch", "main", "--db", db]) == 0
    for argv, keys in SHAPES:
        capsys.readouterr()
        assert cli_main([*argv, "--json", "--db", db]) == 0, argv
        document = json.loads(capsys.readouterr().out)
        if isinstance(document, list):
            document = document[0]
        assert set(document) == keys, argv
    assert cli_main(["show", "2", "--json", "--db", db]) == 0  # dismissed and restored above: two history entries
    history = json.loads(capsys.readouterr().out)["history"]
    assert [set(entry) for entry in history] == [HISTORY_ENTRY] * 2
