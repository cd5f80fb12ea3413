"""Purge, the one deletion: after it no byte of the text is left in any file the store owns."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from reliability.cli_harness import run

from mneme_tui import config
from mneme_tui.memory import index_snapshot
from mneme_tui.memory.purge import PURGED, removed_text_hash
from mneme_tui.memory.store import Store

CANARY = "quartz-canary-7741-zebra"
"""Stands for a secret the detector missed: unique, so any copy of it in a file is found."""


def _files_holding(needle: str, *folders: Path) -> list[str]:
    data = needle.encode()
    return [
        str(path)
        for folder in folders
        for path in sorted(folder.rglob("*"))
        if path.is_file() and data in path.read_bytes()
    ]


def _ok(argv: list[str]) -> dict:
    result = run([*argv, "--json"])
    assert result.code == 0, (argv, result.err)
    return json.loads(result.out)


def _write_through_every_path(tmp_path: Path) -> tuple[list[int], Path]:
    """The canary through save, supersede, task sync and the Legion import; the ids that hold it."""
    saved = _ok(["save", f"deploy notes {CANARY}", "--topic", f"ops {CANARY}"])["id"]
    newer = _ok(["supersede", str(saved), f"deploy notes, corrected {CANARY}"])["memory"]["id"]
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    pass\n")
    gate = {"name": "Cognitive Complexity", "file": "src/app.py"}
    report = {
        "task_id": "INT-9",
        "repo": "acme",
        "modified_files": ["src/app.py"],
        "walkthrough": f"split {CANARY}",
        "runs": [
            {"gates": [{**gate, "passed": False, "message": f"over {CANARY}"}]},
            {"gates": [{**gate, "passed": True, "message": "ok"}]},
        ],
    }
    (tmp_path / "report.json").write_text(json.dumps(report))
    synced = _ok(["task", "sync", str(tmp_path / "report.json"), "--root", str(root)])
    folder = tmp_path / "planning"
    folder.mkdir()
    _ok(["legion", "record", "pattern", "--dir", str(folder), "--pattern", f"rotate {CANARY}", "--branch", "main"])
    _ok(["legion", "sync", "--dir", str(folder), "-p", "acme"])
    store = Store(os.environ["MNEME_DB"])
    holding = [m.id for m in store.list(status="all", limit=None) if CANARY in m.content + m.topic]
    assert {saved, newer, *(item["memory_id"] for item in synced["learnings"])} <= set(holding)
    assert len(holding) >= 5
    return holding, folder


def test_purge_leaves_no_byte_of_the_text_in_any_file_the_store_owns(tmp_path: Path) -> None:
    holding, folder = _write_through_every_path(tmp_path)
    db = Path(os.environ["MNEME_DB"])
    store = Store(db)
    store.refresh_index()
    snapshot = index_snapshot.snapshot_path(db)
    assert index_snapshot.save(store.index, snapshot, store._db_uuid())
    store.close()
    owned = [db.parent, config.cache_dir()]
    assert _files_holding(CANARY, *owned)  # the test would prove nothing otherwise

    result = run(
        ["purge", *map(str, holding), "--chain", "--reason", "a leaked key", "--markdown", "--dir", str(folder)]
    )
    assert result.code == 0, result.err
    assert "and its row P-001 in PATTERNS.md" in result.out

    assert _files_holding(CANARY, *owned, folder) == []  # database, WAL, shared memory, snapshot, cache, markdown
    assert not snapshot.exists()
    again = _ok(["legion", "sync", "--dir", str(folder), "-p", "acme"])  # the rewritten row brings nothing back
    assert again["totals"]["added"] == 0
    assert _files_holding(CANARY, *owned, folder) == []


def test_without_markdown_the_purge_says_where_the_file_still_holds_it(tmp_path: Path) -> None:
    folder = tmp_path / "planning"
    folder.mkdir()
    _ok(["legion", "record", "pattern", "--dir", str(folder), "--pattern", f"rotate {CANARY}", "--branch", "main"])
    _ok(["legion", "sync", "--dir", str(folder), "-p", "acme"])
    (memory_id,) = [m.id for m in Store(os.environ["MNEME_DB"]).list(status="all", limit=None, repo_id=None)]
    result = run(["purge", str(memory_id), "--reason", "leaked"])
    assert "note: PATTERNS.md still holds record P-001: edit the file, or purge with --markdown" in result.out
    assert CANARY in (folder / "PATTERNS.md").read_text()
    again = _ok(["legion", "sync", "--dir", str(folder), "-p", "acme"])  # the unchanged row is not imported again
    assert again["totals"]["added"] == 0 and again["totals"]["unchanged"] == 1
    assert _files_holding(CANARY, Path(os.environ["MNEME_DB"]).parent) == []


def test_purge_marks_audits_and_hashes(tmp_path: Path) -> None:
    saved = _ok(["save", f"the text {CANARY}", "--topic", "ops"])
    result = _ok(["purge", str(saved["id"]), "--reason", "leaked"])
    (purged,) = result["purged"]
    assert purged["sha256"] == removed_text_hash("ops", f"the text {CANARY}")
    assert purged["previous_status"] == "active" and result["reason"] == "leaked"
    shown = _ok(["show", str(saved["id"])])
    assert shown["memory"]["content"] == PURGED and shown["memory"]["topic"] == PURGED
    assert shown["memory"]["status"] == "tombstoned"
    reasons = [(entry["from_status"], entry["to_status"], entry["reason"]) for entry in shown["history"]]
    assert reasons == [
        ("active", "tombstoned", "purged"),
        ("tombstoned", "tombstoned", f"purged: leaked (sha256 {purged['sha256']})"),
    ]
    assert {entry["actor"] for entry in shown["history"]} == {"tester@ci"}
    assert _ok(["recall", "text"]) == []


def test_chain_purges_every_version() -> None:
    first = _ok(["save", "v1 " + CANARY])["id"]
    second = _ok(["supersede", str(first), "v2 " + CANARY])["memory"]["id"]
    third = _ok(["supersede", str(second), "v3 " + CANARY])["memory"]["id"]
    assert [m["id"] for m in _ok(["purge", str(second), "--chain", "--reason", "r"])["purged"]] == [
        first,
        second,
        third,
    ]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["purge", "99", "--reason", "r"], "ERR_NOT_FOUND: no memory with id 99"),
        (["purge", "1", "--reason", "  "], "ERR_VALIDATION_FAILED: a purge needs a reason"),
        (["purge", "x", "--reason", "r"], "ERR_VALIDATION_FAILED: not a memory id: x; nothing purged"),
    ],
)
def test_bad_purges_change_nothing(argv: list[str], needle: str) -> None:
    _ok(["save", "kept " + CANARY])
    run(argv).assert_one_error_line(1, needle)
    assert CANARY in _ok(["show", "1"])["memory"]["content"]
