"""Term-major postings from row-major ids, built a block of rows at a time.

Both indexes (the spec's tokens, ``index.MemoryIndex``; the analysed terms, ``term_features.TermFeatures``)
keep each row's ids in one flat array in row order and derive the postings (for each id, the rows it occurs
in, ascending) for queries and for the snapshot. One ``argsort`` over every entry needs an int64 order the
size of the store plus the gathered copies (about 400 MB at a million memories, the first run's peak); here
each block of rows is sorted on its own (16 bits of the ids at a time: :func:`stable_order`) and scattered to its
place, so the extra memory is one block's.
"""

from __future__ import annotations

import numpy as np

BLOCK_ENTRIES = 1 << 21
"""Entries sorted at a time (16 MB of int64 order)."""


def build_postings(
    ids: np.ndarray, lengths: np.ndarray, vocab_size: int, *carried: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """(rows, starts, carried arrays in posting order) of the flat ``ids`` whose rows have ``lengths`` entries:
    the rows of id ``t`` are ``rows[starts[t] : starts[t + 1]]`` (int32, ascending), and each array in
    ``carried`` (one value per entry, such as a term frequency) is reordered the same way."""
    counts = np.bincount(ids, minlength=vocab_size)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    rows = np.empty(ids.size, dtype=np.int32)
    moved = [np.empty(ids.size, dtype=array.dtype) for array in carried]
    filled = starts[:-1].copy()  # the next free place of each id's list
    entry_ends = np.cumsum(lengths)
    first_row = 0
    while first_row < lengths.size:
        begin = int(entry_ends[first_row - 1]) if first_row else 0
        last_row = max(int(np.searchsorted(entry_ends, begin + BLOCK_ENTRIES, side="right")), first_row + 1)
        end = int(entry_ends[last_row - 1])
        block = ids[begin:end]
        order = stable_order(block)
        ranked = block[order]
        block_counts = np.bincount(block, minlength=vocab_size)
        block_starts = np.cumsum(block_counts) - block_counts
        places = filled[ranked] + np.arange(ranked.size) - block_starts[ranked]
        owners = np.repeat(np.arange(first_row, last_row, dtype=np.int32), lengths[first_row:last_row])
        rows[places] = owners[order]
        for source, target in zip(carried, moved, strict=True):
            target[places] = source[begin:end][order]
        filled += block_counts
        first_row = last_row
    return rows, starts, moved


def stable_order(ids: np.ndarray) -> np.ndarray:
    """``np.argsort(ids, kind="stable")`` of non-negative ids, as radix passes over 16 bits at a time (numpy's
    stable sort of ``uint16`` is a radix sort; of wider integers a timsort, about four times slower here)."""
    order = np.argsort(ids.astype(np.uint16), kind="stable")  # the low 16 bits (``astype`` keeps them)
    shift, top = 16, int(ids.max()) if ids.size else 0
    while top >> shift:
        order = order[np.argsort((ids[order] >> shift).astype(np.uint16), kind="stable")]
        shift += 16
    return order
