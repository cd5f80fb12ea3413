"""A write transaction that PostgreSQL aborts as a serialization failure (40001) or a deadlock (40P01) is run
again whole (issue 15), provoked for real on the throwaway server by a second connection that holds row locks
the way an outside client would (without mneme's advisory write lock)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg2
import pytest
from pg_server import PgDatabase, PgServer

from mneme_tui.errors import ERR_DATABASE, MnemeError
from mneme_tui.memory.persistence import postgres_dialect
from mneme_tui.memory.store import Store

WAIT_S = 30


@contextmanager
def _connection(database: PgDatabase, *, autocommit: bool = False) -> Iterator[Any]:
    connection = psycopg2.connect(dbname=database.name, **database.params)
    connection.autocommit = autocommit
    try:
        yield connection
    finally:
        connection.close()


def _in_thread(action: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = action()
        except BaseException as exc:  # handed to the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def _wait_for_lock_wait(database: PgDatabase) -> None:
    """Until some backend of ``database`` waits for a lock (the store's transaction is blocked)."""
    with _connection(database, autocommit=True) as watcher, watcher.cursor() as cursor:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
                (database.name,),
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError("the store's transaction never waited for the other connection's lock")


def _log_mentions(server: PgServer, text: str, since: int) -> bool:
    return text in server.log_file.read_text(encoding="utf-8", errors="replace")[since:]


def _log_size(server: PgServer) -> int:
    return len(server.log_file.read_text(encoding="utf-8", errors="replace"))


def _finish(thread: threading.Thread, outcome: dict[str, Any]) -> Any:
    thread.join(WAIT_S)
    assert not thread.is_alive(), "the store's write never finished"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def test_a_serialization_failure_reruns_the_whole_transaction(pg_server: PgServer, pg_database: PgDatabase):
    store = Store(pg_database.url)
    memory = store.save("dismissed while another client edits it")
    store.close()
    with _connection(pg_database, autocommit=True) as admin, admin.cursor() as cursor:  # a DBA's choice of isolation
        cursor.execute(f"ALTER DATABASE \"{pg_database.name}\" SET default_transaction_isolation = 'repeatable read'")
    writer = Store(pg_database.url)
    assert writer.db.execute_sql("SHOW transaction_isolation").fetchone()[0] == "repeatable read"
    log_at = _log_size(pg_server)
    with _connection(pg_database) as other, other.cursor() as cursor:
        cursor.execute("UPDATE memories SET topic = 'edited elsewhere' WHERE id = %s", (memory.id,))
        thread, outcome = _in_thread(lambda: writer.dismiss([memory.id]))
        _wait_for_lock_wait(pg_database)
        other.commit()  # the waiting transaction's snapshot is now stale: 40001, then a rerun
    change = _finish(thread, outcome)
    assert change.ids == [memory.id]
    assert _log_mentions(pg_server, "could not serialize access due to concurrent update", log_at)
    dismissed = writer.get(memory.id)
    assert (dismissed.status, dismissed.topic) == ("tombstoned", "edited elsewhere")
    assert [(entry.to_status, entry.actor) for entry in writer.history(memory.id)] == [("tombstoned", "tester@ci")]
    writer.close()


def test_a_deadlock_reruns_the_whole_transaction(pg_server: PgServer, pg_database: PgDatabase):
    store = Store(pg_database.url)
    first, second = (store.save(f"memory {n}") for n in (1, 2))
    log_at = _log_size(pg_server)
    with _connection(pg_database) as other, other.cursor() as cursor:
        cursor.execute("SET deadlock_timeout = '60s'")  # the store's backend finds the deadlock, so it is the victim
        cursor.execute("SET statement_timeout = '30s'")
        cursor.execute("UPDATE memories SET topic = 'other 2' WHERE id = %s", (second.id,))
        # the store's one UPDATE of both rows locks first (in id order), then waits for second; the other
        # connection then wants first: a cycle
        thread, outcome = _in_thread(lambda: store.dismiss([second.id, first.id]))
        _wait_for_lock_wait(pg_database)
        cursor.execute("UPDATE memories SET topic = 'other 1' WHERE id = %s", (first.id,))
        other.commit()
    change = _finish(thread, outcome)
    assert sorted(change.ids) == sorted([first.id, second.id])
    assert _log_mentions(pg_server, "deadlock detected", log_at)
    for memory, topic in ((first, "other 1"), (second, "other 2")):
        now = store.get(memory.id)
        assert (now.status, now.topic) == ("tombstoned", topic)
        assert [entry.to_status for entry in store.history(memory.id)] == ["tombstoned"]  # once, not per attempt
    store.close()


def test_a_transaction_that_keeps_conflicting_is_busy_after_the_last_attempt(pg_database: PgDatabase):
    store = Store(pg_database.url)
    attempts = []

    def always_conflicting() -> None:
        attempts.append(1)
        with store.write_transaction():
            store.db.execute_sql(
                "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = 'serialization_failure'; END $$"
            )

    with pytest.raises(MnemeError) as raised:
        postgres_dialect.retry_transaction(always_conflicting)
    assert raised.value.code == ERR_DATABASE and "is busy" in raised.value.message
    assert len(attempts) == postgres_dialect.TRANSACTION_ATTEMPTS
    attempts.clear()

    def broken() -> None:
        attempts.append(1)
        with store.write_transaction():
            store.db.execute_sql("SELECT * FROM no_such_table")

    with pytest.raises(MnemeError, match="no_such_table"):
        postgres_dialect.retry_transaction(broken)
    assert len(attempts) == 1  # only conflicts are worth a rerun
    assert store.save("the connection is fine afterwards").id == 1
    store.close()


def test_a_write_whose_connection_the_server_closed_runs_again_on_a_new_one(
    pg_server: PgServer, pg_database: PgDatabase
):
    """The server closes the connection (as a restart does) just before a write, inside the idle window in
    which the store does not probe it: the write fails before its COMMIT, so it provably did not commit, and
    runs again on a new connection; the memory is there once."""
    store = Store(pg_database.url)
    store.save("before")
    pg_server.terminate_connections(pg_database.name)
    saved = store.save("after the server closed the connection")
    assert [m.content for m in Store(pg_database.url).list(order="id")] == [
        "before",
        "after the server closed the connection",
    ]
    assert saved.id == 2
    store.close()


def test_nested_writes_take_the_write_lock_once_and_reach_the_commit_only_at_the_outermost_end(
    pg_database: PgDatabase, monkeypatch: pytest.MonkeyPatch
):
    """A write nested in another (a savepoint: peewee does not count it in ``transaction_depth``) neither asks
    for the lock the outer transaction holds again nor marks the commit as started before the outer one ends,
    so a connection lost after it still lets ``retry_transaction`` run the whole write again."""
    store = Store(pg_database.url)
    statements: list[str] = []
    execute = store.db.execute_sql

    def logged(sql: Any, params: Any = None, *rest: Any) -> Any:
        statements.append(sql.decode() if isinstance(sql, bytes) else str(sql))
        return execute(sql, params, *rest)

    monkeypatch.setattr(store.db, "execute_sql", logged)
    store.save("one memory, through a save's nested writes")
    assert sum("pg_advisory_xact_lock" in sql for sql in statements) == 1
    assert sum(sql.startswith("SAVEPOINT") for sql in statements) == 1  # the save nests once, not once per layer

    with postgres_dialect.write_transaction(store.db):
        with postgres_dialect.write_transaction(store.db):
            store.db.execute_sql("SELECT 1")
        assert postgres_dialect._commit.started is False
    assert postgres_dialect._commit.started is True
    assert [m.content for m in store.list(order="id")] == ["one memory, through a save's nested writes"]
    store.close()
