"""``mneme bench`` for the store: synthetic stores of a given size, timed the way users meet them.

Each size runs in its own child process (so peak RSS is that size's own) and reports: recall p50/p95
(warm, in-process) per ranking profile, the naive per-row baseline p50, a bare numpy cosine top-k p50 on
the same matrix, index load times, cold ``mneme recall`` wall time as a subprocess (and as a multiple of
the ``python -c "import numpy, peewee"`` floor), the MCP ``recall`` round trip, save throughput, the time a
save by another process takes to reach a warm recall, peak RSS, and ``mneme review`` cold, after one save
and at the same revision (``review_bench``). With a PostgreSQL URL the same store
is then measured on that server too (``postgresql_bench``). Targets from the issues are checked and reported,
never asserted in tests.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from mneme_tui import config
from mneme_tui.bench import postgresql_bench
from mneme_tui.bench.measures import (
    WARM_ROUNDS,
    cold_recall,
    handshake_cold,
    import_floor_ms,
    in_child,
    mcp_pairs,
    measure_recall,
    measure_saves,
    ms,
    peak_rss_mb,
    percentiles,
    scoped_over_repos,
    target_check,
    timed,
    write_to_visible,
)
from mneme_tui.bench.review_bench import measure_review, review_checks
from mneme_tui.bench.synthetic import QUERIES, REPOS, generate
from mneme_tui.memory.vectors import embed

NAIVE_QUERIES = 3
NAIVE_MAX_SIZE = 200_000
SPREAD_REPOS = 1_000
"""The scoped recall is also measured with the store's rows spread over this many repositories."""

TARGETS = {
    "recall_p50_ms_at_100k": 10.0,
    "ratio_to_bare_at_1m": 2.5,
    "naive_slowdown_at_100k": 50.0,
    "cold_recall_s_at_100k": 0.25,
    "cold_recall_s_at_1m": 1.0,
    "mcp_recall_p50_ms_at_100k": 5.0,
    "peak_rss_mb_at_1m": 1536.0,
    "postgresql_recall_ratio_at_100k": 1.5,
    "bm25_ratio_to_bare": 0.3,
    "handshake_vs_floor_at_1m": 2.5,
    "mcp_vs_in_process_at_1m": 1.5,
    "cold_recall_behind_ratio_at_1m": 1.2,
    "cold_recall_behind_peak_rss_mb_at_1m": 200.0,
    "first_cold_recall_s_at_1m": 10.0,
    "postgresql_cold_recall_ratio_at_100k": 1.5,
    "postgresql_cold_recall_s_at_1m": 1.0,
}


def bench_size(size: int, workdir: str) -> dict[str, Any]:
    """Build a store of ``size`` synthetic memories in ``workdir`` and measure it (run in a child)."""
    from mneme_tui.memory.store import Store

    os.environ["MNEME_CACHE_DIR"] = str(Path(workdir) / "cache")
    now = config.now()
    db_path = Path(workdir) / "bench.db"
    store = Store(db_path)
    build_s, _ = timed(store.mint_ids, generate(size, now=now))  # ids only: a million Memory objects are 0.5 GB
    result: dict[str, Any] = {"size": size, "build_s": round(build_s, 3)}
    fresh = Store(db_path)
    load_s, _ = timed(fresh.refresh_index)  # from SQLite; writes the snapshot for bigger stores
    result["index_load_sqlite_ms"] = ms(load_s)
    snapshot_store = Store(db_path)
    snap_s, _ = timed(snapshot_store.refresh_index)
    result["index_load_snapshot_ms"] = ms(snap_s)
    result["recall"] = measure_recall(fresh, now)
    result["bare_numpy_topk"] = _bare_topk(fresh.index.vectors)
    result["naive_per_row"] = _naive_per_row(fresh, now) if size <= NAIVE_MAX_SIZE else None
    result["scoped_over_repos"] = scoped_over_repos(fresh, now, SPREAD_REPOS)
    result["save_per_s"] = measure_saves(store)
    result["peak_rss_mb"] = peak_rss_mb()
    result["write_to_visible_ms"] = write_to_visible(db_path, fresh)
    for opened in (store, fresh, snapshot_store):
        opened.close()
    result.update(_new_processes(db_path, workdir))
    result["review"] = measure_review(db_path)  # last: it saves one memory
    return result


def _bare_topk(matrix: np.ndarray) -> dict[str, float]:
    """p50/p95 of a bare numpy ``matrix @ query`` + ``argpartition`` top-5 over every row."""
    bare = []
    for _ in range(WARM_ROUNDS):
        for query in QUERIES:
            vector = embed(query)
            start = time.perf_counter()
            scores = matrix @ vector
            top = np.argpartition(-scores, 5)[:5]
            top[np.argsort(-scores[top])]
            bare.append(time.perf_counter() - start)
    return percentiles(bare)


