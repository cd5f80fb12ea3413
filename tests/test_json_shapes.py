"""What agents read: every data command's ``--json`` shape, stable (piped plain output: test_piped_output.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mneme_tui.cli import main as cli_main

DATASET = Path(__file__).parent / "data" / "recall_eval.json"
MEMORY = {
    "access_count",
    "content",
    "created_at",
    "id",
    "kind",
    "provenance",
    "repo_id",
    "status",
    "superseded_by",
    "task_id",
    "topic",
}
HISTORY_ENTRY = {"actor", "at", "from_status", "memory_id", "reason", "to_status"}
RECORDED = {"action", "existing_id", "file", "prune", "record", "warnings"}
#: Each command's ``--json`` top-level keys (for a list: its first element's); changing one breaks agents. The
#: docs/json.md's table documents the same sets.
SHAPES: list[tuple[list[str], set[str]]] = [
    (["save", "peewee keeps one connection per thread"], MEMORY),
    (["recall", "connection"], MEMORY | {"components", "profile", "reasons", "score"}),
    (["recall", "connection", "--budget", "1000"], {"budget", "results"}),
    (["list"], MEMORY),
    (["show", "1"], {"accessed_by", "created_by", "history", "memory", "superseded_by", "supersedes"}),
    (["supersede", "1", "peewee: one connection per thread"], {"memory", "superseded"}),
    (["dismiss", "2"], {"dismissed", "unchanged"}),
    (["restore", "2"], {"restored", "unchanged"}),
    (["edit", "2"], {"memory", "superseded"}),  # EDITOR=true: nothing changed
    (
        ["task", "sync", "report1.json"],
        {"dry_run", "duplicates", "learnings", "notes", "reason", "repo", "task_id", "verified", "written"},
    ),
    (
        ["task", "sync", "report2.json"],
        {"dry_run", "duplicates", "learnings", "notes", "reason", "repo", "task_id", "verified", "written"},
    ),
    (
        ["task", "candidates"],
        {
            "access_count",
            "accessed_by",
            "gate",
            "memory",
            "reason",
            "recurrence",
            "related_ids",
            "rule",
            "rule_text",
            "scope",
            "structural",
            "tasks",
        },
    ),
    (
        ["handshake"],
        {
            "cooled",
            "cooling_days",
            "generated_at",
            "graduation_candidates",
            "imported",
            "learned_pitfalls",
            "modified_files",
            "omitted",
            "read_only",
            "reinforced",
            "repo",
            "scoped",
            "task_id",
            "verified_patterns",
        },
    ),
    (
        ["handshake", "--budget", "1000"],
        {
            "budget",
            "cooled",
            "cooling_days",
            "generated_at",
            "graduation_candidates",
            "imported",
            "learned_pitfalls",
            "modified_files",
            "omitted",
            "read_only",
            "reinforced",
            "repo",
            "scoped",
            "task_id",
            "verified_patterns",
        },
    ),
    (
        [
            "legion",
            "record",
            "outcome",
            "--dir",
            "memory",
            "--agent",
            "a",
            "--outcome",
            "success",
            "--summary",
            "s",
            "--branch",
            "main",
        ],
        RECORDED,
    ),
    (["legion", "record", "pattern", "--dir", "memory", "--pattern", "p", "--branch", "main"], RECORDED),
    (
        ["legion", "record", "error", "--dir", "memory", "--error-signature", "E", "--fix", "f", "--branch", "main"],
        RECORDED,
    ),
    (
        [
            "legion",
            "record",
            "preference",
            "--dir",
            "memory",
            "--decision-point",
            "manual-edit",
            "--context",
            "c",
            "--signal",
            "corrective",
            "--branch",
            "main",
        ],
        RECORDED,
    ),
    (
        ["legion", "briefing", "--dir", "memory"],
        {
            "agent_scores",
            "agent_signals",
            "archetype_scores",
            "claude_memory",
            "files",
            "latest_preference",
            "note",
            "preference_notes",
            "preference_signals",
            "prune_threshold",
            "recent_outcomes",
            "top_agents",
            "total_records",
            "warnings",
            "weekly_success",
        },
    ),
    (
        ["legion", "briefing", "--dir", "memory", "--budget", "2000"],
        {
            "agent_scores",
            "agent_signals",
            "archetype_scores",
            "budget",
            "claude_memory",
            "files",
            "latest_preference",
            "note",
            "preference_notes",
            "preference_signals",
            "prune_threshold",
            "recent_outcomes",
            "top_agents",
            "total_records",
            "warnings",
            "weekly_success",
        },
    ),
    (["legion", "recall", "outcomes", "--dir", "memory"], {"note", "records", "total_records", "warnings"}),
    (
        ["legion", "recall", "outcomes", "--dir", "memory", "--budget", "1000"],
        {"budget", "note", "records", "total_records", "warnings"},
    ),
    (["legion", "recall", "patterns", "--dir", "memory"], {"records", "total_records", "warnings"}),
    (["legion", "recall", "errors", "--dir", "memory"], {"records", "total_records", "warnings"}),
    (
        ["legion", "recall", "preferences", "--dir", "memory"],
        {"notes", "preference_boost", "records", "total_records", "warnings"},
    ),
    (["legion", "agents", "--dir", "memory"], {"agents", "archetypes"}),
    (
        ["legion", "sync", "--dir", "memory"],
        {"exports", "files", "memory_dir", "message", "project", "synced", "totals", "warnings"},
    ),
    (
        ["legion", "prune", "--dir", "memory"],
        {
            "applied",
            "as_of",
            "candidates",
            "current_phase",
            "kept",
            "message",
            "prune_age_days",
            "total_records",
            "warnings",
        },
    ),
    (
        ["legion", "compact", "03-api"],
        {
            "compacted_chars",
            "file_paths",
            "missing_added",
            "original_chars",
            "original_summaries",
            "path",
            "phase",
            "ratio",
            "requirements_satisfied",
            "warnings",
        },
    ),
    (["db", "info"], {"backend", "database", "memories", "schema_version", "tables"}),
    (["db", "copy", "mneme.db", "copy.db"], {"copied", "destination", "kept_ids", "skipped", "source", "verified"}),
    (["secrets", "scan", "-A"], {"proposals"}),
    (["purge", "1", "--reason", "a leaked key"], {"clean", "markdown_rewritten", "purged", "reason"}),
    (["export", "-A", "--status", "all", "-o", "export.jsonl"], {"files", "format", "memories", "repos"}),
    (["import", "export.jsonl"], {"file", "history", "ids", "imported", "records", "skipped"}),
    (["setup", "cursor", "--root", "."], {"agent", "dry_run", "files", "remove", "scope"}),
    (["eval", str(DATASET)], {"description", "held_out_from", "memories", "questions", "results"}),
    (
        ["eval", str(DATASET), "--ablation"],
        {"ablation", "description", "held_out_from", "memories", "questions", "results"},
    ),
    (["save", "Use one connection per thread"], MEMORY),
    (["save", "Never use one connection per thread"], MEMORY),  # a conflict: review's first proposal
    (["review"], {"proposals", "repo"}),
    (["review", "reject", "PROPOSAL"], {"decisions"}),
    (["review", "undo", "PROPOSAL"], {"decisions"}),
    (["review", "accept", "PROPOSAL"], {"decisions"}),
    (["pin", "1"], {"pinned", "unchanged"}),
    (["unpin", "1"], {"unchanged", "unpinned"}),
]
PROPOSAL = "PROPOSAL"
"""Stands for the id of the first proposal the last ``review`` listed."""


def report(task_id: str) -> dict[str, Any]:
    """A verified task report: the Cognitive Complexity gate of ``src/store.py`` failed, then passed."""
    gate = {"name": "Cognitive Complexity", "file": "src/store.py"}
    return {
        "task_id": task_id,
        "repo": "acme",
        "modified_files": ["src/store.py"],
        "walkthrough": "Split Store.save so each function stays small.",
        "runs": [
            {"gates": [{**gate, "passed": False, "message": "over"}]},
            {"gates": [{**gate, "passed": True, "message": "ok"}]},
        ],
    }


def test_json_shapes_are_stable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEME_NOW", "2026-11-30T12:00:00Z")
    monkeypatch.setenv("MNEME_REPO", "acme")
    monkeypatch.setenv("EDITOR", "true")
    monkeypatch.delenv("VISUAL", raising=False)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "store.py").write_text("class Store:\n    def save(self):\n        return 1\n")
    for n in (1, 2):  # two tasks failing the same gate on the same file: a graduation candidate
        (tmp_path / f"report{n}.json").write_text(json.dumps(report(f"INT-{n}")))
    (tmp_path / "03-api").mkdir()
    (tmp_path / "03-api" / "03-01-SUMMARY.md").write_text("---\nrequirements: [REQ-01]\n---\n# Plan 01 Summary\n")
    db = str(tmp_path / "mneme.db")
    proposal = ""
    for argv, keys in SHAPES:
        capsys.readouterr()
        argv = [proposal if word == PROPOSAL else word for word in argv]
        assert cli_main([*argv, "--json", "--db", db]) == 0, argv
        document = json.loads(capsys.readouterr().out)
        if argv == ["review"]:
            proposal = document["proposals"][0]["id"]
        if isinstance(document, list):
            assert document, argv
            document = document[0]
        assert set(document) == keys, argv
    assert cli_main(["show", "2", "--json", "--db", db]) == 0  # dismissed and restored above: two history entries
    history = json.loads(capsys.readouterr().out)["history"]
    assert [set(entry) for entry in history] == [HISTORY_ENTRY] * 2


def commands() -> list[str]:
    """Every command of the parser, as typed (``legion record outcome``)."""
    import argparse

    from mneme_tui.cli import build_parser
    from mneme_tui.cli.arguments import Parser

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> list[str]:
        if isinstance(parser, Parser):
            parser.complete()  # a deferred group (legion) adds its commands on first use
        subs = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
        if not subs:
            assert "--json" in {o for a in parser._actions for o in a.option_strings} or path == ["mcp"], path
            return [" ".join(path)]
        return [name for child, sub in subs[0].choices.items() for name in walk(sub, [*path, child])]

    return walk(build_parser(), [])


def row_commands(cell: str) -> set[str]:
    """The commands a docs table cell names: `legion recall patterns` / `errors` names two."""
    named: list[str] = []
    for piece in re.findall(r"`([^`]+)`", cell):
        named.append(
            piece if " " in piece or not named or " " not in named[-1] else f"{named[-1].rsplit(' ', 1)[0]} {piece}"
        )
    return set(named)


def test_every_data_command_has_json_a_checked_shape_and_a_docs_row() -> None:
    table = (Path(__file__).parent.parent / "docs" / "json.md").read_text(encoding="utf-8")
    documented = {
        name for line in table.splitlines() if line.startswith("| `") for name in row_commands(line.split("|")[1])
    }
    checked = {" ".join(word for word in argv if not word.startswith("-")) for argv, _ in SHAPES}
    for command in commands():
        if command in ("mcp", "bench"):  # mcp serves these documents; bench's row and shape are checked elsewhere
            continue
        assert any(shape == command or shape.startswith(f"{command} ") for shape in checked), command
        kinds = {f"{command} {kind}" for kind in ("outcomes", "patterns", "errors", "preferences")}
        assert command in documented or kinds <= documented, command
