"""``mneme bench --db postgresql://…``: the bench's store measured on a PostgreSQL server.

For each size, the SQLite store the bench just built and measured is copied into a scratch schema of the
named database (``persistence/pg_scratch``: created for that size, dropped after it), and a child process
reports: the ``db copy`` time, the index load (binary ``COPY``), cold ``mneme recall`` as a new client with
an empty cache folder (it builds the snapshot) and then with that snapshot, warm recall p50/p95 per profile, saves per
second from one writer and from ``WRITERS`` writer processes at once, the time a save by one client takes to
reach another client's warm recall, and its peak RSS. A database whose own schema already holds memories is
refused before anything is written; the user's tables are never touched.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mneme_tui import config
from mneme_tui.bench.measures import (
    cold_runs,
    concurrent_saves,
    in_child,
    measure_recall,
    measure_saves,
    ms,
    peak_rss_mb,
    timed,
    write_to_visible,
)
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError

WRITERS = 8
SAVES_PER_WRITER = 50


def refuse_non_empty(url: str) -> None:
    """ERR_VALIDATION_FAILED when the database at ``url`` already holds memories (checked read-only)."""
    from mneme_tui.memory.persistence import pg_scratch

    count = pg_scratch.memory_count(url)
    if count:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"{config.redacted_url(url)} already holds memories ({count:,}): "
            "bench needs a database without memories (it works in a schema of its own and drops it)",
        )


def run_size(url: str, size: int, workdir: str) -> dict[str, Any]:
    """Copy the bench's SQLite store of ``size`` (``workdir/bench.db``) into a scratch schema of ``url`` and
    measure it there, in a child process; the schema is dropped afterwards, whatever happens."""
    from mneme_tui.memory.persistence import pg_scratch

    with pg_scratch.scratch_schema(url) as scratch_url:
        return in_child(bench_size, size, workdir, scratch_url)


def bench_size(size: int, workdir: str, url: str) -> dict[str, Any]:
    """The PostgreSQL figures for one size (run in a child; ``url`` names an empty scratch schema)."""
    from mneme_tui.memory.store import Store

    os.environ["MNEME_CACHE_DIR"] = str(Path(workdir) / "cache")
    source = Store(Path(workdir) / "bench.db")
    store = Store(url)
    copy_s, copied = timed(source.copy_into, store)
    source.close()
    result: dict[str, Any] = {"size": size, "memories": copied.counts["memories"], "db_copy_s": round(copy_s, 3)}
    fresh = Store(url)
    load_s, _ = timed(fresh.refresh_index)
    result["index_load_ms"] = ms(load_s)
    cache = Path(workdir) / "pg-cache"  # a client's own cache folder: the first run builds its snapshot
    first_ms, first_peak = cold_runs(url, cache, runs=1, fresh=True)
    current_ms, current_peak = cold_runs(url, cache)
    result["cold_recall_ms"] = {"with_snapshot": current_ms, "without_snapshot": first_ms}
    result["cold_recall_peak_rss_mb"] = {"with_snapshot": current_peak, "without_snapshot": first_peak}
    result["recall"] = measure_recall(fresh, config.now())
    result["save_per_s"] = measure_saves(store)
    result["concurrent_save_per_s"] = concurrent_saves(url, WRITERS, SAVES_PER_WRITER)
    result["writers"] = WRITERS
    result["write_to_visible_ms"] = write_to_visible(url, fresh)
    result["peak_rss_mb"] = peak_rss_mb()
    store.close()
    fresh.close()
    return result
