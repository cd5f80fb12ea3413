"""A long run of database writes as a chain of short write transactions (Legion sync's import).

A sync that changes 40,000 records inside one transaction holds the store's write lock for seconds,
and every ``mneme save`` meanwhile waits and may fail ``database is locked``. ``WriteSlices`` keeps one
write transaction open and, at each :meth:`WriteSlices.boundary` the caller marks (a point where the
work done so far is whole: a record's memory and its companion row written together), commits it and
opens the next once the lock has been held for ``MAX_HOLD_SECONDS``, after a pause of ``GAP_SECONDS``: SQLite
has no queue of waiting writers (each sleeps and retries, up to 100 ms apart), so a lock released for
only a moment would be taken straight back and a waiting ``save`` would starve until its busy timeout.
The pause lets every waiting writer in.

Work that needs no database (making the next batch of rows) runs in :meth:`WriteSlices.pause`, with the lock
released: a pause of at least ``GAP_SECONDS`` lets every waiting writer in, so the next slice starts afresh;
after a shorter one the lock counts as held throughout, so the limit still holds. The longest hold (the
longest time between two full pauses, short releases included) is kept for the bench.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from types import TracebackType

from mneme_tui.memory.store import Store

MAX_HOLD_SECONDS = 0.5
"""How long the write lock may be held before the next boundary commits it and pauses (the limit is ~1 s)."""
GAP_SECONDS = 0.1
"""The pause between two slices: longer than SQLite's longest sleep between a waiting writer's tries."""


class WriteSlices:
    """``with WriteSlices(store) as slices: ... slices.boundary() ...``: bounded write transactions."""

    def __init__(self, store: Store, max_hold: float = MAX_HOLD_SECONDS) -> None:
        self.store = store
        self.max_hold = max_hold
        self.longest = 0.0
        self._stack: ExitStack | None = None
        self._held_since = 0.0
        """When the lock was taken after the last full pause."""
        self._opened = 0.0
        self._last = 0.0
        """How long the last transaction lasted (the next one is expected to last as long)."""

    def _open(self) -> None:
        stack = ExitStack()
        stack.enter_context(self.store.write_transaction())
        self._stack, self._opened = stack, time.perf_counter()

    def _close(
        self,
        exc_type: type[BaseException] | None = None,
        exc: BaseException | None = None,
        tb: TracebackType | None = None,
    ) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            try:
                stack.__exit__(exc_type, exc, tb)  # commit, or roll back on an exception
            finally:
                self._last = time.perf_counter() - self._opened
                self.longest = max(self.longest, self._held())

    def _held(self) -> float:
        return time.perf_counter() - self._held_since

    def boundary(self) -> None:
        """The work so far is whole: commit it and pause if the lock has been held long enough."""
        if self._held() >= self.max_hold:
            self._close()
            time.sleep(GAP_SECONDS)
            self._restart()

    @contextmanager
    def pause(self) -> Iterator[None]:
        """The work so far is whole: commit it and run the block, which must not use the database, without the
        lock. A block shorter than ``GAP_SECONDS`` is stretched to it when the lock, held as long again as the
        last transaction, would be held too long."""
        self._close()
        released = time.perf_counter()
        yield
        rest = GAP_SECONDS - (time.perf_counter() - released)
        if rest > 0 and self._held() + self._last < self.max_hold:
            self._open()  # a short release: the lock counts as held all along
            return
        if rest > 0:
            time.sleep(rest)
        self._restart()

    def _restart(self) -> None:
        """Take the lock after a full pause."""
        self._held_since = time.perf_counter()
        self._open()

    def __enter__(self) -> WriteSlices:
        self._restart()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._close(exc_type, exc, tb)
