"""``mneme export`` → ``mneme import``: into an empty store every memory, link, provenance, history entry and
task access comes back; into a store with memories the ids are new and the links follow; a second import
adds nothing; a bad line is one error naming it, and nothing is imported (all or nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mneme_tui.cli import main
from mneme_tui.config import DbTarget
from mneme_tui.memory.records import LEGION_IMPORT, TASK_SYNC, Provenance
from mneme_tui.memory.store import Store


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store with two repos, every status, a supersession chain, verified and imported kinds, history,
    task accesses and text that needs care (newlines, brackets, backticks, unicode)."""
    path = tmp_path / "source.db"
    store = Store(path)
    first = store.save("peewee keeps one connection per thread", kind="decision", topic="peewee", repo_id="shop")
    store.save("Refactored app.py [Store.save]\n```\ncode\n```\n— ünïcode", topic="notes", repo_id="shop")
    monkeypatch.setenv("MNEME_NOW", "2026-11-29T13:00:00.250000")
    pitfall = store.mint(
        "Cognitive Complexity over 15 in src/store.py",
        kind="pitfall",
        repo_id="shop",
        task_id="INT-1",
        provenance=Provenance(TASK_SYNC, "INT-1"),
    )
    store.mint(
        "PATTERNS.md P-003: retry once",
        kind="practice",
        repo_id="legacy",
        provenance=Provenance(LEGION_IMPORT, "PATTERNS.md#P-003"),
    )
    second = store.supersede(first.id, "peewee: one connection per thread; open one per worker")
    store.supersede(second.id, "peewee: connection_context() in each worker thread")
    store.dismiss([2])
    store.restore([2])
    store.dismiss([4], reason="stale")
    store.reinforce("INT-2", [pitfall.id, 2])
    store.reinforce("INT-3", [pitfall.id])
    store.close()
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def everything(target: DbTarget) -> list[dict[str, Any]]:
    """Every memory's ``show`` document plus its task accesses with their times, in id order."""
    store = Store(target)
    ids = [memory.id for memory in store.list(status="all", limit=None, order="id")]
    accesses = store.task_access.accesses_for(ids)
    shown = [{**store.detail(memory_id).to_json(), "accesses": accesses.get(memory_id, [])} for memory_id in ids]
    store.close()
    return shown


def export(capsys, db: Path, out: Path, *argv: str) -> None:
    assert run(capsys, "export", "-A", "--status", "all", "--db", str(db), "-o", str(out), *argv)[0] == 0


def test_export_then_import_into_an_empty_store_gives_back_everything(source, tmp_path, capsys, new_db_target):
    """From SQLite into an empty store on each backend (SQLite, then a real PostgreSQL server)."""
    export(capsys, source, tmp_path / "out.jsonl")
    target = new_db_target("target")
    status, out, err = run(capsys, "import", str(tmp_path / "out.jsonl"), "--db", str(target))
    assert (status, err) == (0, "")
    assert (
        out
        == "Imported 6 memories (5 history entries) from " + str(tmp_path / "out.jsonl") + "; 0 already in the store.\n"
    )
    assert everything(target) == everything(source)


def test_a_second_import_adds_nothing(source, tmp_path, capsys, new_db_target):
    export(capsys, source, tmp_path / "out.jsonl")
    target = new_db_target("target")
    assert run(capsys, "import", str(tmp_path / "out.jsonl"), "--db", str(target))[0] == 0
    before = everything(target)
    status, out, _err = run(capsys, "import", str(tmp_path / "out.jsonl"), "--db", str(target), "--json")
    result = json.loads(out)
    assert status == 0 and (result["imported"], result["skipped"], result["history"]) == (0, 6, 0)
    assert result["ids"] == {str(n): n for n in range(1, 7)}
    assert everything(target) == before


