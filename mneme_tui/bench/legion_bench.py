"""A quick speed check (not a test): how long importing a 10,000-row OUTCOMES.md takes.

Reports parsing it, its first sync into a fresh temporary store, a re-sync of the unchanged file and a
re-sync after every summary changed (the first run only: it is the slow one), the others the median of
``repeats`` runs (the machine's timing noise is large), plus the fastest first sync, the peak RSS of the
import process (the largest over the runs) and the longest time any write transaction of those syncs held
the store's write lock (the largest over the runs; the limit is about a second, so saves by other
processes never wait long).
Every run is a new process with a new store, as a ``mneme legion sync`` would be: nothing is warm.
Run ``python -m mneme_tui.bench.legion_bench``; the target is parsing and the first sync each under one second
(:func:`import_targets` states both for ``mneme bench``'s report).
"""

from __future__ import annotations

import multiprocessing
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from mneme_tui.legion.markdown.cells import join_row
from mneme_tui.legion.markdown.schemas import OUTCOMES
from mneme_tui.legion.markdown.storage import load_document

TARGET_SECONDS = 1.0
LOCK_HOLD_LIMIT_SECONDS = 1.0
BENCH_PROJECT = "bench"
T = TypeVar("T")


def synthetic_outcomes(rows: int) -> str:
    """An OUTCOMES.md with ``rows`` canonical rows (a few with pipes and backslashes in summaries)."""
    lines = [OUTCOMES.template]
    for n in range(1, rows + 1):
        summary = f"Plan {n % 97:02d} done | retried once \\ see log" if n % 10 == 0 else f"Plan {n} complete"
        values = [
            f"O-{n:03d}",
            f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}",
            "main",
            str(n % 9 + 1),
            f"{n % 9 + 1:02d}-01",
            f"agent-{n % 7}",
            ("frontend", "backend", "workflow")[n % 3],
            ("success", "partial", "failed")[n % 3],
            str(n % 5 + 1),
            "bench, synthetic",
            summary,
        ]
        lines.append(join_row(values) + "\n")
    return "".join(lines)


def bench_import(rows: int = 10_000, repeats: int = 3) -> dict[str, Any]:
    """Time parsing a ``rows``-row OUTCOMES.md, its first sync into a fresh store and an unchanged re-sync."""
    with tempfile.TemporaryDirectory() as folder:
        memory_dir = Path(folder) / ".planning" / "memory"
        memory_dir.mkdir(parents=True)
        path = memory_dir / OUTCOMES.file_name
        path.write_text(synthetic_outcomes(rows), encoding="utf-8")
        spawn = multiprocessing.get_context("spawn")
        runs = []
        for run in range(max(1, repeats)):
            with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as child:
                runs.append(child.submit(_timings, path, Path(folder) / f"m{run}.db", run == 0).result())
        size = path.stat().st_size
    records = runs[0][0]
    parse_seconds, first_sync, resync = (statistics.median(run[i] for run in runs) for i in (1, 2, 3))
    changed = runs[0][4]
    longest_hold = max(run[6] for run in runs)
    return {
        "rows": rows,
        "bytes": size,
        "records": records,
        "runs": len(runs),
        "parse_seconds": round(parse_seconds, 4),
        "first_sync_seconds": round(first_sync, 4),
        "first_sync_fastest_seconds": round(min(run[2] for run in runs), 4),
        "resync_seconds": round(resync, 4),
        "changed_resync_seconds": round(changed, 4),
        "peak_rss_mb": round(max(run[5] for run in runs) / 1024.0, 1),
        "longest_write_hold_seconds": round(longest_hold, 4),
        "target_seconds": TARGET_SECONDS,
        "within_target": parse_seconds < TARGET_SECONDS and first_sync < TARGET_SECONDS,
        "hold_limit_seconds": LOCK_HOLD_LIMIT_SECONDS,
        "within_hold_limit": longest_hold <= LOCK_HOLD_LIMIT_SECONDS,
    }


def _timed(function: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, float]:
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - started


def changed_summaries(text: str) -> str:
    """``text`` (from :func:`synthetic_outcomes`) with every summary changed."""
    return text.replace(" complete |", " completed, then changed |").replace(" see log |", " see the log |")


def _timings(path: Path, db_path: Path, changed_run: bool) -> tuple[int, float, float, float, float, int, float]:
    """In a fresh process: records parsed, seconds to parse, to sync into a new store, to re-sync, to re-sync
    after every summary changed (0 unless ``changed_run``), the process's peak RSS (KiB) and the longest
    write-lock hold (s)."""
    from mneme_tui.legion.mirror.sync import sync  # the store stack is only needed here
    from mneme_tui.memory.store import Store

    document, parse_seconds = _timed(load_document, path)
    store = Store(db_path)
    original = path.read_text(encoding="utf-8")
    try:
        first_report, first = _timed(sync, store, path.parent, repo=BENCH_PROJECT)
        _, again = _timed(sync, store, path.parent, repo=BENCH_PROJECT)
        longest, changed = first_report.longest_write_seconds, 0.0
        if changed_run:
            path.write_text(changed_summaries(original), encoding="utf-8")
            changed_report, changed = _timed(sync, store, path.parent, repo=BENCH_PROJECT)
            longest = max(longest, changed_report.longest_write_seconds)
    finally:
        path.write_text(original, encoding="utf-8")  # the next run starts from the same file
        store.close()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return len(document.records), parse_seconds, first, again, changed, peak_kib, longest


def import_targets(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """The targets of :func:`bench_import`'s ``figures``: parse and first sync, and the longest write-lock hold."""
    return [
        {
            "target": f"Legion: parse + first sync of a {figures['rows']:,}-row OUTCOMES.md, median of"
            f" {figures['runs']} (s)",
            "value": max(figures["parse_seconds"], figures["first_sync_seconds"]),
            "goal": f"< {figures['target_seconds']:g}",
            "met": figures["within_target"],
        },
        {
            "target": "Legion: longest write-lock hold of those syncs and a re-sync of every changed row (s)",
            "value": figures["longest_write_hold_seconds"],
            "goal": f"<= {figures['hold_limit_seconds']:g}",
            "met": figures["within_hold_limit"],
        },
    ]


if __name__ == "__main__":  # pragma: no cover
    print(bench_import())
