"""Proposals kept per partition, so a review after a small change finds again only where it changed.

Every pair a finder compares shares a partition: duplicates and cold memories one repo and kind
(``Rows.repo_kinds``: exact and LSH keys are mixed with both), conflicts one repo and topic (``Rows.repo_topics``:
claim keys are). A finder run over some whole partitions therefore finds there exactly what it finds over the
whole store; the catalogue says which partitions rows added or changed since a version are (or were) in, and only
those are found again."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from mneme_tui.memory.curation.catalogue import Catalogue
from mneme_tui.memory.curation.finders import Found

R = TypeVar("R")


def found_in_partitions(
    catalogue: Catalogue,
    slot: tuple[str, str | None],
    depends: str,
    column: str,
    scope: np.ndarray,
    find: Callable[[np.ndarray], list[Found]],
    convert: Callable[[Found], R],
    marks: dict[int, int] | None = None,
) -> list[R]:
    """``convert`` of what ``find(scope)`` finds. ``slot`` names the finder and the scope (kind and repo); the
    last call's results are kept there and, while ``depends`` (what else the finder reads: settings and pins, as
    canonical text) is unchanged, only the partitions of ``column`` that rows changed since are found again, and
    those whose mark in ``marks`` (a hash of what the finder reads there besides the rows: clock, task reads)
    moved."""
    memo_key = ("partitions", slot, column)
    state = catalogue.memo.get(memo_key)
    partition_of = getattr(catalogue.rows, column)
    marks = marks or {}
    if state is None or state[0] != depends:
        by_partition = _grouped(find(scope), partition_of, convert)
    else:
        _, version, old_marks, by_partition = state
        moved = [key for key in marks.keys() | old_marks.keys() if marks.get(key) != old_marks.get(key)]
        dirty = np.concatenate([catalogue.changed_since(version, column), np.array(moved, dtype=np.uint64)])
        if dirty.size:
            gone = set(dirty.tolist())
            by_partition = {p: items for p, items in by_partition.items() if p not in gone}
            by_partition.update(_grouped(find(scope & np.isin(partition_of, dirty)), partition_of, convert))
    catalogue.memo[memo_key] = (depends, catalogue.version, marks, by_partition)
    return [item for items in by_partition.values() for item in items]


def _grouped(found: list[Found], partition_of: np.ndarray, convert: Callable[[Found], R]) -> dict[int, list[R]]:
    """``convert`` of each found group, by the partition of its first memory."""
    grouped: dict[int, list[R]] = defaultdict(list)
    for item in found:
        grouped[int(partition_of[item.positions[0]])].append(convert(item))
    return dict(grouped)


KeptState = tuple[tuple[str, str | None], str, str, dict[int, int], dict[int, list[Any]]]
"""One finder's results as a snapshot keeps them: slot, column, depends, marks, and the results by partition."""


def current_states(catalogue: Catalogue) -> list[KeptState]:
    """The finders' results that reflect the catalogue's rows as they are now (none found before a change)."""
    return [
        (key[1], key[2], state[0], state[2], state[3])
        for key, state in catalogue.memo.items()
        if key[0] == "partitions" and state[1] == catalogue.version
    ]


def restore_states(catalogue: Catalogue, states: list[KeptState]) -> None:
    """Take up results kept with the rows the catalogue was just restored from (``current_states`` then)."""
    for slot, column, depends, marks, by_partition in states:
        catalogue.memo[("partitions", slot, column)] = (depends, catalogue.version, marks, by_partition)