def test_into_a_store_with_memories_ids_are_new_and_links_follow(source, tmp_path, capsys):
    export(capsys, source, tmp_path / "out.jsonl")
    target = tmp_path / "target.db"
    store = Store(target)
    store.save("already here", repo_id="shop")
    store.save("and here", repo_id="other")
    store.close()
    status, out, _err = run(capsys, "import", str(tmp_path / "out.jsonl"), "--db", str(target), "--json")
    ids = {int(old): new for old, new in json.loads(out)["ids"].items()}
    assert status == 0 and ids == {old: old + 2 for old in range(1, 7)}
    original = {shown["memory"]["id"]: shown for shown in everything(source)}
    for shown in everything(target)[2:]:
        old = original[next(o for o, n in ids.items() if n == shown["memory"]["id"])]
        link = old["memory"]["superseded_by"]
        assert shown["memory"]["superseded_by"] == (ids[link] if link else 0)
        assert [entry["to_status"] for entry in shown["history"]] == [e["to_status"] for e in old["history"]]
        assert shown["memory"]["content"] == old["memory"]["content"]
        assert shown["created_by"] == old["created_by"]


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("{not json", "not a JSON object (Expecting property name enclosed in double quotes at column 2)"),
        ('{"format": "mneme-memory", "version": 1}', "missing field 'provenance'"),
        ("[1, 2]", "not a JSON object"),
        ('{"format": "something-else", "version": 1}', "not a mneme-memory version 1 line"),
    ],
)
def test_a_malformed_line_is_named_and_nothing_is_imported(source, tmp_path, capsys, bad, reason):
    export(capsys, source, tmp_path / "out.jsonl")
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines[:2], bad, *lines[2:]]) + "\n", encoding="utf-8")
    target = tmp_path / "target.db"
    status, out, err = run(capsys, "import", str(broken), "--db", str(target))
    assert (status, out) == (1, "")
    assert err == f"mneme: ERR_VALIDATION_FAILED: {broken} line 3: {reason}\n"
    assert Store(target).count() == 0


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("content", " ", "memory content cannot be empty"),
        ("created_at", "yesterday", "created_at is not an ISO-8601 time: 'yesterday'"),
        ("superseded_by", -1, "superseded_by must be an integer ≥ 0"),
        ("topic", "€" * 342, "the topic (1,026 bytes of UTF-8) exceeds the topic size limit of 1,024 bytes"),
        ("task_id", "T" * 513, "the task id (513 bytes of UTF-8) exceeds the task id size limit of 512 bytes"),
    ],
)
def test_a_line_that_fails_the_checks_of_a_save_is_named_and_nothing_is_imported(
    source, tmp_path, capsys, field, value, message
):
    export(capsys, source, tmp_path / "out.jsonl")
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[4])
    record[field] = value
    lines[4] = json.dumps(record)
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    target = tmp_path / "target.db"
    status, _out, err = run(capsys, "import", str(tmp_path / "bad.jsonl"), "--db", str(target))
    assert status == 1 and err == f"mneme: ERR_VALIDATION_FAILED: {tmp_path / 'bad.jsonl'} line 5: {message}\n"
    assert Store(target).count() == 0


def test_a_statutory_kind_needs_its_task_sync_provenance(source, tmp_path, capsys):
    export(capsys, source, tmp_path / "out.jsonl")
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2])
    assert record["kind"] == "pitfall"
    record["provenance"]["source"] = "save"
    lines[2] = json.dumps(record)
    (tmp_path / "forged.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, _out, err = run(capsys, "import", str(tmp_path / "forged.jsonl"), "--db", str(tmp_path / "t.db"))
    assert status == 1 and "line 3: kind 'pitfall' is statutory" in err and len(err.splitlines()) == 1
    assert Store(tmp_path / "t.db").count() == 0


def test_export_filters_by_repo_and_status(source, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MNEME_REPO", "shop")
    status, out, _err = run(capsys, "export", "--db", str(source))
    exported = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and {(r["repo_id"], r["status"]) for r in exported} == {("shop", "active")}
    status, out, _err = run(capsys, "export", "-p", "legacy", "--status", "tombstoned", "--db", str(source))
    assert [json.loads(line)["content"] for line in out.splitlines()] == ["PATTERNS.md P-003: retry once"]


def test_markdown_is_one_readable_file_per_repo(source, tmp_path, capsys):
    status, out, _err = run(
        capsys,
        "export",
        "-A",
        "--status",
        "all",
        "--format",
        "markdown",
        "--db",
        str(source),
        "-o",
        str(tmp_path / "md"),
        "--json",
    )
    assert status == 0 and json.loads(out)["files"] == [
        str(tmp_path / "md" / "legacy.md"),
        str(tmp_path / "md" / "shop.md"),
    ]
    shop = (tmp_path / "md" / "shop.md").read_text(encoding="utf-8")
    assert shop.startswith("# Memories of shop\n\n5 memories (active 3, superseded 2).\n\n## General\n")
    assert "````text\nRefactored app.py [Store.save]\n```\ncode\n```\n— ünïcode\n````" in shop  # a longer fence
    assert "- created 2026-11-29T13:00:00.250000Z · task sync · INT-1 (verified) · task INT-1" in shop
    assert "superseded by #5" in shop


def test_json_without_an_output_file_is_refused(source, capsys):
    status, out, err = run(capsys, "export", "--json", "--db", str(source))
    assert (status, out) == (1, "") and err.startswith("mneme: ERR_VALIDATION_FAILED: --json prints a summary")


def test_import_reads_standard_input(source, tmp_path, capsys, monkeypatch):
    import io

    export(capsys, source, tmp_path / "out.jsonl")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((tmp_path / "out.jsonl").read_bytes())))
    status, out, _err = run(capsys, "import", "-", "--db", str(tmp_path / "t.db"))
    assert status == 0 and out.startswith("Imported 6 memories") and "from standard input" in out
