"""Arrays that grow at the end without being copied on every append.

Each growing array of an owner is the prefix of a larger buffer; an append writes into the room after
the prefix and hands back a longer view of the same buffer. A snapshot's arrays are mapped with such a
room after them (zeros in the file), so a cold process that catches up on rows written since the snapshot
writes them into the copy-on-write map: only the pages it touches cost memory, and nothing is copied.
When the room runs out the array moves to a buffer a quarter larger than needed (amortised, as a
list grows).
"""

from __future__ import annotations

import numpy as np

MIN_ROOM = 1_024
"""The least room (rows) a new buffer leaves after its rows."""


def room_for(rows: int) -> int:
    """The spare rows to leave after ``rows`` rows: a quarter more, at least ``MIN_ROOM``."""
    return max(rows // 4, MIN_ROOM)


class GrowingArrays:
    """The buffers behind an owner's growing arrays, by name."""

    def __init__(self) -> None:
        self._buffers: dict[str, tuple[np.ndarray, int]] = {}  # name -> (buffer, rows in use)

    def adopt(self, name: str, buffer: np.ndarray, used: int) -> np.ndarray:
        """Take ``buffer`` (its first ``used`` rows in use, the rest room) as ``name``'s; the rows in use."""
        self._buffers[name] = (buffer, used)
        return buffer[:used]

    def reserve(self, name: str, array: np.ndarray, total: int) -> np.ndarray:
        """``array`` as the front of a buffer with room for ``total`` rows (moved into a new one now if its
        buffer is smaller), so appends up to ``total`` rows copy nothing; pages never written cost no memory."""
        used = array.shape[0]
        buffer, in_use = self._buffers.get(name, (None, -1))
        if buffer is not None and in_use == used and buffer.shape[0] >= total and _starts(buffer, array):
            return array
        buffer = np.empty((max(total, used), *array.shape[1:]), dtype=array.dtype)
        buffer[:used] = array
        self._buffers[name] = (buffer, used)
        return buffer[:used]

    def append(self, name: str, array: np.ndarray, new: np.ndarray) -> np.ndarray:
        """``np.concatenate([array, new])``, written in place into the room after ``array`` when it is the
        array last handed out for ``name`` and the room is large enough; else into a new, larger buffer."""
        used, total = array.shape[0], array.shape[0] + new.shape[0]
        buffer, in_use = self._buffers.get(name, (None, -1))
        if buffer is None or in_use != used or buffer.shape[0] < total or not _starts(buffer, array):
            buffer = np.empty((total + room_for(total), *array.shape[1:]), dtype=array.dtype)
            buffer[:used] = array
        buffer[used:total] = new
        self._buffers[name] = (buffer, total)
        return buffer[:total]


def _starts(buffer: np.ndarray, array: np.ndarray) -> bool:
    """True when ``array`` is a view of ``buffer``'s first rows (same memory, type and row shape)."""
    return (
        array.dtype == buffer.dtype
        and array.shape[1:] == buffer.shape[1:]
        and array.__array_interface__["data"][0] == buffer.__array_interface__["data"][0]
    )
