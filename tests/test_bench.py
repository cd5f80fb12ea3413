"""`mneme bench` runs end to end on a tiny store and reports every figure the issue names, consistently
(p50 <= p95, counts equal sizes, a target's value is the quotient it names); no timing asserts."""

from __future__ import annotations

import inspect
import json
from functools import partial

import pytest

from mneme_tui.bench import legion_bench, suite
from mneme_tui.bench.store_bench import check_targets
from mneme_tui.cli import main
from mneme_tui.cli.bench_command import print_report
from mneme_tui.memory.ranking import PROFILES

#: The Legion import is timed on this many rows here (the bench's own 10,000, its default, take its three
#: processes 14 s of CPU): the report's shape and consistency do not depend on the count.
LEGION_ROWS = 1_000


def test_bench_json_is_keyed_by_size_and_consistent(capsys, monkeypatch: pytest.MonkeyPatch):
    assert inspect.signature(legion_bench.bench_import).parameters["rows"].default == 10_000
    monkeypatch.setattr(suite, "bench_import", partial(legion_bench.bench_import, rows=LEGION_ROWS))
    assert main(["bench", "--sizes", "300", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"300", "targets", "legion_import"}
    figures = report["300"]
    assert set(figures) == {  # docs/json.md's table lists these
        "size",
        "build_s",
        "index_load_sqlite_ms",
        "index_load_snapshot_ms",
        "recall",
        "bare_numpy_topk",
        "naive_per_row",
        "save_per_s",
        "peak_rss_mb",
        "write_to_visible_ms",
        "mcp_recall",
        "import_floor_ms",
        "cold_recall_ms",
        "cold_recall_peak_rss_mb",
        "cold_recall_vs_floor",
        "review",
        "mcp_in_process",
        "handshake_ms",
        "handshake_vs_floor",
        "handshake_cpu",
        "scoped_over_repos",
    }
    assert 0 < figures["mcp_in_process"]["p50_ms"] <= figures["mcp_in_process"]["p95_ms"]
    assert figures["mcp_in_process"]["warm_p50_ms"] > 0 and figures["mcp_recall"]["warm_p50_ms"] > 0
    assert figures["handshake_vs_floor"] == round(figures["handshake_ms"] / figures["import_floor_ms"], 2)
    cpu = figures["handshake_cpu"]
    assert (
        set(cpu) == {"wall_ms", "cpu_ms", "floor_cpu_ms", "cpu_vs_floor"} and cpu["wall_ms"] == figures["handshake_ms"]
    )
    assert cpu["cpu_ms"] > 0 and cpu["cpu_vs_floor"] == round(cpu["cpu_ms"] / cpu["floor_cpu_ms"], 2)
    spread = figures["scoped_over_repos"]
    assert spread["repos"] == 1_000 and spread["warm_p50_ms"] > 0 and spread["first_p50_ms"] > 0
    review = figures["review"]
    assert set(review) == {
        "cold_ms",
        "warm_after_save_ms",
        "same_revision_ms",
        "proposals",
        "peak_rss_mb",
        "first_review_ms",
        "first_review_cpu_ms",
        "first_peak_rss_mb",
    }
    assert review["cold_ms"] > 0 and review["peak_rss_mb"] > 0 and review["first_peak_rss_mb"] > 0
    assert figures["size"] == 300
    assert set(figures["recall"]) == set(PROFILES)
    for profile in figures["recall"].values():
        assert set(profile) == {"scoped", "cross_repo", "first_round"}
        assert set(profile["first_round"]) == {"scoped", "cross_repo"}
        for timing in (profile["scoped"], profile["cross_repo"], *profile["first_round"].values()):
            assert 0 <= timing["p50_ms"] <= timing["p95_ms"]
    assert 0 <= figures["bare_numpy_topk"]["p50_ms"] <= figures["bare_numpy_topk"]["p95_ms"]
    assert set(figures["naive_per_row"]) == {"p50_ms"}  # measured: 300 rows is below NAIVE_MAX_SIZE
    assert set(figures["cold_recall_ms"]) == {"with_snapshot", "without_snapshot", "behind_snapshot"}
    assert figures["import_floor_ms"] > 0
    for snapshot, cold_ms in figures["cold_recall_ms"].items():
        assert figures["cold_recall_vs_floor"][snapshot] == round(cold_ms / figures["import_floor_ms"], 2)
        assert figures["cold_recall_peak_rss_mb"][snapshot] > 0
    assert 0 < figures["mcp_recall"]["p50_ms"] <= figures["mcp_recall"]["p95_ms"]
    assert figures["mcp_recall"]["calls"] > 0
    visible = figures["write_to_visible_ms"]
    assert visible["rounds"] > 0 and 0 < visible["p50_ms"] <= visible["max_ms"]
    assert figures["save_per_s"] > 0 and figures["peak_rss_mb"] > 0
    # no store target applies at 300 rows; the Legion one reports the slower of its two figures
    legion = report["legion_import"]
    assert legion["runs"] == 3 and legion["records"] == legion["rows"] == LEGION_ROWS
    assert legion["first_sync_fastest_seconds"] <= legion["first_sync_seconds"]
    target, hold = report["targets"]
    assert target["target"].startswith("Legion:")
    assert target["value"] == max(legion["parse_seconds"], legion["first_sync_seconds"])
    assert target["met"] is legion["within_target"] is (target["value"] < legion["target_seconds"])
    assert hold["value"] == legion["longest_write_hold_seconds"] > 0  # the longest write transaction of sync
    assert hold["met"] is legion["within_hold_limit"] is (hold["value"] <= legion["hold_limit_seconds"])


def test_bench_rejects_bad_sizes(capsys):
    for bad in ("abc", "10", "0,100"):
        try:
            main(["bench", "--sizes", bad])
        except SystemExit as exit_:
            assert exit_.code == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


def figures_of(
    recall_p50: float,
    cross_p50: float,
    naive_p50: float,
    cold_ms: float,
    mcp_p50: float,
    cold_peak_mb: float,
    first_ms: float | None = None,
    behind_ms: float | None = None,
    behind_peak_mb: float = 150.0,
) -> dict:
    """A size's figures as ``bench_size`` reports them (only what the targets read)."""
    first_ms = cold_ms * 2 if first_ms is None else first_ms
    behind_ms = cold_ms * 1.1 if behind_ms is None else behind_ms
    return {
        "recall": {
            "spec": {
                "scoped": {"p50_ms": recall_p50},
                "cross_repo": {"p50_ms": cross_p50},
                "first_round": {"scoped": {"p50_ms": recall_p50 * 2}, "cross_repo": {"p50_ms": cross_p50 * 2}},
            }
        },
        "naive_per_row": {"p50_ms": naive_p50},
        "bare_numpy_topk": {"p50_ms": 20.0},
        "cold_recall_ms": {"with_snapshot": cold_ms, "without_snapshot": first_ms, "behind_snapshot": behind_ms},
        "cold_recall_vs_floor": {"with_snapshot": 2.0, "without_snapshot": 4.0, "behind_snapshot": 2.2},
        "cold_recall_peak_rss_mb": {
            "with_snapshot": cold_peak_mb / 2,
            "without_snapshot": cold_peak_mb,
            "behind_snapshot": behind_peak_mb,
        },
        "mcp_recall": {"p50_ms": mcp_p50, "p95_ms": mcp_p50 * 2, "warm_p50_ms": mcp_p50},
        "mcp_in_process": {"p50_ms": 1.0, "p95_ms": 2.0, "warm_p50_ms": 1.0},
        "handshake_ms": 250.0,
        "handshake_vs_floor": 2.0,
        "handshake_cpu": {"wall_ms": 250.0, "cpu_ms": 300.0, "floor_cpu_ms": 150.0, "cpu_vs_floor": 2.0},
        "scoped_over_repos": {"repos": 1_000, "rows_per_repo": 1_000, "first_p50_ms": 3.0, "warm_p50_ms": 1.0},
        "peak_rss_mb": 5000.0,  # the bench process (it holds the generated data): not what the target reads
    }


def test_targets_are_checked_at_the_sizes_they_name():
    figures = figures_of(2.0, 30.0, 200.0, cold_ms=100.0, mcp_p50=1.0, cold_peak_mb=800.0)
    assert check_targets({"300": figures}) == []  # no target names a size this small
    checks = {c["target"]: c for c in check_targets({"100000": figures, "1000000": figures})}
    assert set(checks) == {
        "spec: recall p50 at 100k (ms)",
        "naive per-row / vectorised at 100k (×)",
        "spec: -A recall / bare numpy top-k at 1M (×)",
        "cold `mneme recall` (snapshot up to date) at 100k (s)",
        "MCP recall round trip p50 at 100k (ms)",
        "cold `mneme recall` (snapshot up to date) at 1M (s)",
        "peak RSS of a cold `mneme recall` at 1M (MB)",
        "`mneme handshake -n 10` at 1M (× the import floor, CPU time)",
        "MCP recall round trip / the same calls in-process, p50 at 1M (×)",
        "cold `mneme recall` 1,000 rows behind the snapshot / up to date at 1M (×)",
        "peak RSS of that cold `mneme recall` 1,000 rows behind at 1M (MB)",
        "first cold `mneme recall` ever (builds the snapshot) at 1M (s)",
    }
    assert all(check["met"] for check in checks.values())
    handshake = checks["`mneme handshake -n 10` at 1M (× the import floor, CPU time)"]
    assert handshake["ms"] == 250.0 and handshake["cpu_ms"] == 300.0 and handshake["value"] == 2.0
    assert checks["cold `mneme recall` (snapshot up to date) at 100k (s)"] == {
        "target": "cold `mneme recall` (snapshot up to date) at 100k (s)",
        "value": 0.1,
        "goal": "<= 0.25",
        "met": True,
        "vs_floor": 2.0,
    }
    assert checks["cold `mneme recall` (snapshot up to date) at 1M (s)"]["goal"] == "<= 1"
    assert checks["peak RSS of a cold `mneme recall` at 1M (MB)"]["value"] == 800.0
    assert checks["spec: recall p50 at 100k (ms)"] == {
        "target": "spec: recall p50 at 100k (ms)",
        "value": 2.0,
        "goal": "<= 10",
        "met": True,
    }
    assert checks["naive per-row / vectorised at 100k (×)"]["value"] == 200.0 / 2.0
    assert checks["spec: -A recall / bare numpy top-k at 1M (×)"]["value"] == 30.0 / 20.0
    assert checks["cold `mneme recall` 1,000 rows behind the snapshot / up to date at 1M (×)"]["value"] == 1.1
    assert checks["first cold `mneme recall` ever (builds the snapshot) at 1M (s)"]["value"] == 0.2


def test_targets_report_a_miss():
    slow = figures_of(
        40.0,
        90.0,
        400.0,
        cold_ms=1200.0,
        mcp_p50=6.0,
        cold_peak_mb=2000.0,
        first_ms=28_500.0,
        behind_ms=3600.0,
        behind_peak_mb=900.0,
    )
    slow["handshake_cpu"] = {**slow["handshake_cpu"], "cpu_vs_floor": 6.5}
    checks = {c["target"]: c for c in check_targets({"100000": slow, "1000000": slow})}
    assert [c["met"] for c in checks.values()] == [False] * 12
    assert checks["naive per-row / vectorised at 100k (×)"]["value"] == 10.0
    assert checks["spec: -A recall / bare numpy top-k at 1M (×)"]["value"] == 4.5


def test_postgresql_recall_is_compared_with_sqlite_at_100k():
    sqlite = figures_of(2.0, 30.0, 200.0, cold_ms=100.0, mcp_p50=1.0, cold_peak_mb=800.0)
    postgresql = {"recall": {"spec": {"scoped": {"p50_ms": 3.5}}}, "cold_recall_ms": {"with_snapshot": 120.0}}
    checks = {c["target"]: c for c in check_targets({"100000": sqlite}, {"100000": postgresql})}
    cold = checks["PostgreSQL / SQLite cold `mneme recall` (snapshot up to date) at 100k (×)"]
    assert cold["value"] == 1.2 and cold["met"]
    at_1m = {
        c["target"]: c
        for c in check_targets(
            {"1000000": sqlite}, {"1000000": {"recall": {}, "cold_recall_ms": {"with_snapshot": 1400.0}}}
        )
    }
    assert at_1m["PostgreSQL cold `mneme recall` (snapshot up to date) at 1M (s)"]["met"] is False
    ratio = checks["spec: PostgreSQL / SQLite warm recall p50 at 100k (×)"]
    assert ratio == {
        "target": "spec: PostgreSQL / SQLite warm recall p50 at 100k (×)",
        "value": 1.75,
        "goal": "<= 1.5",
        "met": False,
    }
    assert not [c for c in check_targets({"300": sqlite}, {"300": postgresql}) if "PostgreSQL" in c["target"]]


def test_plain_output_has_a_block_per_size_and_the_targets(capsys):
    figures = figures_of(2.0, 30.0, 200.0, cold_ms=100.0, mcp_p50=1.0, cold_peak_mb=800.0)
    figures.update(
        {
            "build_s": 1.0,
            "index_load_sqlite_ms": 3.0,
            "index_load_snapshot_ms": 1.0,
            "import_floor_ms": 50.0,
            "save_per_s": 900.0,
            "write_to_visible_ms": {"p50_ms": 5.0, "max_ms": 9.0, "rounds": 5},
        }
    )
    figures["recall"]["spec"]["scoped"]["p95_ms"] = figures["recall"]["spec"]["cross_repo"]["p95_ms"] = 40.0
    figures["recall"]["spec"]["first_round"]["scoped"]["p95_ms"] = 8.0
    figures["recall"]["spec"]["first_round"]["cross_repo"]["p95_ms"] = 80.0
    figures["bare_numpy_topk"]["p95_ms"] = 25.0
    postgresql = {
        "size": 100_000,
        "memories": 100_205,
        "db_copy_s": 9.0,
        "index_load_ms": 2000.0,
        "recall": figures["recall"],
        "save_per_s": 500.0,
        "concurrent_save_per_s": 400.0,
        "writers": 8,
        "write_to_visible_ms": {"p50_ms": 7.0, "max_ms": 11.0, "rounds": 5},
        "peak_rss_mb": 300.0,
        "cold_recall_ms": {"with_snapshot": 150.0, "without_snapshot": 2500.0},
        "cold_recall_peak_rss_mb": {"with_snapshot": 90.0, "without_snapshot": 400.0},
    }
    print_report(
        {
            "100000": figures,
            "postgresql": {"100000": postgresql},
            "targets": check_targets({"100000": figures}, {"100000": postgresql}),
        }
    )
    out = capsys.readouterr().out
    assert "== SQLite, 100,000 memories" in out and "== PostgreSQL, 100,000 memories" in out
    assert "400.0/s from 8 writer processes" in out and "db copy SQLite → PostgreSQL: 9.0 s" in out
    assert (
        "[met] cold `mneme recall` (snapshot up to date) at 100k (s): 0.1 (goal <= 0.25; 2.0× the import floor)" in out
    )
    assert "[met] spec: PostgreSQL / SQLite warm recall p50 at 100k (×): 1.0 (goal <= 1.5)" in out
    assert "150.0 ms with the snapshot (peak RSS 90.0 MB), 2500.0 ms the first run" in out
    assert (
        "recall [spec]: scoped p50 2.0 ms / p95 40.0 ms; -A p50 30.0 ms / p95 40.0 ms"
        " (warm; each query's first call: scoped p50 4.0 ms, -A p50 60.0 ms)" in out
    )
    assert "ms with 1,000 rows not yet in the snapshot (2.2×, 150.0 MB)" in out


def test_bm25_is_compared_with_the_bare_top_k_at_1m():
    figures = figures_of(2.0, 30.0, 200.0, cold_ms=100.0, mcp_p50=1.0, cold_peak_mb=800.0)
    figures["recall"]["bm25"] = {"scoped": {"p50_ms": 1.0}, "cross_repo": {"p50_ms": 5.0}}
    checks = {c["target"]: c for c in check_targets({"100000": figures, "1000000": figures})}
    check = checks["bm25 (postings): -A recall / bare numpy top-k at 1M (×)"]
    assert check["value"] == 5.0 / 20.0 and check["goal"] == "<= 0.3" and check["met"]
    assert "bm25 (postings): -A recall / bare numpy top-k at 100k (×)" not in checks  # the target is at 1M
