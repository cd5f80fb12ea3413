"""A store written before the topic size limit (``MAX_TOPIC_BYTES``) keeps working: a memory with a longer topic
is read, recalled, listed and dismissed as before; only a new write of such a topic is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mneme_tui.cli import main
from mneme_tui.memory.store import Store
from mneme_tui.validation import MAX_TOPIC_BYTES

OLD_TOPIC = "legacy " * 1_000  # 7,000 bytes: SQLite took it before the limit


def _cli(capsys: pytest.CaptureFixture[str], path: Path, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([*argv, "--db", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_an_older_store_with_a_longer_topic_keeps_working(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.db"
    store = Store(path)
    memory = store.save("the parser drops trailing commas", topic="short", repo_id="acme")
    store.db.execute_sql(
        "UPDATE memories SET topic = ? WHERE id = ?", (OLD_TOPIC, memory.id)
    )  # as an older mneme wrote it
    store.close()
    code, out, err = _cli(capsys, path, "show", str(memory.id), "--json")
    assert code == 0 and json.loads(out)["memory"]["topic"] == OLD_TOPIC, err
    code, out, err = _cli(capsys, path, "recall", "parser trailing commas", "-p", "acme", "--json")
    assert code == 0 and [hit["id"] for hit in json.loads(out)] == [memory.id], err
    assert _cli(capsys, path, "list", "-p", "acme")[0] == 0
    code, _, err = _cli(capsys, path, "supersede", str(memory.id), "the parser keeps trailing commas")
    assert code == 1 and f"exceeds the topic size limit of {MAX_TOPIC_BYTES:,} bytes" in err  # a new write: checked
    code, _, err = _cli(
        capsys, path, "supersede", str(memory.id), "the parser keeps trailing commas", "--topic", "parser"
    )
    assert code == 0, err
    assert _cli(capsys, path, "dismiss", str(memory.id))[0] == 0
    assert Store(path).get(memory.id).status == "tombstoned"
