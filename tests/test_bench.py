"""`mneme bench` runs end to end on a tiny store and reports every figure the issue names, consistently
(p50 <= p95, counts equal sizes, a target's value is the quotient it names); no timing asserts."""

from __future__ import annotations

import json

from mneme_tui.cli import main
from mneme_tui.memory.bench import check_targets
from mneme_tui.memory.ranking import PROFILES


def test_bench_json_is_keyed_by_size_and_consistent(capsys):
    assert main(["bench", "--sizes", "300", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"300", "targets", "legion_import"}
    figures = report["300"]
    assert figures["size"] == 300
    assert set(figures["recall"]) == set(PROFILES)
    for profile in figures["recall"].values():
        assert set(profile) == {"scoped", "cross_repo"}
        for timing in profile.values():
            assert 0 <= timing["p50_ms"] <= timing["p95_ms"]
    assert 0 <= figures["bare_numpy_topk"]["p50_ms"] <= figures["bare_numpy_topk"]["p95_ms"]
    assert set(figures["naive_per_row"]) == {"p50_ms"}  # measured: 300 rows is below NAIVE_MAX_SIZE
    assert set(figures["cold_recall_ms"]) == {"with_snapshot", "without_snapshot"}
    assert figures["save_per_s"] > 0 and figures["peak_rss_mb"] > 0
    # no store target applies at 300 rows; the Legion one reports the slower of its two figures
    legion = report["legion_import"]
    assert legion["runs"] == 3 and legion["records"] == legion["rows"] == 10_000
    assert legion["first_sync_fastest_seconds"] <= legion["first_sync_seconds"]
    [target] = report["targets"]
    assert target["target"].startswith("Legion:")
    assert target["value"] == max(legion["parse_seconds"], legion["first_sync_seconds"])
    assert target["met"] is legion["within_target"] is (target["value"] < legion["target_seconds"])


def test_bench_rejects_bad_sizes(capsys):
    for bad in ("abc", "10", "0,100"):
        try:
            main(["bench", "--sizes", bad])
        except SystemExit as exit_:
            assert exit_.code == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_targets_are_checked_at_the_sizes_they_name():
    figures = {
        "recall": {"spec": {"scoped": {"p50_ms": 2.0}, "cross_repo": {"p50_ms": 30.0}}},
        "naive_per_row": {"p50_ms": 200.0},
        "bare_numpy_topk": {"p50_ms": 20.0},
    }
    assert check_targets({"300": figures}) == []  # no target names a size this small
    checks = {c["target"]: c for c in check_targets({"100000": figures, "1000000": figures})}
    assert set(checks) == {
        "spec: recall p50 at 100k (ms)",
        "naive per-row / vectorised at 100k (×)",
        "spec: -A recall / bare numpy top-k at 1M (×)",
    }
    assert checks["spec: recall p50 at 100k (ms)"] == {"target": "spec: recall p50 at 100k (ms)", "value": 2.0,
                                                       "goal": "<= 10", "met": True}
    assert checks["naive per-row / vectorised at 100k (×)"]["value"] == 200.0 / 2.0
    assert checks["spec: -A recall / bare numpy top-k at 1M (×)"]["value"] == 30.0 / 20.0


def test_targets_report_a_miss():
    slow = {
        "recall": {"spec": {"scoped": {"p50_ms": 40.0}, "cross_repo": {"p50_ms": 90.0}}},
        "naive_per_row": {"p50_ms": 400.0},
        "bare_numpy_topk": {"p50_ms": 20.0},
    }
    checks = {c["target"]: c for c in check_targets({"100000": slow, "1000000": slow})}
    assert [c["met"] for c in checks.values()] == [False, False, False]
    assert checks["naive per-row / vectorised at 100k (×)"]["value"] == 10.0
    assert checks["spec: -A recall / bare numpy top-k at 1M (×)"]["value"] == 4.5