def _naive_per_row(store, now) -> dict[str, float]:
    """p50 of the naive per-row Python ranking over a few queries (the baseline the vectorised path beats)."""
    from mneme_tui.bench.naive_rank import naive_rank, naive_rows_of
    from mneme_tui.memory.index import days_since_epoch

    rows = naive_rows_of(store.db)
    now_days = float(days_since_epoch([now.isoformat(sep=" ")])[0])
    repos = list(REPOS)
    naive = [
        timed(naive_rank, rows, query, repo=repos[number % len(repos)], now_days=now_days)[0]
        for number, query in enumerate(QUERIES[:NAIVE_QUERIES])
    ]
    return {"p50_ms": ms(float(np.median(naive)))}


def _new_processes(db_path: Path, workdir: str) -> dict[str, Any]:
    """The figures of other processes on the store: the MCP round trip (after the same calls in-process), the
    import floor, cold ``mneme recall`` and ``mneme handshake``, each also as a multiple of the floor.

    The in-process calls and the round trip's client each run in a new process of their own, so both sides
    start alike (a new heap, the index from the same snapshot, every memo cold) and the ratio is what the
    protocol adds, not what this process has already warmed; three such pairs in turn (``mcp_pairs``)."""
    result: dict[str, Any] = {}
    result["mcp_in_process"], result["mcp_recall"] = mcp_pairs(db_path, workdir)
    result["import_floor_ms"] = import_floor_ms()
    result["cold_recall_ms"], result["cold_recall_peak_rss_mb"] = cold_recall(db_path, workdir)
    result["cold_recall_vs_floor"] = {
        label: round(value / result["import_floor_ms"], 2) for label, value in result["cold_recall_ms"].items()
    }
    result["handshake_cpu"] = handshake_cold(db_path, workdir)
    result["handshake_ms"] = result["handshake_cpu"]["wall_ms"]
    result["handshake_vs_floor"] = round(result["handshake_ms"] / result["import_floor_ms"], 2)
    return result


def run(sizes: list[int], postgresql_url: str | None = None) -> dict[str, Any]:
    """Measure every size in its own child process; returns ``{"<size>": figures, ..., "targets": [...]}``,
    plus ``"postgresql": {"<size>": figures, ...}`` when ``postgresql_url`` names a database to measure too
    (refused when it already holds memories; the bench works in a schema of its own that it drops)."""
    if postgresql_url is not None:
        postgresql_bench.refuse_non_empty(postgresql_url)
    measured: dict[str, Any] = {}
    on_postgresql: dict[str, Any] = {}
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="mneme-bench-") as workdir:
            measured[str(size)] = in_child(bench_size, size, workdir)
            if postgresql_url is not None:
                on_postgresql[str(size)] = postgresql_bench.run_size(postgresql_url, size, workdir)
    report = {**measured, "targets": check_targets(measured, on_postgresql)}
    if postgresql_url is not None:
        report["postgresql"] = on_postgresql
    return report


