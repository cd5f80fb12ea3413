"""Two processes writing to one database at once lose nothing (WAL + busy timeout + BEGIN IMMEDIATE); threads
sharing one Store (the TUI's workers) never see its in-memory index half refreshed."""

from __future__ import annotations

import multiprocessing
import sqlite3
import textwrap
import threading
from pathlib import Path

import pytest

from mneme_tui.memory import index_snapshot
from mneme_tui.memory.records import SAVE, Provenance
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


def _seed(path: Path, rows: int) -> None:
    """``rows`` memories in one transaction, so a cold index has real work to do when it loads them."""
    store = Store(path)
    store.mint_many(
        [
            dict(
                content=f"seed memory {i} about topic {i % 50} and word{i}",
                kind="reflection",
                repo_id="seed",
                provenance=Provenance(SAVE, ""),
            )
            for i in range(rows)
        ]
    )
    store.close()


def test_threads_racing_a_cold_index(tmp_path: Path):
    """8 threads x 60 saves and recalls on a cold Store, three times over: the first refresh reloads the whole
    index while the other threads wait on its lock. (The reload used to replace the lock it was holding, so
    threads arriving meanwhile ranked or refreshed a half-built index: broadcast and index errors.)"""
    path = tmp_path / "mneme.db"
    _seed(path, 3_000)
    threads, ops = 8, 60
    for round_ in range(3):
        store = Store(path)
        errors: list[BaseException] = []
        start = threading.Barrier(threads)

        def work(tag: str, offset: int) -> None:
            try:
                start.wait(30)
                for i in range(ops):
                    if (i + offset) % 2:
                        store.recall(f"{tag} thread memory", repo=tag)
                    else:
                        store.save(f"{tag} thread memory {i}", repo_id=tag)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        workers = [threading.Thread(target=work, args=(f"r{round_}t{k}", k)) for k in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(120)
        assert errors == []
        for k in range(threads):
            tag = f"r{round_}t{k}"
            assert len(store.recall(f"{tag} thread memory", repo=tag, limit=100)) == ops // 2
        store.close()
    assert Store(path).count() == 3_000 + 3 * threads * ops // 2


def test_index_lock_survives_cold_loads(tmp_path: Path):
    """Threads wait on ``store.index.lock`` while one of them loads the index: a cold start from a snapshot and
    a full reload must keep that lock, or a later thread takes a new one and reads the index mid-refresh."""
    path = tmp_path / "mneme.db"
    _seed(path, index_snapshot.MIN_ROWS)
    warm = Store(path)
    warm.refresh_index()  # writes the snapshot
    warm.close()
    assert index_snapshot.snapshot_path(path).is_file()
    store = Store(path)
    lock = store.index.lock
    store.refresh_index()  # from the snapshot
    assert store.index.size == index_snapshot.MIN_ROWS
    assert store.index.lock is lock
    store.index.seq = -1  # forces the full reload path of MemoryIndex.refresh
    store.index.refresh(store.db)
    assert store.index.lock is lock
