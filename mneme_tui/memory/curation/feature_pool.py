"""The first catalogue of a large store computed on two cores.

A first review reads every memory and computes its features (``catalogue.features``), a batch at a time; at a
million memories that is most of the review. Those features are pure functions of a batch's rows, so a second
process can compute most batches while this one reads the rows and computes the others: ``in_order`` hands a
batch to a forked worker while it has fewer than ``QUEUED`` to do, computes it here otherwise, and gives the
results back in the batches' order, so the catalogue is the one a single process builds. The worker is forked
only where that is safe (a platform with ``fork``, and no other thread in this process that could hold a lock
the child would need); else, or when the worker cannot start or fails, every batch is computed here, as before."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # the pool only when a large first build asks for it (a cold recall loads no subprocess)
    from concurrent.futures import Future, ProcessPoolExecutor

R = TypeVar("R")
PARALLEL_ROWS = 200_000
"""A store with fewer memories builds its catalogue in one process (a worker would save under a second)."""
QUEUED = 2
"""Batches the worker may have to do: it starts the next as soon as it ends one, so it takes about two of every
three while this process also reads the rows and appends them."""
IN_FLIGHT = 3
"""Batches read ahead of the one the caller waits for (bounded memory: the worker may fall behind)."""


def in_order(batches: Iterable[list[tuple]], compute: Callable[[list[tuple]], R], parallel: bool) -> Iterator[R]:
    """``compute`` of each batch, in the batches' order; with ``parallel`` (and a worker that could start) a
    forked worker computes most of them, this process the ones the worker has no room for."""
    pool = _worker() if parallel else None
    pending: deque[tuple[list[tuple], Future[R] | None, Any]] = deque()
    try:
        for batch in batches:
            future = _submitted(pool, pending, compute, batch)
            pending.append((batch, future, None if future is not None else compute(batch)))
            while pending and (pending[0][1] is None or pending[0][1].done() or len(pending) >= IN_FLIGHT):
                yield _result(pending.popleft(), compute)
        while pending:
            yield _result(pending.popleft(), compute)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _submitted(
    pool: ProcessPoolExecutor | None, pending: deque, compute: Callable[[list[tuple]], R], batch: list[tuple]
) -> Future[R] | None:
    """``batch`` handed to the worker unless it has ``QUEUED`` batches to do (None: this process computes it, or
    there is no working worker)."""
    if pool is None or sum(future is not None and not future.done() for _, future, _ in pending) >= QUEUED:
        return None
    try:
        return pool.submit(compute, batch)
    except Exception:  # the worker died (a broken pool takes no more work): the rest is computed here
        return None


def _result(item: tuple[list[tuple], Future[R] | None, Any], compute: Callable[[list[tuple]], R]) -> R:
    """What was computed for one batch: here, by the worker, or (the worker failed) here after all."""
    batch, future, value = item
    if future is None:
        return value
    try:
        return future.result()
    except Exception:  # a worker that died or could not take the batch: the same work, here
        return compute(batch)


def _worker() -> ProcessPoolExecutor | None:
    """One forked worker process, or None where forking is not safe (no ``fork``, or other threads running)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return None
    try:
        return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
    except (OSError, ValueError):
        return None
