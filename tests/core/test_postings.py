"""Postings built a block of rows at a time (``memory/postings.py``) equal one stable sort of every entry."""

from __future__ import annotations

import numpy as np
import pytest

from mneme_tui.memory import postings


@pytest.mark.parametrize("block", [1, 3, 17, 1 << 21])
def test_block_postings_equal_one_stable_sort(monkeypatch, block):
    monkeypatch.setattr(postings, "BLOCK_ENTRIES", block)
    rng = np.random.default_rng(block)
    for _ in range(20):
        vocab_size = int(rng.integers(1, 40))
        lengths = np.minimum(rng.integers(0, 7, int(rng.integers(0, 200))), vocab_size).astype(np.int64)
        rows_ids = [np.sort(rng.choice(vocab_size, size=int(n), replace=False)) for n in lengths]
        ids = np.concatenate([np.zeros(0, np.int32), *rows_ids]).astype(np.int32)
        tf = rng.random(ids.size).astype(np.float32)
        rows, starts, (moved_tf,) = postings.build_postings(ids, lengths, vocab_size, tf)
        order = np.argsort(ids, kind="stable")
        owners = np.repeat(np.arange(lengths.size, dtype=np.int32), lengths)
        assert rows.dtype == np.int32 and np.array_equal(rows, owners[order])
        assert np.array_equal(moved_tf, tf[order])
        assert np.array_equal(starts, np.concatenate([[0], np.cumsum(np.bincount(ids, minlength=vocab_size))]))


@pytest.mark.parametrize("top", [0, 1, 65_535, 65_536, 1_100_000, 2**31 - 1])
def test_the_radix_order_is_the_stable_argsort(top):
    rng = np.random.default_rng(top)
    for size in (0, 1, 2, 1_000, 50_000):
        for dtype in (np.int32, np.int64):
            ids = rng.integers(0, top + 1, size).astype(dtype)
            assert np.array_equal(postings.stable_order(ids), np.argsort(ids, kind="stable"))
