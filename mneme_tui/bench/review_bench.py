"""``mneme bench``'s review figures: proposals of a whole store computed cold (a new process, which starts from
the review cache an earlier review left on disk: ``curation/snapshot.py``), again after one new save (warm: only
what changed is found again) and again at the same revision. The earlier review, of a store nothing was cached
for (the first review ever: it builds the catalogue and writes the cache), runs first in a child of its own, and
its time (wall and CPU) and peak RSS are reported beside the others; each runs in a child process so its peak RSS
is its own."""

from __future__ import annotations

import resource
import time
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
"""Issue 21's targets; at 1M the cold time and the peak RSS are checked for the first review too."""


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
    """Time the first review of the store at ``db_path`` (nothing cached: it writes the review cache), its CPU
    time (with its feature worker's) and its peak RSS (run it in a child)."""
    from mneme_tui.memory.curation.proposals import open_proposals
    from mneme_tui.memory.store import Store

    store = Store(Path(db_path))
    cpu_before = _cpu_s()
    first_s, _ = timed(open_proposals, store, None)
    cpu_s = _cpu_s() - cpu_before
    store.close()
    return {"first_ms": ms(first_s), "first_cpu_ms": ms(cpu_s), "peak_rss_mb": high_water_mb()}


def _cpu_s() -> float:
    """CPU time (s) of this process and of its children that ended (the first review's feature worker,
    ``curation/feature_pool.py``)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def measure_review(db_path: Path) -> dict[str, Any]:
    """``first_review`` in a child process, then ``review_figures`` in another; the first review's figures are
    ``first_review_ms``, ``first_review_cpu_ms`` and ``first_peak_rss_mb``."""
    first = in_child(first_review, str(db_path))
    figures = in_child(review_figures, str(db_path))
    figures["first_review_ms"] = first["first_ms"]
    figures["first_review_cpu_ms"] = first["first_cpu_ms"]
    figures["first_peak_rss_mb"] = first["peak_rss_mb"]
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
    checks = [
        target_check(
            "cold `mneme review` -A at 1M (s)", review["cold_ms"] / 1000, "<=", TARGETS["review_cold_s_at_1m"]
        ),
        target_check(
            "peak RSS of `mneme review` at 1M (MB)", review["peak_rss_mb"], "<=", TARGETS["review_peak_rss_mb_at_1m"]
        ),
    ]
    if "first_review_ms" in review:
        checks += [
            target_check(
                "first `mneme review` -A at 1M, nothing cached (s)",
                review["first_review_ms"] / 1000,
                "<=",
                TARGETS["review_cold_s_at_1m"],
            ),
            target_check(
                "peak RSS of the first `mneme review` at 1M (MB)",
                review["first_peak_rss_mb"],
                "<=",
                TARGETS["review_peak_rss_mb_at_1m"],
            ),
        ]
    return checks
