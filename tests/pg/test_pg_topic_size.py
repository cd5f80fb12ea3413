"""What PostgreSQL still refuses as too large for an index (SQLSTATE 54000: a row of the orientation index past
about 2,700 bytes, here through a huge repo name or a topic an older SQLite store holds) is one
``ERR_VALIDATION_FAILED`` line, never a ``ProgramLimitExceeded`` traceback, and nothing is written."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from mneme_tui.cli import main
from mneme_tui.memory.store import Store

INDEX_REFUSAL = "refused a value too large for its indexes"


def _incompressible(size: int) -> str:
    """``size`` letters PostgreSQL cannot compress below its index row limit (a fixed seed)."""
    return "".join(random.Random(size).choices(string.ascii_letters + string.digits, k=size))


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 1, argv
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    return captured.err


def test_an_index_row_too_large_is_one_line(pg_database, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(capsys, "save", "a note", "-p", _incompressible(8_000), "--db", pg_database.url)
    assert err.startswith("mneme: ERR_VALIDATION_FAILED: ") and INDEX_REFUSAL in err
    assert "ProgramLimitExceeded" not in err
    assert Store(pg_database.url).list(status="all", limit=None) == []


def test_copying_an_older_store_with_a_longer_topic_is_refused_whole(
    pg_database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sqlite_path = tmp_path / "old.db"
    store = Store(sqlite_path)
    store.save("fits anywhere", repo_id="acme")
    long = store.save("written before the limit", repo_id="acme")
    store.db.execute_sql("UPDATE memories SET topic = ? WHERE id = ?", (_incompressible(8_000), long.id))
    store.close()
    err = _refused(capsys, "db", "copy", str(sqlite_path), pg_database.url)
    assert INDEX_REFUSAL in err and "index row size" in err and str(sqlite_path) not in err  # the destination's
    assert Store(pg_database.url).list(status="all", limit=None) == []  # one transaction: nothing copied
