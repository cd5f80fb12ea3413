"""A first catalogue built on two cores (``curation/feature_pool.py``) is the one a single process builds: the same
columns and the same proposals on a generated store read in many small batches; a worker that fails gives the
batch back to be computed here."""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from mneme_tui import config
from mneme_tui.bench.synthetic import generate
from mneme_tui.memory.curation import feature_pool
from mneme_tui.memory.curation.catalogue import Catalogue
from mneme_tui.memory.curation.proposals import open_proposals
from mneme_tui.memory.persistence import curation
from mneme_tui.memory.store import Store

from .test_fast_path import _copies

SIZE = 2_000


def _built(path: Path, monkeypatch: pytest.MonkeyPatch, parallel_rows: int) -> tuple[Catalogue, list]:
    """The catalogue and proposals of a new store over the database at ``path``, read 300 rows a batch, in two
    processes from ``parallel_rows`` memories."""
    with monkeypatch.context() as patched:
        patched.setattr(curation, "BATCH", 300)
        patched.setattr(feature_pool, "PARALLEL_ROWS", parallel_rows)
        store = Store(path)
        try:
            return store.catalogue, open_proposals(store, None)
        finally:
            store.close()


def test_two_processes_build_the_catalogue_one_process_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "cache"))  # no review cache: both build from nothing
    store = Store(tmp_path / "m.db")
    store.mint_ids(generate(SIZE, now=config.now()))
    store.mint_ids(_copies(config.now()))
    store.close()
    one, one_found = _built(tmp_path / "m.db", monkeypatch, parallel_rows=10**9)
    two, two_found = _built(tmp_path / "m.db", monkeypatch, parallel_rows=0)
    for column in fields(one.rows):
        assert np.array_equal(np.asarray(getattr(one.rows, column.name)), np.asarray(getattr(two.rows, column.name)))
    assert [p.to_json() for p in two_found] == [p.to_json() for p in one_found] and len(one_found) > 100


def _not_in_a_worker(batch: list[tuple]) -> int:
    if os.getpid() != PARENT:
        raise RuntimeError("the worker fails")
    return sum(batch[0])


PARENT = os.getpid()


def _pid(batch: list[tuple]) -> int:
    return os.getpid()


def test_the_worker_computes_the_first_batch_and_every_batch_comes_back() -> None:
    pids = list(feature_pool.in_order(iter([[(n,)] for n in range(8)]), _pid, parallel=True))
    assert len(pids) == 8 and pids[0] != PARENT  # the first batch always goes to the worker
    assert set(feature_pool.in_order(iter([[(n,)] for n in range(3)]), _pid, parallel=False)) == {PARENT}


def test_a_batch_the_worker_fails_is_computed_here() -> None:
    batches = [[(n, n)] for n in range(6)]
    assert list(feature_pool.in_order(iter(batches), _not_in_a_worker, parallel=True)) == [2 * n for n in range(6)]
