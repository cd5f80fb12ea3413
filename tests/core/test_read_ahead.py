"""read_ahead: the next batch is fetched by a helper thread, and however the caller stops, the helper ends.

(The index load through it, on both backends, is checked in ``test_core_mint_batches.py``.)"""

from __future__ import annotations

import sqlite3
import threading

import pytest

from mneme_tui.memory.persistence.read_ahead import read_ahead


def _helpers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "mneme-read-ahead"]


def _batches(rows: int, size: int):
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    connection.execute("CREATE TABLE t (n INTEGER)")
    connection.executemany("INSERT INTO t VALUES (?)", [(n,) for n in range(rows)])
    cursor = connection.execute("SELECT n FROM t ORDER BY n")
    return read_ahead(lambda: cursor.fetchmany(size), size)


def test_every_batch_comes_in_order_and_the_helper_ends():
    batches = list(_batches(1_003, 10))
    assert [len(batch) for batch in batches] == [10] * 100 + [3]
    assert [row[0] for batch in batches for row in batch] == list(range(1_003))
    assert not _helpers()


def test_one_short_batch_starts_no_thread():
    started = []
    batches = read_ahead(lambda: started.append(threading.current_thread()) or ([(1,)] if len(started) == 1 else []), 5)
    assert list(batches) == [[(1,)]]
    assert started == [threading.current_thread()]  # fetched once, in the caller's thread


def test_an_exact_multiple_ends_on_the_empty_batch():
    assert [len(batch) for batch in _batches(30, 10)] == [10, 10, 10]
    assert not _helpers()


def test_an_error_while_reading_ahead_is_raised_in_the_caller():
    calls = []

    def fetch():
        calls.append(threading.current_thread())
        if len(calls) == 3:
            raise sqlite3.DatabaseError("database disk image is malformed")
        return [(len(calls),)]

    got = []
    with pytest.raises(sqlite3.DatabaseError, match="malformed"):
        for batch in read_ahead(fetch, 1):
            got.extend(batch)
    assert got == [(1,), (2,)]
    assert calls[0] is threading.current_thread() and calls[2] is not threading.current_thread()
    assert not _helpers()


@pytest.mark.parametrize("taken", [1, 2, 5])
def test_a_caller_that_stops_early_stops_the_helper(taken: int):
    fetched = []

    def fetch():  # never runs out: only stopping ends it
        fetched.append(len(fetched))
        return [(len(fetched),)]

    batches = read_ahead(fetch, 1)
    got = [next(batches) for _ in range(taken)]
    batches.close()
    assert got == [[(n,)] for n in range(1, taken + 1)]
    assert not _helpers()
    after = len(fetched)
    assert after <= taken + 2  # one batch waiting to be handed over, at most one more being fetched
    assert len(fetched) == after  # nothing is fetched once it returned


def test_a_helper_that_dies_without_handing_over_is_an_error_not_a_hang(monkeypatch):
    """Should the helper end without handing over a batch or an error (killed by an error outside its own
    handling), the caller stops waiting and says so, instead of waiting for ever with the index locked."""
    from mneme_tui.memory.persistence import read_ahead as module

    monkeypatch.setattr(module, "_fetch_all", lambda fetch, handed, stop: None)
    batches = read_ahead(lambda: [(1,)], 1)
    assert next(batches) == [(1,)]  # the first batch is the caller's own
    with pytest.raises(RuntimeError, match="ended without its batches"):
        next(batches)
    assert not _helpers()
