"""Two processes writing to one database at once lose nothing (WAL + busy timeout + BEGIN IMMEDIATE)."""

from __future__ import annotations

import multiprocessing
import sqlite3
import textwrap
import threading
from pathlib import Path

import pytest

from mneme_tui.memory.store import Store

# Run with exec() in the child so the worker does not depend on how pytest imported this module.
WORKER = textwrap.dedent(
    """
    from mneme_tui.memory.store import Store

    store = Store(path)
    start.wait(30)
    for i in range(count):
        store.save(f"{tag} memory {i}", repo_id=tag, task_id=f"{tag}-{i}")
        if i % 25 == 0:
            store.recall(f"{tag} memory", repo=tag, profile="spec")
    store.close()
    """
)


def _rows(path: Path) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT id, repo_id, content FROM memories ORDER BY id").fetchall()
    finally:
        connection.close()


@pytest.mark.parametrize("precreated", [True, False], ids=["existing-db", "fresh-db"])
def test_two_processes_save_100_each(tmp_path: Path, precreated: bool):
    path = tmp_path / "shared" / "mneme.db"
    if precreated:
        Store(path).close()
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    processes = [
        context.Process(target=exec, args=(WORKER, {"path": str(path), "tag": tag, "count": 100, "start": start}))
        for tag in ("alpha", "beta")
    ]
    for process in processes:
        process.start()
    start.set()
    for process in processes:
        process.join(60)
    assert [p.exitcode for p in processes] == [0, 0]
    rows = _rows(path)
    assert len(rows) == 200
    assert len({row[0] for row in rows}) == 200
    for tag in ("alpha", "beta"):
        assert sorted(row[2] for row in rows if row[1] == tag) == sorted(f"{tag} memory {i}" for i in range(100))
    store = Store(path)
    assert store.count() == 200
    assert len(store.recall("alpha memory", repo="alpha", limit=100, profile="spec")) == 100


def test_threads_share_one_store(store: Store):
    """The TUI's thread workers call the same Store: per-thread connections, no lost writes."""
    errors: list[BaseException] = []

    def work(tag: str) -> None:
        try:
            for i in range(40):
                store.save(f"{tag} thread memory {i}", repo_id=tag)
                store.recall(f"{tag} thread", repo=tag, profile="spec")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(tag,)) for tag in ("t1", "t2", "t3")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert store.count() == 120
    for tag in ("t1", "t2", "t3"):
        assert len(store.recall(f"{tag} thread memory", repo=tag, limit=100, profile="spec")) == 40