def check_targets(sizes: dict[str, Any], postgresql: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The issues' speed targets, each with the measured value and whether it is met."""
    checks = []
    for key, figures in sizes.items():
        size = int(key)
        for profile, recall in figures["recall"].items():
            p50 = recall["scoped"]["p50_ms"]
            if size == 100_000:
                checks.extend(_recall_checks_at_100k(profile, p50, figures, (postgresql or {}).get(key)))
            if profile == "bm25" and size >= 1_000_000:  # issue 24: at 1M (at 100k its block shows both figures)
                checks.append(
                    target_check(
                        f"bm25 (postings): -A recall / bare numpy top-k at {_label(size)} (×)",
                        recall["cross_repo"]["p50_ms"] / figures["bare_numpy_topk"]["p50_ms"],
                        "<=",
                        TARGETS["bm25_ratio_to_bare"],
                    )
                )
            if size >= 1_000_000:
                cross = recall["cross_repo"]["p50_ms"]
                ratio = cross / figures["bare_numpy_topk"]["p50_ms"]
                checks.append(
                    target_check(
                        f"{profile}: -A recall / bare numpy top-k at {size // 1_000_000}M (×)",
                        ratio,
                        "<=",
                        TARGETS["ratio_to_bare_at_1m"],
                    )
                )
        checks.extend(_agent_checks(size, figures))
        checks.extend(_snapshot_checks(size, figures, (postgresql or {}).get(key)))
        checks.extend(review_checks(size, figures))
    return checks


def _recall_checks_at_100k(
    profile: str, p50: float, figures: dict[str, Any], pg: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """A profile's recall targets at 100k: its p50, the naive per-row slowdown (spec) and, when PostgreSQL was
    measured too (``pg``), its cold and warm recall against SQLite's."""
    checks = [target_check(f"{profile}: recall p50 at 100k (ms)", p50, "<=", TARGETS["recall_p50_ms_at_100k"])]
    naive = figures.get("naive_per_row")
    if naive and profile == "spec":
        checks.append(
            target_check(
                "naive per-row / vectorised at 100k (×)", naive["p50_ms"] / p50, ">=", TARGETS["naive_slowdown_at_100k"]
            )
        )
    if pg and profile == "spec":
        checks.append(
            target_check(
                "PostgreSQL / SQLite cold `mneme recall` (snapshot up to date) at 100k (×)",
                pg["cold_recall_ms"]["with_snapshot"] / figures["cold_recall_ms"]["with_snapshot"],
                "<=",
                TARGETS["postgresql_cold_recall_ratio_at_100k"],
            )
        )
    if pg:
        checks.append(
            target_check(
                f"{profile}: PostgreSQL / SQLite warm recall p50 at 100k (×)",
                pg["recall"][profile]["scoped"]["p50_ms"] / p50,
                "<=",
                TARGETS["postgresql_recall_ratio_at_100k"],
            )
        )
    return checks


def _agent_checks(size: int, figures: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 14's targets: cold ``mneme recall``, the MCP round trip and peak memory."""
    label = {100_000: "100k", 1_000_000: "1M"}.get(size)
    if label is None:
        return []
    checks = []
    # the targets are the steady state: every run after the first has the snapshot (the first one builds it;
    # its time and memory are reported beside, and its memory is in the peak RSS target below)
    goal_s = TARGETS["cold_recall_s_at_100k"] if size == 100_000 else TARGETS["cold_recall_s_at_1m"]
    cold_s = figures["cold_recall_ms"]["with_snapshot"] / 1000
    check = target_check(f"cold `mneme recall` (snapshot up to date) at {label} (s)", cold_s, "<=", goal_s)
    checks.append({**check, "vs_floor": figures["cold_recall_vs_floor"]["with_snapshot"]})
    if size == 100_000:
        checks.append(
            target_check(
                "MCP recall round trip p50 at 100k (ms)",
                figures["mcp_recall"]["p50_ms"],
                "<=",
                TARGETS["mcp_recall_p50_ms_at_100k"],
            )
        )
    else:
        peak = max(figures["cold_recall_peak_rss_mb"].values())  # a process serving the store (the bench holds two)
        checks.append(
            target_check("peak RSS of a cold `mneme recall` at 1M (MB)", peak, "<=", TARGETS["peak_rss_mb_at_1m"])
        )
        handshake = target_check(
            "`mneme handshake -n 10` at 1M (× the import floor, CPU time)",
            figures["handshake_cpu"]["cpu_vs_floor"],
            "<=",
            TARGETS["handshake_vs_floor_at_1m"],
        )
        checks.append({**handshake, "ms": figures["handshake_ms"], "cpu_ms": figures["handshake_cpu"]["cpu_ms"]})
        checks.append(
            target_check(
                "MCP recall round trip / the same calls in-process, p50 at 1M (×)",
                figures["mcp_recall"]["p50_ms"] / figures["mcp_in_process"]["p50_ms"],
                "<=",
                TARGETS["mcp_vs_in_process_at_1m"],
            )
        )
    return checks


def _label(size: int) -> str:
    return f"{size // 1_000_000}M" if size >= 1_000_000 else f"{size // 1000}k"


def _snapshot_checks(size: int, figures: dict[str, Any], postgresql: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Issue 24's snapshot targets at 1M: a lagging snapshot, the first run, a PostgreSQL client's cold recall."""
    if size != 1_000_000:
        return []
    cold, peaks = figures["cold_recall_ms"], figures["cold_recall_peak_rss_mb"]
    checks = [
        target_check(
            "cold `mneme recall` 1,000 rows behind the snapshot / up to date at 1M (×)",
            cold["behind_snapshot"] / cold["with_snapshot"],
            "<=",
            TARGETS["cold_recall_behind_ratio_at_1m"],
        ),
        target_check(
            "peak RSS of that cold `mneme recall` 1,000 rows behind at 1M (MB)",
            peaks["behind_snapshot"],
            "<=",
            TARGETS["cold_recall_behind_peak_rss_mb_at_1m"],
        ),
        target_check(
            "first cold `mneme recall` ever (builds the snapshot) at 1M (s)",
            cold["without_snapshot"] / 1000,
            "<=",
            TARGETS["first_cold_recall_s_at_1m"],
        ),
    ]
    if postgresql:
        checks.append(
            target_check(
                "PostgreSQL cold `mneme recall` (snapshot up to date) at 1M (s)",
                postgresql["cold_recall_ms"]["with_snapshot"] / 1000,
                "<=",
                TARGETS["postgresql_cold_recall_s_at_1m"],
            )
        )
    return checks
