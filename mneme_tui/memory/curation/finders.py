"""The proposal kinds computed from the catalogue's arrays: duplicate, conflict and cold (stale-by-code is
``stale_proposals.py``). Each finder returns ``Found`` groups; ``proposals.py`` turns them into proposals."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from mneme_tui.memory.curation import text as T
from mneme_tui.memory.curation.catalogue import Catalogue

NEAR_THRESHOLD = 0.7
"""Word-bigram Jaccard similarity from which two texts are near duplicates: one word changed in a sentence of
twelve words keeps 0.69-0.83 of the bigrams (the same lesson reworded); two different lessons from one template
share under 0.5 (measured on the demo and the bench's synthetic memories)."""
BUCKET_LIMIT = 64
"""An LSH bucket with more memories than this is boilerplate they share, not evidence: it proposes no pairs."""
SCREEN = NEAR_THRESHOLD - 0.15
"""Pairs whose MinHash estimate is under this are not compared exactly (the estimate's error is about ±0.08)."""


@dataclass(frozen=True)
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
    (``NEAR_THRESHOLD``) and naming the same paths; ``scope`` masks the rows considered."""
    rows = catalogue.rows
    live = np.flatnonzero(scope & rows.active)
    parent: dict[int, int] = {}
    nodes: set[int] = set()
    similarity: dict[int, list[float]] = defaultdict(list)

    def find(x: int) -> int:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    def join(a: int, b: int, value: float) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
        nodes.update((a, b))
        similarity[a].append(value)
        similarity[b].append(value)

    for group in _runs(rows.exact[live], live, limit=None):
        for other in group[1:]:
            join(int(group[0]), int(other), 1.0)
    for a, b, value in _near_pairs(catalogue, live):
        join(a, b, value)
    components: dict[int, list[int]] = defaultdict(list)
    for position in nodes:
        components[find(position)].append(position)
    found = []
    for members in components.values():
        members.sort()
        keep = max(members, key=lambda p: (int(rows.access[p]), float(rows.created_days[p]), int(rows.ids[p])))
        exact = len({int(rows.exact[p]) for p in members}) == 1
        score = 1.0 if exact else float(np.mean([v for p in members for v in similarity[p]]))
        found.append(Found("duplicate", tuple(members), keep, "merge", score, _duplicate_reason(catalogue, members,
                                                                                               keep, exact, score)))
    return found


def _duplicate_reason(catalogue: Catalogue, members: list[int], keep: int, exact: bool, score: float) -> str:
    rows = catalogue.rows
    ids = ", ".join(f"#{int(rows.ids[p])}" for p in members)
    how = "the same text after normalising case, whitespace and punctuation" if exact else (
        f"nearly the same text (word-bigram similarity {score:.2f} ≥ {NEAR_THRESHOLD})")
    why = "most read" if int(rows.access[keep]) > min(int(rows.access[p]) for p in members) else "newest"
    return f"{len(members)} memories ({ids}) say {how}; keep #{int(rows.ids[keep])} ({why})"


def _runs(keys: np.ndarray, positions: np.ndarray, limit: int | None) -> list[np.ndarray]:
    """The groups of ``positions`` whose ``keys`` are equal (two or more, at most ``limit``)."""
    if not keys.size:
        return []
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    cuts = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
    starts = np.concatenate([[0], cuts])
    ends = np.concatenate([cuts, [keys.size]])
    sizes = ends - starts
    wanted = (sizes >= 2) & (sizes <= (limit or keys.size))
    return [positions[order[s:e]] for s, e in zip(starts[wanted], ends[wanted])]


def _near_pairs(catalogue: Catalogue, live: np.ndarray) -> list[tuple[int, int, float]]:
    """Pairs of live positions sharing an LSH band whose exact similarity reaches ``NEAR_THRESHOLD``."""
    rows = catalogue.rows
    firsts, seconds = [], []
    for band in range(T.BANDS):
        for group in _runs(rows.bands[live, band], live, BUCKET_LIMIT):
            a, b = np.triu_indices(group.size, 1)
            firsts.append(group[a])
            seconds.append(group[b])
    if not firsts:
        return []
    pairs = np.unique(np.stack([np.concatenate(firsts), np.concatenate(seconds)], axis=1), axis=0)
    first, second = pairs[:, 0], pairs[:, 1]
    estimate = (rows.signatures[first] == rows.signatures[second]).mean(axis=1)
    keep = (estimate >= SCREEN) & (rows.exact[first] != rows.exact[second])
    found = []
    for a, b in zip(first[keep].tolist(), second[keep].tolist()):
        if rows.anchors[a] != rows.anchors[b] or not rows.claims[a].agrees(rows.claims[b]):
            continue  # about other files, or other figures or polarity (a conflict, not a duplicate)
        value = T.jaccard(rows.shingles[a], rows.shingles[b])
        if value >= NEAR_THRESHOLD:
            found.append((a, b, value))
    return found


def conflicts(catalogue: Catalogue, scope: np.ndarray) -> list[Found]:
    """Active memories of one repo and topic with the same claim skeleton but other figures or the other
    polarity ("busy timeout 5 s" / "10 s"; "use X" / "never use X"): the newest is proposed to supersede
    the others."""
    rows = catalogue.rows
    live = np.flatnonzero(scope & rows.active & (rows.claim_keys != 0))
    found = []
    for group in _runs(rows.claim_keys[live], live, BUCKET_LIMIT):
        distinct: dict[int, int] = {}
        for position in sorted(group.tolist(), key=lambda p: (float(rows.created_days[p]), int(rows.ids[p]))):
            distinct[int(rows.exact[position])] = position  # one (the newest) per exact text
        members = sorted(distinct.values(), key=lambda p: (float(rows.created_days[p]), int(rows.ids[p])))
        if len(members) < 2:
            continue
        newest = members[-1]
        claims = [rows.claims[p] for p in members]
        polarity = len({c.negated for c in claims}) > 1
        what = "but one negates the other" if polarity else "with other figures (" + " / ".join(
            " ".join(c.numbers) or "none" for c in claims) + ")"
        ids = ", ".join(f"#{int(rows.ids[p])}" for p in members)
        found.append(Found("conflict", tuple(sorted(members)), newest, "supersede", 0.95 if polarity else 0.9,
                           f"{ids} say the same thing about one topic {what}; "
                           f"the newest, #{int(rows.ids[newest])}, supersedes the older"))
    return found


def cold(catalogue: Catalogue, scope: np.ndarray, *, now_days: float, cold_days: int,
         last_read_days: dict[int, float], pinned: set[int]) -> list[Found]:
    """Active advisory memories nobody has read (a task's recall) for ``cold_days`` since they were created or
    last read; pinned memories are never cold."""
    rows = catalogue.rows
    found = []
    for position in np.flatnonzero(scope & rows.active & rows.advisory).tolist():
        memory_id = int(rows.ids[position])
        if memory_id in pinned:
            continue
        last = last_read_days.get(memory_id)
        idle = now_days - (last if last is not None else float(rows.created_days[position]))
        if idle < cold_days:
            continue
        since = "last read by a task" if last is not None else "created, never read by a task"
        found.append(Found("cold", (position,), None, "dismiss", round(0.4 + 0.1 * min(idle / cold_days, 2.0), 3),
                           f"#{memory_id} is advisory and was {since} {idle:.0f} days ago (cold after "
                           f"{cold_days} days)"))
    return found
