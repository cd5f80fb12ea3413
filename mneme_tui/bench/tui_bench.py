"""A Pilot-driven speed check of the TUI at 100,000 memories (``bench_tui``), for ``mneme bench``.

Measures, on a generated store in a temporary folder (never the user's database), headless:
- ``start_to_first_results_ms``: app start until the Recall list shows its first rows (target ≤ 1 s);
- ``keystroke_to_results_ms``: one key typed in the query until the results of the new query are
  shown, p50/p95 over a series of keystrokes (target p95 ≤ 100 ms);
- ``open_memories_ms``: the Memories key until its first page is shown (target ≤ 300 ms);
- ``dismiss_visible_ms``: ``d`` on a row until the row shows the new status (target ≤ 50 ms).

Keys are delivered to the app the way a terminal delivers them (through the driver), without the
Pilot's idle waits; each time is taken once the screen state shows the result *and* the screen has
been repainted after it.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

TARGETS_MS = {
    "start_to_first_results_ms": 1000.0,
    "keystroke_to_results_p95_ms": 100.0,
    "open_memories_ms": 300.0,
    "dismiss_visible_ms": 50.0,
}
QUERIES = ("sqlite lock timeout", "worker thread cancel", "migration staging", "cache token")
BENCH_NOW = datetime(2026, 3, 1, 12, 0, 0)


def build_store(folder: Path, size: int, now: datetime = BENCH_NOW) -> Path:
    """A store of ``size`` generated memories (the demo's generator, in chunks)."""
    from mneme_tui.demo import memory_items
    from mneme_tui.memory.store import Store

    path = folder / "bench.db"
    store = Store(path)
    try:
        items = memory_items(size, now, seed=11)
        for start in range(0, len(items), 10_000):
            store.mint_many(items[start : start + 10_000])
    finally:
        store.close()
    return path


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


async def _until(condition: Callable[[], bool], timeout: float = 30.0, step: float = 0.001) -> float:
    """Wait until ``condition()`` holds; returns the perf_counter time at which it was seen."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the TUI did not reach the expected state in time")
        await asyncio.sleep(step)
    return time.perf_counter()


async def _painted(app, condition: Callable[[], bool], timeout: float = 30.0) -> float:
    """Wait until ``condition()`` holds and the screen has been repainted after it; returns that time."""
    await _until(condition, timeout)
    done = asyncio.Event()
    stamp: list[float] = []

    def after_refresh() -> None:
        stamp.append(time.perf_counter())
        done.set()

    app.call_after_refresh(after_refresh)
    await asyncio.wait_for(done.wait(), timeout)
    return stamp[0]


def _send_key(app, key: str, char: str | None = None) -> None:
    from textual import events

    event = events.Key(key, char)
    event.set_sender(app)
    app.post_message(event)  # into the app's queue, as a key from the terminal arrives


async def _run(db_path: Path, size: int, repo: str, queries: tuple[str, ...] = QUERIES, dismissals: int = 5) -> dict:
    from mneme_tui.memory.store import Store
    from mneme_tui.tui.app import MnemeApp
    from mneme_tui.tui.context import AppContext

    store = Store(db_path)
    result: dict = {"size": size}
    try:
        app = MnemeApp(AppContext(store=store, repo=repo), poll_interval=1.0, cursor_blink=False)
        started = time.perf_counter()
        async with app.run_test(size=(120, 40)) as pilot:
            shown = await _painted(app, lambda: _recall_rows(app) > 0)
            result["start_to_first_results_ms"] = (shown - started) * 1000
            warm_started = time.perf_counter()
            await _until(lambda: app.db_revision is not None, timeout=120)
            result["index_warm_ms"] = (time.perf_counter() - warm_started) * 1000
            await _idle(app)  # the other screens are built in the background once the index is warm
            result.update(await _measure_keystrokes(app, pilot, queries))
            result.update(await _measure_open_memories(app))
            result.update(await _measure_dismissals(app, dismissals))
    finally:
        store.close()
    result["targets_ms"] = dict(TARGETS_MS)
    result["ok"] = all(result[name] <= limit for name, limit in TARGETS_MS.items())
    return {name: (round(value, 1) if isinstance(value, float) else value) for name, value in result.items()}


async def _measure_keystrokes(app, pilot, queries: tuple[str, ...]) -> dict:
    """Each query typed into Recall key by key: key to results shown, and the Store's own recall time."""
    from textual.widgets import Input

    from mneme_tui.tui.screens.recall import RecallScreen

    screen = app.screen
    assert isinstance(screen, RecallScreen)
    latencies = []
    store_times = []
    for query in queries:
        for char in query:
            before = screen.generation
            sent = time.perf_counter()
            _send_key(app, "space" if char == " " else char, char)

            def results_shown(before: int = before) -> bool:  # bound now: this keystroke's generation
                return screen.generation > before and screen.shown_generation == screen.generation

            done = await _painted(app, results_shown)
            latencies.append((done - sent) * 1000)
            assert screen.last_result is not None
            store_times.append(screen.last_result.seconds * 1000)
            await asyncio.sleep(0.1)  # a fast typist: ~10 keys per second (120 wpm)
        screen.query_one("#query", Input).value = ""
        await pilot.pause(0.2)
    return {
        "keystroke_to_results_p50_ms": statistics.median(latencies),
        "keystroke_to_results_p95_ms": percentile(latencies, 0.95),
        "keystrokes": len(latencies),
        # how much of it is Store.recall itself (measured in the worker), to tell UI from ranking cost
        "recall_in_store_p50_ms": statistics.median(store_times),
        "recall_in_store_p95_ms": percentile(store_times, 0.95),
    }


async def _measure_open_memories(app) -> dict:
    """Escape out of the query, then the Memories key until its first page is shown."""
    from mneme_tui.tui.screens.memories import MemoriesScreen
    from mneme_tui.tui.widgets.paged_table import PagedTable

    _send_key(app, "escape")
    await _idle(app)
    sent = time.perf_counter()
    _send_key(app, "2", "2")
    done = await _painted(
        app,
        lambda: (
            isinstance(app.screen, MemoriesScreen)
            and app.screen.page is not None
            and app.screen.query_one("#memories-table", PagedTable).row_count > 0
        ),
    )
    return {"open_memories_ms": (done - sent) * 1000}


async def _measure_dismissals(app, dismissals: int) -> dict:
    """``d`` on the Memories cursor row, ``dismissals`` times: the key until the row shows its new status."""
    from mneme_tui.tui.widgets.paged_table import PagedTable

    table = app.screen.query_one("#memories-table", PagedTable)
    dismiss_times = []
    for _ in range(dismissals):
        key = table.cursor_key
        sent = time.perf_counter()
        _send_key(app, "d", "d")

        def dismissed(key: str | None = key) -> bool:  # bound now: this dismissal's row
            return (key in table.row_keys and table.get_row(key)[1].plain == "tombstoned") or (
                key not in table.row_keys
            )

        done = await _painted(app, dismissed)
        dismiss_times.append((done - sent) * 1000)
        await _idle(app)
    return {"dismiss_visible_ms": statistics.median(dismiss_times), "dismiss_visible_max_ms": max(dismiss_times)}


async def _idle(app, settle: float = 0.3) -> None:
    """Wait until no worker runs (reloads after a write, the watcher) and the UI has settled."""
    await _until(lambda: not any(w.is_running for w in app.workers), timeout=60)
    await asyncio.sleep(settle)
    await _until(lambda: not any(w.is_running for w in app.workers), timeout=60)


def _recall_rows(app) -> int:
    from mneme_tui.tui.screens.recall import RecallScreen
    from mneme_tui.tui.widgets.results_table import ResultsTable

    screen = app.screen
    if not isinstance(screen, RecallScreen) or screen.last_result is None:
        return 0
    return screen.query_one("#results", ResultsTable).row_count


def bench_tui(
    size: int = 100_000, *, folder: Path | None = None, queries: tuple[str, ...] = QUERIES, dismissals: int = 5
) -> dict:
    """Generate ``size`` memories in a temp folder, drive the TUI headless, return the timings (ms)."""
    from mneme_tui.demo import DEMO_REPO

    previous = os.environ.get("MNEME_NOW")
    os.environ["MNEME_NOW"] = BENCH_NOW.isoformat()
    try:
        with tempfile.TemporaryDirectory(prefix="mneme-tui-bench-") as temp:
            base = Path(folder) if folder is not None else Path(temp)
            generated = time.perf_counter()
            db_path = build_store(base, size)
            build_ms = (time.perf_counter() - generated) * 1000
            result = asyncio.run(_run(db_path, size, DEMO_REPO, queries, dismissals))
            result["build_store_ms"] = round(build_ms, 1)
            return result
    finally:
        if previous is None:
            os.environ.pop("MNEME_NOW", None)
        else:
            os.environ["MNEME_NOW"] = previous


if __name__ == "__main__":  # python -m mneme_tui.bench.tui_bench [size]
    import json
    import sys

    print(json.dumps(bench_tui(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000), indent=2))
