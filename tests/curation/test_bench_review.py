"""The review figures of ``mneme bench`` on a small store, and issue 21's targets (checked, never asserted as
speed: the figures are whatever this machine measures)."""

from __future__ import annotations

from mneme_tui.bench.review_bench import review_checks, review_figures
from mneme_tui.memory.store import Store

from .conftest import mint


def test_review_figures_on_a_small_store(tmp_path) -> None:
    store = Store(tmp_path / "bench.db")
    for _ in range(2):
        mint(store, "The same lesson twice")
    figures = review_figures(str(store.path))
    assert figures["proposals"] == {"duplicate": 1}
    assert min(figures["cold_ms"], figures["warm_after_save_ms"], figures["same_revision_ms"]) >= 0


def test_review_targets_at_100k_and_1m() -> None:
    review = {"review": {"cold_ms": 1500.0, "warm_after_save_ms": 250.0, "peak_rss_mb": 900.0}}
    assert review_checks(10_000, review) == [] and review_checks(100_000, {}) == []
    at_100k = review_checks(100_000, review)
    assert [(c["value"], c["goal"], c["met"]) for c in at_100k] == [(1.5, "<= 2", True), (250.0, "<= 200", False)]
    at_1m = review_checks(1_000_000, review)
    assert [(c["value"], c["met"]) for c in at_1m] == [(1.5, True), (900.0, True)]
    review["review"] |= {"first_review_ms": 45_000.0, "first_review_cpu_ms": 40_000.0, "first_peak_rss_mb": 1400.0}
    first = review_checks(1_000_000, review)[2:]
    assert [(c["target"], c["value"], c["met"]) for c in first] == [
        ("first `mneme review` -A at 1M, nothing cached (s)", 45.0, False),
        ("peak RSS of the first `mneme review` at 1M (MB)", 1400.0, True),
    ]
