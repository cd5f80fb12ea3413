"""``Store.mint_many`` takes any iterable (a generator of a million items is never held whole) and inserts it
a batch at a time inside one transaction: all or nothing across batches."""

from __future__ import annotations

import pytest
from provenances import SYNCED

from mneme_tui import config
from mneme_tui.bench.synthetic import generate
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError


def _items(count: int, bad_at: int | None = None):
    for number in range(count):
        content = "" if number == bad_at else f"batched row {number}"
        yield {"content": content, "kind": "reflection", "provenance": SYNCED, "repo_id": "nomos"}


def test_a_generator_is_minted_in_batches_in_order(store):
    store.MINT_BATCH = 3
    minted = store.mint_many(_items(10))
    assert [m.content for m in minted] == [f"batched row {n}" for n in range(10)]
    assert [m.id for m in minted] == sorted(m.id for m in minted)
    assert [store.get(m.id).content for m in minted] == [m.content for m in minted]


def test_a_bad_item_in_a_later_batch_writes_nothing(store):
    store.MINT_BATCH = 3
    with pytest.raises(MnemeError) as raised:
        store.mint_many(_items(10, bad_at=8))
    assert raised.value.code == ERR_VALIDATION_FAILED
    assert store.list(status="all", repo_id=None, limit=50) == []


def test_synthetic_memories_are_made_one_at_a_time(store):
    made = generate(25, now=config.now())
    assert next(made)["content"].endswith("(ref 0)")  # a generator, not a list
    assert len(store.mint_many(made)) == 24


def test_a_cold_load_in_batches_gives_the_index_of_one_read(store, db_target, monkeypatch):
    """Both backends read a cold load a batch at a time (PostgreSQL: each batch with its slice of the one
    binary COPY of the embeddings, all in one read-only snapshot); the index is the same as one whole read."""
    from mneme_tui.memory.persistence import memories
    from mneme_tui.memory.store import Store

    store.mint_many(_items(23))
    store.dismiss([4])
    whole = Store(db_target)
    whole.refresh_index()
    monkeypatch.setattr(memories, "LOAD_BATCH", 5)
    batched = Store(db_target)
    batched.refresh_index()
    for name in ("ids", "vectors", "repo_codes", "kind_codes", "status_codes", "created_days", "access"):
        assert (getattr(batched.index, name) == getattr(whole.index, name)).all(), name
    assert [r.memory.id for r in batched.recall("batched row 7", repo="nomos", cross_repo=True, limit=23)] == [
        r.memory.id for r in whole.recall("batched row 7", repo="nomos", cross_repo=True, limit=23)
    ]
    for opened in (whole, batched):
        opened.close()
