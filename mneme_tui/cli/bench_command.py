"""``mneme bench``: measure recall, loads, saves and memory on synthetic stores (and the TUI with --tui); the
measuring is in :mod:`mneme_tui.bench`, this module parses the command and prints the report."""

from __future__ import annotations

import argparse
from typing import Any

from mneme_tui import config
from mneme_tui.cli import arguments, output


def _sizes(raw: str) -> list[int]:
    try:
        sizes = [int(part.replace("_", "")) for part in raw.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of sizes: {raw!r}") from None
    if not sizes or any(size < 100 or size > 5_000_000 for size in sizes):
        raise argparse.ArgumentTypeError(f"sizes must be between 100 and 5000000: {raw!r}")
    return sizes


def register(sub: argparse._SubParsersAction) -> None:
    bench = arguments.add_command(sub, "bench", "benchmark recall, loads and saves on synthetic stores")
    bench.add_argument(
        "--sizes", type=_sizes, default=[10_000, 100_000], help="comma-separated store sizes (default: 10000,100000)"
    )
    bench.add_argument("--tui", action="store_true", help="also drive the TUI with Pilot at 100,000 memories")
    bench.epilog = (
        "--db postgresql://… also measures each size on that PostgreSQL database (refused if it holds memories;"
        " the bench works in a schema of its own and drops it). A SQLite --db is not used: the bench builds its"
        " stores in temp folders. --json prints one object keyed by size, plus 'targets', 'legion_import',"
        " 'postgresql' (with a URL) and 'tui' (with --tui)."
    )
    bench.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from mneme_tui.bench.suite import run_suite

    target = config.resolve_db_path(args.db) if getattr(args, "db", None) is not None else None
    postgresql_url = target if isinstance(target, str) else None
    report = run_suite(args.sizes, postgresql_url, tui=args.tui)
    if args.json:
        output.print_json(report)
    else:
        print_report(report)
    return 0


def print_report(report: dict[str, Any]) -> None:
    """The plain report: one block per size and backend, then the targets with met or MISSED."""
    for size, figures in report.items():
        if size.isdigit():
            _print_sqlite(int(size), figures)
    for size, figures in report.get("postgresql", {}).items():
        _print_postgresql(int(size), figures)
    if "legion_import" in report:
        print(f"== Legion import: {report['legion_import']}")
    if "tui" in report:
        print(f"== TUI (Pilot): {report['tui']}")
    if report["targets"]:
        print("== targets")
        for check in report["targets"]:
            verdict = "met" if check["met"] else "MISSED"
            floor = f"; {check['vs_floor']}× the import floor" if "vs_floor" in check else ""
            print(f"  [{verdict}] {check['target']}: {check['value']} (goal {check['goal']}{floor})")


def _print_sqlite(size: int, figures: dict[str, Any]) -> None:
    print(f"== SQLite, {size:,} memories (built in {figures['build_s']} s, peak RSS {figures['peak_rss_mb']} MB)")
    print(
        f"  index load: {figures['index_load_sqlite_ms']} ms from SQLite,"
        f" {figures['index_load_snapshot_ms']} ms from snapshot"
    )
    _print_recall(figures["recall"])
    print(f"  bare numpy matrix@q + argpartition: p50 {figures['bare_numpy_topk']['p50_ms']} ms")
    naive = figures.get("naive_per_row")
    print(f"  naive per-row Python: {'p50 ' + str(naive['p50_ms']) + ' ms' if naive else 'skipped at this size'}")
    cold, ratio, peak = figures["cold_recall_ms"], figures["cold_recall_vs_floor"], figures["cold_recall_peak_rss_mb"]
    print(
        f"  cold `mneme recall` (subprocess): {cold['with_snapshot']} ms with snapshot"
        f" ({ratio['with_snapshot']}× the floor, peak RSS {peak['with_snapshot']} MB),"
        f" {cold['without_snapshot']} ms without ({ratio['without_snapshot']}×, {peak['without_snapshot']} MB),"
        f" {cold['behind_snapshot']} ms with 1,000 rows not yet in the snapshot ({ratio['behind_snapshot']}×,"
        f' {peak["behind_snapshot"]} MB); floor `python -c "import numpy, peewee"` {figures["import_floor_ms"]} ms'
    )
    mcp, local = figures["mcp_recall"], figures["mcp_in_process"]
    print(
        f"  MCP recall round trip (SDK stdio client): p50 {mcp['p50_ms']} ms / p95 {mcp['p95_ms']} ms;"
        f" the same calls in-process p50 {local['p50_ms']} ms / p95 {local['p95_ms']} ms;"
        f" made again (cached): p50 {mcp['warm_p50_ms']} ms / in-process {local['warm_p50_ms']} ms"
    )
    cpu = figures["handshake_cpu"]
    print(
        f"  `mneme handshake -n 10` (subprocess): {figures['handshake_ms']} ms"
        f" ({figures['handshake_vs_floor']}× the floor); CPU {cpu['cpu_ms']} ms against the floor's"
        f" {cpu['floor_cpu_ms']} ms ({cpu['cpu_vs_floor']}×)"
    )
    spread = figures["scoped_over_repos"]
    print(
        f"  bm25 scoped recall with the rows spread over {spread['repos']:,} repos (~{spread['rows_per_repo']:,}"
        f" each): p50 {spread['warm_p50_ms']} ms warm, {spread['first_p50_ms']} ms for a repo's first query"
    )
    print(f"  save: {figures['save_per_s']} memories/s")
    _print_visible(figures["write_to_visible_ms"])
    review = figures.get("review")
    if review:
        print(
            f"  `mneme review` -A: {review['cold_ms']} ms cold, {review['warm_after_save_ms']} ms after one new"
            " save,"
            f" {review['same_revision_ms']} ms at the same revision; proposals {review['proposals']};"
            f" peak RSS {review['peak_rss_mb']} MB; the first review (nothing cached) {review['first_review_ms']} ms"
            f" ({review['first_review_cpu_ms']} ms CPU), peak RSS {review['first_peak_rss_mb']} MB"
        )


def _print_postgresql(size: int, figures: dict[str, Any]) -> None:
    print(f"== PostgreSQL, {size:,} memories (peak RSS {figures['peak_rss_mb']} MB)")
    print(f"  db copy SQLite → PostgreSQL: {figures['db_copy_s']} s ({figures['memories']:,} memories)")
    print(f"  index load: {figures['index_load_ms']} ms from PostgreSQL (binary COPY)")
    cold, peak = figures["cold_recall_ms"], figures["cold_recall_peak_rss_mb"]
    print(
        f"  cold `mneme recall` (subprocess, a client's cache folder): {cold['with_snapshot']} ms with the snapshot"
        f" (peak RSS {peak['with_snapshot']} MB), {cold['without_snapshot']} ms the first run, which builds it"
        f" ({peak['without_snapshot']} MB)"
    )
    _print_recall(figures["recall"])
    print(
        f"  save: {figures['save_per_s']} memories/s from 1 writer,"
        f" {figures['concurrent_save_per_s']}/s from {figures['writers']} writer processes"
    )
    _print_visible(figures["write_to_visible_ms"])


def _print_recall(recall: dict[str, Any]) -> None:
    for profile, timings in recall.items():
        scoped, cross = timings["scoped"], timings["cross_repo"]
        first = timings["first_round"]
        print(
            f"  recall [{profile}]: scoped p50 {scoped['p50_ms']} ms / p95 {scoped['p95_ms']} ms;"
            f" -A p50 {cross['p50_ms']} ms / p95 {cross['p95_ms']} ms (warm; each query's first call:"
            f" scoped p50 {first['scoped']['p50_ms']} ms, -A p50 {first['cross_repo']['p50_ms']} ms)"
        )


def _print_visible(visible: dict[str, Any]) -> None:
    print(f"  save by another process → in this one's recall: p50 {visible['p50_ms']} ms, max {visible['max_ms']} ms")
