"""The catalogue finds a memory's row by bisecting its ids while they ascend (rows are read in id order) and by a
dict once a row came in below the highest id (a PostgreSQL id committed late); both give the same positions; and
appending rows, also to a catalogue restored from the review cache, writes into the room after the columns."""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np

from mneme_tui.memory.curation.catalogue import Catalogue


def _row(memory_id: int, content: str) -> tuple:
    """A row in ``CURATION_COLUMNS`` order."""
    return (memory_id, "ledger", "pitfall", "Operations", content, "2026-11-01 00:00:00", "active", 0)


def test_positions_while_ids_ascend_and_after_one_came_late() -> None:
    catalogue = Catalogue()
    catalogue._apply([_row(5, "the pool times out after 5 s"), _row(6, "the pool retries twice")])
    catalogue._apply([_row(9, "the ledger locks on write")])
    assert catalogue._positions is None  # ascending: bisection, no dict
    assert catalogue.positions_of(np.array([9, 5, 7, 6, 1, 10])).tolist() == [2, 0, -1, 1, -1, -1]
    catalogue._apply([_row(3, "a late row, below the highest id")])
    assert catalogue._positions is not None
    assert catalogue.positions_of(np.array([3, 9, 5, 7])).tolist() == [3, 2, 0, -1]
    catalogue._apply([_row(3, "the late row, edited"), _row(11, "a new row after it")])
    assert catalogue.rows.ids.tolist() == [5, 6, 9, 3, 11]
    assert catalogue.rows.texts[3] == "the late row, edited"
    assert catalogue.positions_of(np.array([11])).tolist() == [4]


def test_appending_writes_into_the_room_after_the_columns() -> None:
    catalogue = Catalogue()
    catalogue._apply([_row(n, f"lesson number {n} about the pool") for n in range(1, 100)])
    signatures = catalogue.rows.signatures
    catalogue._apply([_row(100, "one more lesson about the pool")])
    assert catalogue.rows.signatures.__array_interface__["data"][0] == signatures.__array_interface__["data"][0]
    assert catalogue.rows.ids.tolist() == list(range(1, 101)) and len(catalogue.rows.texts) == 100


def test_a_restored_catalogue_appends_into_room_too() -> None:
    built = Catalogue()
    built._apply([_row(n, f"lesson number {n} about the pool") for n in range(1, 50)])
    rows = built.rows
    kept = replace(
        rows, **{f.name: np.array(getattr(rows, f.name)) for f in fields(rows) if f.name not in ("repos", "texts")}
    )
    restored = Catalogue()
    restored.restore(kept, max_id=49, update_seq=0)
    before = {
        f.name: getattr(restored.rows, f.name).__array_interface__["data"][0]
        for f in fields(rows)
        if f.name not in ("repos", "texts")
    }
    restored._apply([_row(50, "one more lesson about the pool")])
    after = {name: getattr(restored.rows, name).__array_interface__["data"][0] for name in before}
    assert after == before
    assert restored.rows.ids.tolist() == list(range(1, 51)) and restored.positions_of(np.array([50])).tolist() == [49]
