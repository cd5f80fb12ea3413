"""A recall reads its results' rows and the database's revision in one statement, and ranks again when another
client wrote since the index was refreshed: never a stale answer, one round trip when nothing changed."""

from __future__ import annotations

from mneme_tui.memory.store import Store


def _statements(store: Store, monkeypatch) -> list[str]:
    """The SQL the store runs from now on (both backends go through ``execute_sql``)."""
    ran: list[str] = []
    execute = store.db.execute_sql

    def recorded(sql, params=None, *args, **kwargs):
        ran.append(sql)
        return execute(sql, params, *args, **kwargs)

    monkeypatch.setattr(store.db, "execute_sql", recorded)
    return ran


def _ids(results) -> list[int]:
    return [result.memory.id for result in results]


def test_a_warm_recall_on_a_current_index_runs_one_statement(store: Store, monkeypatch):
    first = store.save("retry the flaky upload with backoff", repo_id="app").id
    store.save("the cache is warmed at start", repo_id="app")
    assert _ids(store.recall("flaky upload", repo="app")) == [first]  # loads the index
    ran = _statements(store, monkeypatch)
    assert _ids(store.recall("flaky upload", repo="app")) == [first]
    assert len(ran) == 1 and "memory_revision" in ran[0] and "WHERE m.id IN" in ran[0]


def test_a_save_by_another_client_is_in_the_next_recall(store: Store, db_target, monkeypatch):
    first = store.save("retry the flaky upload with backoff", repo_id="app").id
    assert _ids(store.recall("flaky upload", repo="app")) == [first]
    other = Store(db_target)
    second = other.save("the flaky upload again: retry it with a longer backoff", repo_id="app").id
    ran = _statements(store, monkeypatch)
    assert set(_ids(store.recall("flaky upload", repo="app"))) == {first, second}  # ranked again
    assert len(ran) > 1  # the revision had moved: the index was refreshed before the answer
    other.close()


def test_a_recall_that_found_nothing_still_sees_a_new_match(store: Store, db_target):
    store.save("the cache is warmed at start", repo_id="app")
    assert store.recall("zebra lantern", repo="app") == []
    other = Store(db_target)
    new = other.save("a zebra lantern in the hallway", repo_id="app").id
    assert _ids(store.recall("zebra lantern", repo="app")) == [new]
    other.close()


def test_a_row_another_client_dismissed_is_not_returned(store: Store, db_target):
    kept = store.save("retry the flaky upload with backoff", repo_id="app").id
    dropped = store.save("the flaky upload: retry it twice", repo_id="app").id
    assert set(_ids(store.recall("flaky upload", repo="app"))) == {kept, dropped}
    other = Store(db_target)
    other.dismiss([dropped])  # no new id: only the update sequence moves
    assert _ids(store.recall("flaky upload", repo="app")) == [kept]
    other.close()


def test_an_edit_by_another_client_is_what_the_recall_returns(store: Store, db_target):
    memory = store.save("retry the flaky upload with backoff", repo_id="app")
    assert _ids(store.recall("flaky upload", repo="app")) == [memory.id]
    other = Store(db_target)
    other.update_content(memory.id, content="retry the flaky upload with a jittered backoff")
    [result] = store.recall("flaky upload", repo="app")
    assert result.memory.content == "retry the flaky upload with a jittered backoff"
    other.close()


def test_a_store_whose_index_was_replaced_meanwhile_ranks_again(store: Store, monkeypatch):
    """Between the rank and the read of its rows the store may start a new index (its file was replaced by
    another database): an equal revision of the new file must not make the old ranking the answer."""
    first = store.save("retry the flaky upload with backoff", repo_id="app").id
    assert _ids(store.recall("flaky upload", repo="app")) == [first]
    read = store.memories.get_many_at_revision
    replaced = []

    def replacing(ids):
        store._start_index()  # as _check_open does when the path names another file now
        replaced.append(store.index)
        return read(ids)

    monkeypatch.setattr(store.memories, "get_many_at_revision", replacing)
    assert _ids(store.recall("flaky upload", repo="app")) == [first]
    assert replaced and store.index is replaced[0] and store.index.seq >= 0  # ranked again on the new index
