"""The sync's write slices: the lock is free during a pause that is due, and the block is that pause's time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from provenances import SAVED

from mneme_tui.errors import MnemeError
from mneme_tui.legion.mirror import write_slices
from mneme_tui.legion.mirror.write_slices import GAP_SECONDS, WriteSlices
from mneme_tui.memory.persistence import sqlite_dialect
from mneme_tui.memory.store import Store


class FakeClock:
    """``time`` for ``write_slices``: ``perf_counter`` moves only when told to, ``sleep`` is recorded."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(write_slices, "time", fake)
    return fake


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "m.db")
    yield opened
    opened.close()


def _save(store: Store, text: str) -> int:
    return store.mint(text, kind="reflection", topic="t", repo_id="p", provenance=SAVED).id


def test_another_writer_saves_during_a_pause_but_not_around_it(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_dialect, "BUSY_TIMEOUT_MS", 0)  # the other writer does not wait for the lock
    other = Store(tmp_path / "m.db")
    try:
        with WriteSlices(store, max_hold=0.0) as slices:  # every pause is due
            first = _save(store, "written before the pause")
            with pytest.raises(MnemeError):
                _save(other, "the lock is held")
            with slices.pause():
                saved = _save(other, "saved while the sync prepares its next rows")
            with pytest.raises(MnemeError):
                _save(other, "the lock is held again")
        assert other.get(first).content == "written before the pause"  # committed by the pause
        assert other.get(saved).content == "saved while the sync prepares its next rows"
    finally:
        other.close()


def test_a_pause_runs_in_the_lock_until_one_is_due(clock: FakeClock, store: Store) -> None:
    with WriteSlices(store, max_hold=0.5) as slices:
        clock.now += 0.2
        with slices.pause():  # held 0.2 s, and as long again would be 0.4 s: not due, the block runs in the lock
            clock.now += 0.05
        clock.now += 0.05
        with slices.pause():  # held 0.3 s, 0.1 s since the last pause: not due
            clock.now += 0.1
        clock.now += 0.1
        assert clock.sleeps == []
        with slices.pause():  # held 0.5 s: due; a block shorter than the gap is stretched to it
            clock.now += 0.04
        assert clock.sleeps == [round(GAP_SECONDS - 0.04, 6)]
        clock.now += 0.3
    assert slices.longest == pytest.approx(0.5)


def test_a_pause_as_long_as_the_gap_starts_a_new_slice(clock: FakeClock, store: Store) -> None:
    with WriteSlices(store, max_hold=0.5) as slices:
        for _ in range(5):
            clock.now += 0.3
            with slices.pause():
                clock.now += GAP_SECONDS + 0.01  # making the next rows took longer than the gap
        clock.now += 0.3
    assert clock.sleeps == []
    assert slices.longest == pytest.approx(0.3)


def test_a_boundary_pauses_once_the_lock_was_held_long_enough(clock: FakeClock, store: Store) -> None:
    with WriteSlices(store, max_hold=0.5) as slices:
        clock.now += 0.3
        slices.boundary()
        clock.now += 0.3
        slices.boundary()
        clock.now += 0.1
    assert clock.sleeps == [GAP_SECONDS]
    assert slices.longest == pytest.approx(0.6)
