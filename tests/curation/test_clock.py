"""The cold kind as the clock moves: a review kept up to date (its cold proposals kept while the clock makes the
same memories cold by the same whole number of days) equals one computed from nothing at every clock, within a
day, across day boundaries and past the threshold of more memories."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from mneme_tui import config
from mneme_tui.bench.synthetic import generate
from mneme_tui.memory.curation.proposals import open_proposals
from mneme_tui.memory.store import Store

HOURS = (0, 1, 5, 11, 13, 30, 24 * 40, 24 * 200)


def test_a_moving_clock_gives_the_proposals_computed_from_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = config.now()
    path = tmp_path / "clock.db"
    live = Store(path)
    live.mint_ids(generate(2_000, now=start))
    counts = []
    for hours in HOURS:
        monkeypatch.setenv("MNEME_NOW", (start + timedelta(hours=hours)).isoformat())
        kept = open_proposals(live, None, kinds=frozenset({"cold"}))
        fresh = Store(path)
        assert kept == open_proposals(fresh, None, kinds=frozenset({"cold"})), hours
        fresh.close()
        counts.append(len(kept))
    assert counts[0] > 0 and counts[-1] > counts[0]  # more memories are cold 200 days on
    live.close()
