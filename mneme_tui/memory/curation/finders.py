"""The proposal kinds computed from the catalogue's arrays: duplicate, conflict and cold (stale-by-code is
``stale_proposals.py``). Each finder returns ``Found`` groups; ``proposals.py`` turns them into proposals."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from mneme_tui.memory.curation import text_features as T
from mneme_tui.memory.curation.catalogue import Catalogue

NEAR_THRESHOLD = 0.7
"""Word-bigram Jaccard similarity from which two texts are near duplicates: one word added to or changed in a
sentence of a dozen words keeps 0.7-0.9 of its bigrams (the same lesson reworded); two different lessons that
share a phrase stay well under it."""
BUCKET_LIMIT = 16
"""An LSH bucket with more distinct texts than this is boilerplate they share (a template's phrase), not evidence:
it proposes no pairs (copies of one text enter the buckets once, so a text saved many times is not cut)."""
SCREEN = NEAR_THRESHOLD - 0.1
"""Pairs whose MinHash estimate (32 values: its error is about ±0.08) is under this are not compared exactly."""
CHUNK = 100_000
"""Candidate pairs whose signatures are compared at a time (bounded memory)."""


@dataclass(frozen=True, slots=True)
class Found:
    """One group a finder proposes: positions into the catalogue, the one to keep, a score and the evidence."""

    kind: str
    positions: tuple[int, ...]
    keep: int | None
    action: str
    score: float
    reason: str


def duplicates(catalogue: Catalogue, scope: np.ndarray) -> list[Found]:
    """Groups of active memories of one repo and kind whose texts are equal after normalising, or near
    (``NEAR_THRESHOLD``) with the same paths, figures and polarity; ``scope`` masks the rows considered."""
    rows = catalogue.rows
    live = np.flatnonzero(scope & rows.active)
    first, second = _pairs(rows.exact[live], live, limit=None)
    similarity = np.ones(first.size)
    near_first, near_second, near_similarity = _near_pairs(catalogue, live)
    groups = _components(np.concatenate([first, near_first]), np.concatenate([second, near_second]))
    values = defaultdict(list)
    for a, b, value in zip(
        np.concatenate([first, near_first]).tolist(),
        np.concatenate([second, near_second]).tolist(),
        np.concatenate([similarity, near_similarity]).tolist(),
    ):
        values[a].append(value)
        values[b].append(value)
    found = []
    for members in groups:
        score = float(np.mean([v for p in members for v in values[p]]))
        key = ("duplicate", *members, *catalogue.digests_of(members), *(int(rows.access[p]) for p in members), score)
        found.append(catalogue.remembered(key, _duplicate, catalogue, members, score))
    return found


def _duplicate(catalogue: Catalogue, members: list[int], score: float) -> Found:
    rows = catalogue.rows
    keep = max(members, key=lambda p: (int(rows.access[p]), float(rows.created_days[p]), int(rows.ids[p])))
    exact = len({int(rows.exact[p]) for p in members}) == 1
    return Found(
        "duplicate",
        tuple(members),
        keep,
        "merge",
        1.0 if exact else score,
        _duplicate_reason(catalogue, members, keep, exact, score),
    )


def _duplicate_reason(catalogue: Catalogue, members: list[int], keep: int, exact: bool, score: float) -> str:
    rows = catalogue.rows
    ids = ", ".join(f"#{int(rows.ids[p])}" for p in members)
    how = (
        "the same text after normalising case, whitespace and punctuation"
        if exact
        else (f"nearly the same text (word-bigram similarity {score:.2f} ≥ {NEAR_THRESHOLD})")
    )
    why = "most read" if int(rows.access[keep]) > min(int(rows.access[p]) for p in members) else "newest"
    return f"{len(members)} memories ({ids}) say {how}; keep #{int(rows.ids[keep])} ({why})"


def _pairs(keys: np.ndarray, positions: np.ndarray, limit: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of ``positions`` with equal ``keys`` (none from groups bigger than ``limit``), as two arrays."""
    if keys.size < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    run_start = np.concatenate([[True], ordered[1:] != ordered[:-1]])
    run_id = np.cumsum(run_start) - 1
    run_size = np.bincount(run_id)[run_id]
    allowed = run_size <= (limit or keys.size)
    firsts, seconds = [], []
    for offset in range(1, int(run_size[allowed].max(initial=1))):
        same = (run_id[offset:] == run_id[:-offset]) & allowed[offset:]
        firsts.append(positions[order[:-offset][same]])
        seconds.append(positions[order[offset:][same]])
    if not firsts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(firsts), np.concatenate(seconds)


def _near_pairs(catalogue: Catalogue, live: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of live positions sharing an LSH band whose exact similarity reaches ``NEAR_THRESHOLD``, with the
    same paths, figures and polarity, and not the same text (those are exact)."""
    rows = catalogue.rows
    distinct = live[np.unique(rows.exact[live], return_index=True)[1]]  # one per exact text: the rest join it
    found: dict[tuple[int, int], float] = {}
    for band in range(T.BANDS):
        for pairs in _band_pairs(catalogue, distinct, band):
            found.update(((a, b), value) for a, b, value in pairs)
    if not found:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    (a_s, b_s), values = zip(*found), found.values()
    return np.array(a_s, np.int64), np.array(b_s, np.int64), np.fromiter(values, float, len(found))


def _band_pairs(catalogue: Catalogue, distinct: np.ndarray, band: int) -> list[tuple[tuple[int, int, float], ...]]:
    """The near pairs of each bucket of one band (no pairs from a bucket of more than ``BUCKET_LIMIT``)."""
    keys = catalogue.rows.bands[distinct, band]
    if keys.size < 2:
        return []
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    sizes = np.diff(np.concatenate([starts, [keys.size]]))
    wanted = np.flatnonzero((sizes >= 2) & (sizes <= BUCKET_LIMIT))
    return _compare_buckets(catalogue, distinct[order], starts[wanted], sizes[wanted])


def _compare_buckets(
    catalogue: Catalogue, members: np.ndarray, starts: np.ndarray, sizes: np.ndarray
) -> list[tuple[tuple[int, int, float], ...]]:
    """For each bucket ``members[start:start + size]``, its pairs that are near duplicates (most are
    empty). Buckets are not remembered: a review after a small change compares only the partitions it touched
    (``partitions.py``), and a pair's exact similarity, the costly part, is remembered."""
    rows = catalogue.rows
    bucket = np.repeat(np.arange(starts.size), sizes)
    place = starts[bucket] + np.arange(bucket.size) - (np.cumsum(sizes) - sizes)[bucket]  # each member's index
    firsts, seconds, owners = [], [], []
    for offset in range(1, int(sizes.max(initial=1))):
        same = bucket[offset:] == bucket[:-offset]
        firsts.append(members[place[:-offset][same]])
        seconds.append(members[place[offset:][same]])
        owners.append(bucket[offset:][same])
    result: list[list[tuple[int, int, float]]] = [[] for _ in range(starts.size)]
    if not firsts:
        return [()] * starts.size
    first, second, owner = np.concatenate(firsts), np.concatenate(seconds), np.concatenate(owners)
    alike = (rows.exact[first] != rows.exact[second]) & (rows.stances[first] == rows.stances[second])
    first, second, owner = first[alike], second[alike], owner[alike]  # the cheap tests before the signatures
    estimate = np.concatenate(
        [np.zeros(0)]
        + [
            (rows.signatures[first[at : at + CHUNK]] == rows.signatures[second[at : at + CHUNK]]).mean(axis=1)
            for at in range(0, first.size, CHUNK)
        ]
    )
    keep = estimate >= SCREEN
    for a, b, n in zip(first[keep].tolist(), second[keep].tolist(), owner[keep].tolist()):
        low, high = min(a, b), max(a, b)
        value = catalogue.remembered(
            ("near", low, high, *catalogue.digests_of((low, high))), _similarity, catalogue, low, high
        )
        if value >= NEAR_THRESHOLD:
            result[n].append((low, high, value))
    return [tuple(pairs) for pairs in result]


def _similarity(catalogue: Catalogue, a: int, b: int) -> float:
    """The word-bigram Jaccard similarity of two memories, 0 when they name other paths."""
    if catalogue.anchors(a) != catalogue.anchors(b):
        return 0.0
    return T.jaccard(catalogue.shingles(a), catalogue.shingles(b))


def _components(first: np.ndarray, second: np.ndarray) -> list[list[int]]:
    """The connected groups of the pairs, each sorted, in the order of their first node to appear in the pairs
    (``first[0]``, ``second[0]``, ``first[1]``, ...): labels spread over the pairs' arrays until each node holds
    its group's smallest node."""
    nodes, first_seen = np.unique(np.column_stack([first, second]).ravel(), return_index=True)
    if not nodes.size:
        return []
    a, b = np.searchsorted(nodes, first), np.searchsorted(nodes, second)
    label = np.arange(nodes.size)
    while True:
        low = np.minimum(label[a], label[b])
        spread = label.copy()
        np.minimum.at(spread, a, low)
        np.minimum.at(spread, b, low)
        spread = spread[spread]  # each node jumps to its label's label
        if np.array_equal(spread, label):
            break
        label = spread
    seen = np.full(nodes.size, 2 * first.size)  # above every index into the pairs
    np.minimum.at(seen, label, first_seen)
    order = np.lexsort((nodes, seen[label]))  # by the group's first appearance, then node
    sizes = np.bincount(label)[label[order]]
    starts = np.flatnonzero(np.concatenate([[True], label[order][1:] != label[order][:-1]]))
    members = nodes[order].tolist()
    return [members[start : start + int(sizes[start])] for start in starts.tolist()]


def conflicts(catalogue: Catalogue, scope: np.ndarray) -> list[Found]:
    """Active memories of one repo and topic with the same claim skeleton but other figures or the other
    polarity ("busy timeout 5 s" / "10 s"; "use X" / "never use X"): the newest is proposed to supersede
    the others."""
    rows = catalogue.rows
    live = np.flatnonzero(scope & rows.active & (rows.claim_keys != 0))
    first, second = _pairs(rows.claim_keys[live], live, BUCKET_LIMIT)
    differ = rows.stances[first] != rows.stances[second]
    found = []
    for members, digests in _newest_per_text(catalogue, _components(first[differ], second[differ])):
        found.append(catalogue.remembered(("conflict", *members, *digests), _conflict, catalogue, members))
    return found


def _newest_per_text(catalogue: Catalogue, groups: list[list[int]]) -> list[tuple[list[int], tuple[int, ...]]]:
    """Of each group, the newest memory of each exact text (by creation, then id), oldest first, with their
    ``digests_of``; only the groups left with two or more. Worked out for every group at once over the columns."""
    rows = catalogue.rows
    sizes = np.fromiter(map(len, groups), np.int64, len(groups))
    flat = np.fromiter((p for group in groups for p in group), np.int64, int(sizes.sum()))
    group_of = np.repeat(np.arange(len(groups)), sizes)
    flat = flat[np.lexsort((rows.ids[flat], rows.created_days[flat], group_of))]  # by group, oldest first
    exact = rows.exact[flat]
    by_text = np.lexsort((np.arange(flat.size), exact, group_of))  # the same text in one group: newest last
    last = np.ones(flat.size, bool)
    last[by_text[:-1]] = (group_of[by_text[1:]] != group_of[by_text[:-1]]) | (exact[by_text[1:]] != exact[by_text[:-1]])
    flat, group_of = flat[last], group_of[last]
    digests = [digest * 2 + active for digest, active in zip(rows.digests[flat].tolist(), rows.active[flat].tolist())]
    ends = np.cumsum(np.bincount(group_of, minlength=len(groups))).tolist()
    positions = flat.tolist()
    return [
        (positions[start:end], tuple(digests[start:end]))
        for start, end in zip([0, *ends[:-1]], ends)
        if end - start >= 2
    ]


def _conflict(catalogue: Catalogue, members: list[int]) -> Found:
    rows = catalogue.rows
    newest = members[-1]
    stances = [T.stance(T.words_of(rows.texts[p])) for p in members]
    polarity = len({negations % 2 for _, negations in stances}) > 1
    what = (
        "but one negates the other"
        if polarity
        else "with other figures (" + " / ".join(" ".join(numbers) or "none" for numbers, _ in stances) + ")"
    )
    ids = ", ".join(f"#{int(rows.ids[p])}" for p in members)
    return Found(
        "conflict",
        tuple(sorted(members)),
        newest,
        "supersede",
        0.95 if polarity else 0.9,
        f"{ids} say the same thing about one topic {what}; the newest, #{int(rows.ids[newest])}, supersedes the older",
    )


@dataclass(frozen=True)
class Idle:
    """The memories that are cold now, worked out for the whole store at once (``idle``): their positions, the
    days since they were last read (or created, never read), and whether a task's read is what is known."""

    positions: np.ndarray
    days: np.ndarray
    read: np.ndarray

    def marks(self, partition_of: np.ndarray) -> dict[int, int]:
        """Per partition (of ``partition_of``) that holds any of these memories, a hash of which ones they are,
        their whole days and how they were read: equal for two clocks (or two sets of reads) that give the
        partition the same cold proposals, so only the partitions whose mark moved are found again."""
        if not self.positions.size:
            return {}
        with np.errstate(over="ignore"):
            each = T.mixed(
                self.positions.astype(np.uint64) * T.MIX
                + np.rint(self.days).astype(np.int64).view(np.uint64) * np.uint64(2)
                + self.read.astype(np.uint64)
            )
        partitions = partition_of[self.positions]
        order = np.argsort(partitions, kind="stable")
        ordered = partitions[order]
        starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
        with np.errstate(over="ignore"):
            sums = np.add.reduceat(each[order], starts)
        return dict(zip(ordered[starts].tolist(), sums.tolist()))


def idle(catalogue: Catalogue, *, now_days: float, cold_days: int, last_read_days: dict[int, float]) -> Idle:
    """Active advisory memories no task has read for ``cold_days``: read last that long ago, or never read
    (``access_count`` 0) and created that long ago. One read at an unknown time (an imported count) is no
    evidence of being cold."""
    rows = catalogue.rows
    last = np.full(rows.ids.size, np.nan)
    places = catalogue.positions_of(np.fromiter(last_read_days, np.int64, len(last_read_days)))
    read_days = np.fromiter(last_read_days.values(), float, len(last_read_days))
    last[places[places >= 0]] = read_days[places >= 0]
    since = np.where(np.isnan(last), rows.created_days, last)
    unknown = np.isnan(last) & (rows.access > 0)
    idle_days = now_days - since
    positions = np.flatnonzero(rows.active & rows.advisory & ~unknown & (idle_days >= cold_days))
    return Idle(positions, idle_days[positions], ~np.isnan(last[positions]))


def cold(catalogue: Catalogue, scope: np.ndarray, *, idle: Idle, cold_days: int, pinned: set[int]) -> list[Found]:
    """The ``idle`` memories in ``scope``, but pinned ones (a pinned memory is never cold)."""
    rows = catalogue.rows
    inside = scope[idle.positions]
    found = []
    for position, idle_days, read in zip(
        idle.positions[inside].tolist(), idle.days[inside].tolist(), idle.read[inside].tolist()
    ):
        memory_id = int(rows.ids[position])
        if memory_id in pinned:
            continue
        days = round(idle_days)
        how = "last read by a task" if read else "created, never read by a task,"
        key = ("cold", position, *catalogue.digests_of((position,)), days, cold_days, how)
        found.append(
            catalogue.remembered(
                key,
                Found,
                "cold",
                (position,),
                None,
                "dismiss",
                round(0.4 + 0.1 * min(days / cold_days, 2.0), 3),
                f"#{memory_id} is advisory and was {how} {days} days ago (cold after {cold_days} days)",
            )
        )
    return found
