"""`mneme bench` runs end to end on a tiny store and reports every figure the issue names (no timing asserts)."""

from __future__ import annotations

import json

from mneme_tui.cli import main
from mneme_tui.memory.bench import check_targets


def test_bench_json_is_keyed_by_size_and_reports_every_figure(capsys):
    assert main(["bench", "--sizes", "300", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    figures = report["300"]
    assert set(figures["recall"]) >= {"spec", "bm25"}
    for profile in figures["recall"].values():
        assert profile["scoped"]["p50_ms"] > 0 and profile["scoped"]["p95_ms"] >= profile["scoped"]["p50_ms"]
    assert figures["naive_per_row"]["p50_ms"] > 0
    assert figures["bare_numpy_topk"]["p50_ms"] > 0
    assert set(figures["cold_recall_ms"]) == {"with_snapshot", "without_snapshot"}
    assert figures["save_per_s"] > 0 and figures["peak_rss_mb"] > 0
    assert "targets" in report and "legion_import" in report
    legion = report["legion_import"]
    assert legion["runs"] == 3 and legion["records"] == legion["rows"] == 10_000
    assert legion["first_sync_fastest_seconds"] <= legion["first_sync_seconds"]
    assert any(check["target"].startswith("Legion:") for check in report["targets"])


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
    checks = {c["target"]: c for c in check_targets({"100000": figures, "1000000": figures})}
    assert checks["spec: recall p50 at 100k (ms)"]["met"] is True
    assert checks["naive per-row / vectorised at 100k (×)"]["value"] == 100.0
    assert checks["spec: -A recall / bare numpy top-k at 1M (×)"]["value"] == 1.5
