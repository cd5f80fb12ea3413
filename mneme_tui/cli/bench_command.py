"""``mneme bench``: measure recall, loads, saves and memory on synthetic stores (and the TUI with --tui)."""

from __future__ import annotations

import argparse
from typing import Any

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
    bench.epilog = "--json prints one object keyed by size, plus 'targets', 'legion_import' and (with --tui) 'tui'."
    bench.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from mneme_tui.legion.bench import bench_import
    from mneme_tui.memory import bench

    report: dict[str, Any] = bench.run(args.sizes)
    legion = report["legion_import"] = bench_import()
    report["targets"].append({
        "target": f"Legion: parse + first sync of a {legion['rows']:,}-row OUTCOMES.md, median of {legion['runs']} (s)",
        "value": max(legion["parse_seconds"], legion["first_sync_seconds"]),
        "goal": f"< {legion['target_seconds']:g}",
        "met": legion["within_target"],
    })
    if args.tui:
        from mneme_tui.tui.bench import bench_tui

        report["tui"] = bench_tui()
    if args.json:
        output.print_json(report)
    else:
        _print_report(report)
    return 0


def _print_report(report: dict[str, Any]) -> None:
    for size, figures in report.items():
        if not size.isdigit():
            continue
        print(f"== {int(size):,} memories (built in {figures['build_s']} s, peak RSS {figures['peak_rss_mb']} MB)")
        print(
            f"  index load: {figures['index_load_sqlite_ms']} ms from SQLite,"
            f" {figures['index_load_snapshot_ms']} ms from snapshot"
        )
        for profile, recall in figures["recall"].items():
            scoped, cross = recall["scoped"], recall["cross_repo"]
            print(
                f"  recall [{profile}]: scoped p50 {scoped['p50_ms']} ms / p95 {scoped['p95_ms']} ms;"
                f" -A p50 {cross['p50_ms']} ms / p95 {cross['p95_ms']} ms"
            )
        print(f"  bare numpy matrix@q + argpartition: p50 {figures['bare_numpy_topk']['p50_ms']} ms")
        naive = figures.get("naive_per_row")
        print(f"  naive per-row Python: {'p50 ' + str(naive['p50_ms']) + ' ms' if naive else 'skipped at this size'}")
        cold = figures["cold_recall_ms"]
        print(
            f"  cold `mneme recall` (subprocess): {cold['with_snapshot']} ms with snapshot,"
            f" {cold['without_snapshot']} ms without"
        )
        print(f"  save: {figures['save_per_s']} memories/s")
    if "legion_import" in report:
        print(f"== Legion import: {report['legion_import']}")
    if "tui" in report:
        print(f"== TUI (Pilot): {report['tui']}")
    if report["targets"]:
        print("== targets")
        for check in report["targets"]:
            verdict = "met" if check["met"] else "MISSED"
            print(f"  [{verdict}] {check['target']}: {check['value']} (goal {check['goal']})")
