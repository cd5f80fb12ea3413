"""The finders' connected groups (``finders._components``, numpy label spreading) are those of a union-find over
the pairs, in the same order (by the first node of each group to appear in the pairs), on random graphs, long
chains and no pairs at all."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from mneme_tui.memory.curation.finders import _components


def _union_find(first: np.ndarray, second: np.ndarray) -> list[list[int]]:
    """The groups as the finders made them before (a dict union-find, groups in the order nodes entered it)."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(first.tolist(), second.tolist()):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = defaultdict(list)
    for node in list(parent):
        groups[find(node)].append(node)
    return [sorted(members) for members in groups.values()]


def test_groups_and_their_order_are_a_union_finds() -> None:
    rng = np.random.default_rng(20261202)
    for _ in range(500):
        nodes, pairs = int(rng.integers(1, 200)), int(rng.integers(0, 300))
        first, second = rng.integers(0, nodes, pairs), rng.integers(0, nodes, pairs)
        first, second = first[first != second], second[first != second]
        assert _components(first, second) == _union_find(first, second)


def test_long_chains_and_no_pairs() -> None:
    up = np.arange(0, 3_000)
    assert _components(up, up + 1) == _union_find(up, up + 1) == [list(range(3_001))]
    down = np.arange(3_000, 0, -1)
    assert _components(down, down - 1) == _union_find(down, down - 1)
    none = np.zeros(0, np.int64)
    assert _components(none, none) == []
