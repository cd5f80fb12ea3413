"""``mneme bench``'s review figures: proposals of a whole store computed cold (a new process, which starts from
the review cache an earlier review left on disk: ``curation/snapshot.py``), again after one new save (warm: only
what changed is found again) and again at the same revision. The earlier review, of a store nothing was cached
for, runs first in a child of its own; each runs in a child process so its peak RSS is its own, and the figures'
peak is the larger of the two."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from mneme_tui.bench.measures import in_child, ms, peak_rss_mb, target_check, timed

_STATUS = Path("/proc/self/status")

TARGETS = {
    "review_cold_s_at_100k": 2.0,
    "review_warm_ms_at_100k": 200.0,
    "review_cold_s_at_1m": 30.0,
    "review_peak_rss_mb_at_1m": 1536.0,
}


def review_figures(db_path: str) -> dict[str, Any]:
    """Time ``open_proposals`` over every repo of the store at ``db_path`` (run it in a child)."""
    from mneme_tui.bench.synthetic import REPOS
    from mneme_tui.memory.curation.proposals import open_proposals
    from mneme_tui.memory.store import Store

    store = Store(Path(db_path))
    cold_s, proposals = timed(open_proposals, store, None)
    store.save("Bench: one new lesson saved between two reviews, about the review cache", repo_id=REPOS[0])
    warm_s, _ = timed(open_proposals, store, None)
    same_s, _ = timed(open_proposals, store, None)
    store.close()
    return {
        "cold_ms": ms(cold_s),
        "warm_after_save_ms": ms(warm_s),
        "same_revision_ms": ms(same_s),
        "proposals": dict(Counter(proposal.kind for proposal in proposals)),
        "peak_rss_mb": high_water_mb(),
    }


def high_water_mb() -> float:
    """This process's own peak RSS (MB): Linux's ``VmHWM``, which starts again at ``exec`` (``ru_maxrss`` keeps
    the forking parent's peak: a spawned child would report the bench's); ``ru_maxrss`` where there is no /proc."""
    if not _STATUS.is_file():
        return peak_rss_mb()
    line = next(line for line in _STATUS.read_text().splitlines() if line.startswith("VmHWM:"))
    return round(int(line.split()[1]) / 1024.0, 1)


def first_review(db_path: str) -> dict[str, Any]:
    """Time the first review of the store at ``db_path`` (nothing cached: it writes the review cache) and its
    peak RSS (run it in a child)."""
    from mneme_tui.memory.curation.proposals import open_proposals
    from mneme_tui.memory.store import Store

    store = Store(Path(db_path))
    first_s, _ = timed(open_proposals, store, None)
    store.close()
    return {"first_ms": ms(first_s), "peak_rss_mb": high_water_mb()}


def measure_review(db_path: Path) -> dict[str, Any]:
    """``first_review`` in a child process, then ``review_figures`` in another (peak RSS: the larger)."""
    first = in_child(first_review, str(db_path))
    figures = in_child(review_figures, str(db_path))
    figures["peak_rss_mb"] = max(figures["peak_rss_mb"], first["peak_rss_mb"])
    return figures


def review_checks(size: int, figures: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 21's targets at 100k and 1M (nothing at other sizes, or without review figures)."""
    review = figures.get("review")
    if review is None or size not in (100_000, 1_000_000):
        return []
    if size == 100_000:
        return [
            target_check(
                "cold `mneme review` -A at 100k (s)", review["cold_ms"] / 1000, "<=", TARGETS["review_cold_s_at_100k"]
            ),
            target_check(
                "`mneme review` -A after one new save at 100k (ms)",
                review["warm_after_save_ms"],
                "<=",
                TARGETS["review_warm_ms_at_100k"],
            ),
        ]
    return [
        target_check(
            "cold `mneme review` -A at 1M (s)", review["cold_ms"] / 1000, "<=", TARGETS["review_cold_s_at_1m"]
        ),
        target_check(
            "peak RSS of `mneme review` at 1M (MB)", review["peak_rss_mb"], "<=", TARGETS["review_peak_rss_mb_at_1m"]
        ),
    ]
