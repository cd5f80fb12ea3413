"""``Store.mint_many`` takes any iterable (a generator of a million items is never held whole) and inserts it
a batch at a time inside one transaction: all or nothing across batches."""

from __future__ import annotations

import pytest
from provenances import SYNCED

from mneme_tui import config
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.synthetic import generate


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
