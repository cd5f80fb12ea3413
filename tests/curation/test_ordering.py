"""Ordering many proposals with numpy (``proposals._sorted``) gives Python's order by ``_order``: score, kind, then
the memory ids as tuples (a shorter tuple that starts another comes first), and the few-proposal and wide cases
fall back to Python's sort."""

from __future__ import annotations

import random

from mneme_tui.memory.curation import proposals as P
from mneme_tui.memory.curation.choices import KINDS


def _proposals(count: int, widest: int, seed: int) -> list[P.Proposal]:
    """Random proposals with many equal scores and kinds, and ids that are often prefixes of one another."""
    rng = random.Random(seed)
    made: dict[tuple, P.Proposal] = {}
    for at in range(count):
        ids = tuple(sorted(rng.sample(range(1, 400), rng.randint(1, widest))))
        score = rng.choice([1.0, 0.95, 0.9, 0.8, 0.712, 0.6, 0.5, 0.4])
        proposal = P.Proposal(f"p{at}", rng.choice(KINDS), ids, None, "merge", "why", score, "acme")
        made.setdefault(P._order(proposal), proposal)  # no two proposals tie
    return list(made.values())


def test_numpy_order_is_pythons() -> None:
    for seed, widest in [(1, 1), (2, 3), (3, 6), (4, P.SORT_WIDTH)]:
        proposals = _proposals(P.SORT_IN_NUMPY * 2, widest, seed)
        assert len(proposals) >= P.SORT_IN_NUMPY
        assert P._sorted(proposals) == sorted(proposals, key=P._order)


def test_few_or_wide_proposals_are_sorted_by_python() -> None:
    few = _proposals(50, 4, 5)
    assert P._sorted(few) == sorted(few, key=P._order)
    wide = [*_proposals(P.SORT_IN_NUMPY, 3, 6), P.Proposal("w", "duplicate", tuple(range(1, 30)), 1, "merge", "", 1.0)]
    assert P._sorted(wide) == sorted(wide, key=P._order)
    assert P._sorted([]) == []
