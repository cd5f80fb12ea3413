"""Proposals kept per partition, so a review after a small change finds again only where it changed.

Every pair a finder compares shares a partition: duplicates and cold memories one repo and kind
(``Rows.repo_kinds``: exact and LSH keys are mixed with both), conflicts one repo and topic (``Rows.repo_topics``:
claim keys are). A finder run over some whole partitions therefore finds there exactly what it finds over the
whole store; the catalogue says which partitions rows added or changed since a version are (or were) in, and only
those are found again."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable
from typing import TypeVar

import numpy as np

from mneme_tui.memory.curation.catalogue import Catalogue
from mneme_tui.memory.curation.finders import Found

R = TypeVar("R")


def found_in_partitions(catalogue: Catalogue, slot: Hashable, depends: Hashable, column: str, scope: np.ndarray,
                        find: Callable[[np.ndarray], list[Found]], convert: Callable[[Found], R]) -> list[R]:
    """``convert`` of what ``find(scope)`` finds. ``slot`` names the finder and the scope; the last call's
    results are kept there and, while ``depends`` (what else the finder reads: clock, pins, reads) is unchanged,
    only the partitions of ``column`` that rows changed since are found again."""
    memo_key = ("partitions", slot, column)
    state = catalogue.memo.get(memo_key)
    partition_of = getattr(catalogue.rows, column)
    if state is None or state[0] != depends:
        by_partition = _grouped(find(scope), partition_of, convert)
    else:
        _, version, by_partition = state
        dirty = catalogue.changed_since(version, column)
        if dirty.size:
            gone = set(dirty.tolist())
            by_partition = {p: items for p, items in by_partition.items() if p not in gone}
            by_partition.update(_grouped(find(scope & np.isin(partition_of, dirty)), partition_of, convert))
    catalogue.memo[memo_key] = (depends, catalogue.version, by_partition)
    return [item for items in by_partition.values() for item in items]


def _grouped(found: list[Found], partition_of: np.ndarray, convert: Callable[[Found], R]) -> dict[int, list[R]]:
    """``convert`` of each found group, by the partition of its first memory."""
    grouped: dict[int, list[R]] = defaultdict(list)
    for item in found:
        grouped[int(partition_of[item.positions[0]])].append(convert(item))
    return dict(grouped)
