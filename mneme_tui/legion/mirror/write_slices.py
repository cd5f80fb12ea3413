"""A long run of database writes as a chain of short write transactions (Legion sync's import).

A sync that changes 40,000 records inside one transaction holds the store's write lock for seconds,
and every ``mneme save`` meanwhile waits and may fail ``database is locked``. ``WriteSlices`` keeps one
write transaction open and, at each :meth:`WriteSlices.boundary` the caller marks (a point where the
work done so far is whole: a record's memory and its companion row written together), commits it and
opens the next once the lock has been held for ``MAX_HOLD_SECONDS``, after a pause of ``GAP_SECONDS``: SQLite
has no queue of waiting writers (each sleeps and retries, up to 100 ms apart), so a lock released for
only a moment would be taken straight back and a waiting ``save`` would starve until its busy timeout.
The pause lets every waiting writer in.

Work that needs no database (making the next batch of rows) can run in that pause instead of a sleep
(:meth:`WriteSlices.pause`), so the pause costs no time. The longest hold is kept for the bench.
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
        self._started = 0.0
        self._last_pause = 0.0

    def _open(self) -> None:
        stack = ExitStack()
        stack.enter_context(self.store.write_transaction())
        self._stack = stack
        self._started = self._last_pause = time.perf_counter()

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
                self.longest = max(self.longest, time.perf_counter() - self._started)

    def boundary(self) -> None:
        """The work so far is whole: commit it and pause if the lock has been held long enough."""
        if time.perf_counter() - self._started >= self.max_hold:
            self._close()
            time.sleep(GAP_SECONDS)
            self._open()

    @contextmanager
    def pause(self) -> Iterator[None]:
        """A :meth:`boundary` whose pause runs the block, which must not use the database (it makes the next
        rows). The pause is taken when the lock, held on for as long again as since the last ``pause``, would
        pass the limit: the block's time counts towards ``GAP_SECONDS``; otherwise the block runs in the lock."""
        now = time.perf_counter()
        step, self._last_pause = now - self._last_pause, now
        if now - self._started + step < self.max_hold:
            yield
            return
        self._close()
        released = time.perf_counter()
        yield
        rest = GAP_SECONDS - (time.perf_counter() - released)
        if rest > 0:
            time.sleep(rest)
        self._open()

    def __enter__(self) -> WriteSlices:
        self._open()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._close(exc_type, exc, tb)
