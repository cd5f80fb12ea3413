"""Holding Python's cyclic garbage collector off while a bulk build makes many short-lived objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector off inside the block (as it was after it).

    A bulk build (a Legion sync, the review catalogue of a large store) makes objects that form no reference
    cycles (reference counting frees them), so the collections their allocations trigger only walk everything
    that lives on: at a million memories the review catalogue's lists, walked again and again.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
