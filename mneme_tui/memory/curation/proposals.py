"""Open proposals: what the store suggests a person merges, supersedes, re-checks or dismisses.

``open_proposals`` refreshes the store's catalogue (only what changed since the last call; a new process starts
from the catalogue kept on disk, ``snapshot.py``), runs each kind's
finder over the repo asked for, drops the proposals a person rejected (while their memories are unchanged) and
orders the rest best first. Nothing here writes: deciding is ``review.decide``."""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from itertools import accumulate, compress, pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mneme_tui import config
from mneme_tui.errors import ERR_CONFIG, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.curation import finders, snapshot
from mneme_tui.memory.curation.catalogue import Catalogue
from mneme_tui.memory.curation.choices import KINDS
from mneme_tui.memory.curation.feature_pool import PARALLEL_ROWS
from mneme_tui.memory.curation.partitions import found_in_partitions
from mneme_tui.memory.gc_pause import gc_paused
from mneme_tui.memory.index import days_since_epoch

if TYPE_CHECKING:
    from mneme_tui.memory.store import Store

COLD_DAYS = 180
"""Days without a read after which an advisory memory is proposed as cold (setting ``cold_days``)."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """One suggestion: its kind, the memories, the one that stays (merge/supersede), the action and why."""

    id: str
    """Short and stable while its memories are unchanged (kind + ids + their content hashes)."""
    kind: str
    memory_ids: tuple[int, ...]
    keep_id: int | None
    action: str
    reason: str
    score: float
    repo_id: str = ""

    def to_json(self) -> dict[str, object]:
        """The proposal as ``mneme review --json`` prints it."""
        return {
            "id": self.id,
            "kind": self.kind,
            "memory_ids": list(self.memory_ids),
            "keep_id": self.keep_id,
            "action": self.action,
            "reason": self.reason,
            "score": round(self.score, 3),
            "repo": self.repo_id,
        }


def proposal_id(kind: str, memory_ids: tuple[int, ...], digests: list[int]) -> str:
    """The id of a proposal over these memories with these content hashes."""
    text = kind + ":" + ",".join(f"{i}/{d:x}" for i, d in sorted(zip(memory_ids, digests)))
    return hashlib.sha1(text.encode()).hexdigest()[:10]


SORT_IN_NUMPY = 10_000
"""Proposals from which ordering them all is done by numpy (``_sorted``)."""
SORT_WIDTH = 16
"""The most memories a proposal may have for ``_sorted`` to pad them into columns (more: Python's sort)."""


def cold_days() -> int:
    """The ``cold_days`` setting (config file), ``COLD_DAYS`` when unset; a bad value is ERR_CONFIG."""
    value = config.load_settings().get("cold_days", COLD_DAYS)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise MnemeError(ERR_CONFIG, "cold_days in the config file must be a whole number of days, at least 1")
    return value


def check_kinds(kinds: frozenset[str] | None) -> frozenset[str]:
    """``kinds`` (every kind when None) if each is a proposal kind, else ERR_VALIDATION_FAILED."""
    unknown = sorted((kinds or frozenset()) - set(KINDS))
    if unknown:
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown proposal kind {unknown[0]!r} (valid: {', '.join(KINDS)})")
    return kinds or frozenset(KINDS)


def default_root(repo: str | None, active_repo: str, start: Path | None = None) -> Path | None:
    """The work tree the stale kind reads when none is named: the git work tree holding ``start`` (the current
    folder), and only for the active repo or every repo (``repo`` None): another repo's code is elsewhere."""
    if repo is not None and repo != active_repo:
        return None
    return config.find_git_root(start)


def open_proposals(
    store: Store,
    repo: str | None,
    *,
    kinds: frozenset[str] | None = None,
    limit: int | None = None,
    root: Path | None = None,
) -> list[Proposal]:
    """The open proposals of ``repo`` (None: every repo), best first, at most ``limit``. ``root`` is the git
    work tree the stale kind reads: of ``repo``'s memories, or (``repo`` None) of the memories of the repo
    named after it (``config.resolve_repo``); stale is skipped without a root."""
    wanted = check_kinds(kinds)
    if limit is not None and limit < 1:
        raise MnemeError(ERR_VALIDATION_FAILED, "limit must be at least 1")
    catalogue = store.catalogue
    with store.sqlite_errors(), catalogue.lock, gc_paused():  # a first review builds a million rows' features
        snapshot_file = snapshot.snapshot_path(store.path) if isinstance(store.path, Path) else None
        snapshot.refresh(catalogue, store.db, snapshot_file, _unkept)
        pinned = frozenset(store.pinned_ids())
        reads = store.last_reads() if "cold" in wanted else {}
        now_days = float(days_since_epoch([config.now().isoformat(sep=" ")])[0])
        # the same revision, repo, kinds, clock and pins give the same proposals (the work tree aside)
        key = (
            "open",
            catalogue.revision,
            repo,
            wanted - {"stale"},
            now_days,
            cold_days(),
            pinned,
            tuple(sorted(reads.items())),
        )
        if catalogue.last_found[0] != key:
            computed = _find(catalogue, repo, wanted, reads, now_days, pinned)
            catalogue.last_found = (key, _ordered(computed, before=catalogue.last_found[1]))
            snapshot.save_when_due(catalogue, store.db, snapshot_file, _kept)
        proposals = catalogue.last_found[1]
        if "stale" in wanted and root is not None:
            from mneme_tui.memory.curation.stale_proposals import stale  # git only when there is a work tree

            of_root = _scope(catalogue, repo if repo is not None else config.resolve_repo(start=root))
            found = stale(catalogue, of_root, root, set(pinned))
            proposals = _ordered([*proposals, *(_proposal(catalogue, f) for f in found)]) if found else proposals
        rejected = store.decisions.rejected()
    kept = [p for p in proposals if p.id not in rejected] if rejected else list(proposals)
    return kept[:limit] if limit is not None else kept


def _kept(proposals: list[Proposal]) -> dict[str, list[Any]]:
    """Proposals as the catalogue's snapshot keeps them: one list per field (``_unkept`` makes them again)."""
    return {
        "id": [p.id for p in proposals],
        "kind": [p.kind for p in proposals],
        "members": [i for p in proposals for i in p.memory_ids],
        "sizes": [len(p.memory_ids) for p in proposals],
        "keep": [p.keep_id for p in proposals],
        "action": [p.action for p in proposals],
        "reason": [p.reason for p in proposals],
        "score": [p.score for p in proposals],
        "repo": [p.repo_id for p in proposals],
    }


def _unkept(kept: dict[str, list[Any]]) -> list[Proposal]:
    """The proposals ``_kept`` made ``kept`` of (ValueError when its lists do not fit together)."""
    ends = list(accumulate(kept["sizes"]))
    if (ends[-1] if ends else 0) != len(kept["members"]):
        raise ValueError("the kept proposals' members do not fit their sizes")
    members = [tuple(kept["members"][start:end]) for start, end in pairwise([0, *ends])]
    return [
        Proposal(*fields)
        for fields in zip(
            kept["id"],
            kept["kind"],
            members,
            kept["keep"],
            kept["action"],
            kept["reason"],
            kept["score"],
            kept["repo"],
            strict=True,
        )
    ]


def _ordered(proposals: list[Proposal], before: list[Proposal] | None = None) -> list[Proposal]:
    """Best first: by score, then kind, then memory ids (no two proposals tie). ``before`` is the last review's
    order: when most proposals are still there, the few new ones are put into it (a small change does not sort
    every proposal again)."""
    if before:
        now = set(map(id, proposals))
        kept = list(compress(before, map(now.__contains__, map(id, before))))
        known = set(map(id, kept))
        new = [proposal for proposal, old in zip(proposals, map(known.__contains__, map(id, proposals))) if not old]
        if len(new) <= len(kept) // 8:
            return _merged(kept, sorted(new, key=_order))
    return _sorted(proposals)


def _sorted(proposals: list[Proposal]) -> list[Proposal]:
    """``sorted(proposals, key=_order)``, by numpy's ``lexsort`` over the key's columns in a long list (each
    proposal's memory ids padded with -1, below every id, so a shorter tuple comes first as it does in Python)."""
    sizes = np.fromiter((len(p.memory_ids) for p in proposals), np.int64, len(proposals))
    width = int(sizes.max(initial=0))
    if len(proposals) < SORT_IN_NUMPY or width > SORT_WIDTH:
        return sorted(proposals, key=_order)
    flat = np.fromiter((i for p in proposals for i in p.memory_ids), np.int64, int(sizes.sum()))
    ids = np.full((len(proposals), width), -1, np.int64)
    owner = np.repeat(np.arange(len(proposals)), sizes)
    ids[owner, np.arange(flat.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)] = flat
    scores = np.fromiter((p.score for p in proposals), float, len(proposals))
    kinds = np.fromiter((KINDS.index(p.kind) for p in proposals), np.int64, len(proposals))
    order = np.lexsort((*ids.T[::-1], kinds, -scores))  # the last key first: score, kind, then the ids in turn
    return [proposals[at] for at in order.tolist()]


def _merged(kept: list[Proposal], new: list[Proposal]) -> list[Proposal]:
    """Two ordered lists as one: each of the few ``new`` proposals' place in the long ``kept`` list is found by
    bisection, and ``kept`` is copied once, in slices between them (inserting one at a time moved the whole
    list each time: seconds at a million memories)."""
    merged: list[Proposal] = []
    start = 0
    for proposal in new:
        place = bisect_right(kept, _order(proposal), lo=start, key=_order)
        merged += kept[start:place]
        merged.append(proposal)
        start = place
    merged += kept[start:]
    return merged


def _order(proposal: Proposal) -> tuple[float, int, tuple[int, ...]]:
    return -proposal.score, KINDS.index(proposal.kind), proposal.memory_ids


def _scope(catalogue: Catalogue, repo: str | None) -> np.ndarray:
    """The rows of ``repo`` (None: every row)."""
    repos = catalogue.rows.repos
    return (
        np.ones(len(repos), dtype=bool) if repo is None else np.fromiter((r == repo for r in repos), bool, len(repos))
    )


def _find(
    catalogue: Catalogue,
    repo: str | None,
    kinds: frozenset[str],
    reads: dict[int, str],
    now_days: float,
    pinned: frozenset[int],
) -> list[Proposal]:
    """Duplicates, conflicts and cold memories of ``repo``, as the kinds ask (each found again only in the
    partitions that changed since the last review of ``repo``: ``partitions.py``). In a large store duplicates
    are found in a thread beside the others: most of their work is numpy sorting, which lets go of the GIL."""
    scope = _scope(catalogue, repo)
    convert = partial(_proposal, catalogue)
    duplicates = partial(
        found_in_partitions,
        catalogue,
        ("duplicate", repo),
        "",
        "repo_kinds",
        scope,
        partial(finders.duplicates, catalogue),
        convert,
    )
    in_thread = "duplicate" in kinds and scope.size >= PARALLEL_ROWS
    with ThreadPoolExecutor(1) if in_thread else nullcontext() as beside:
        pending = beside.submit(duplicates) if beside is not None else None
        found = duplicates() if "duplicate" in kinds and pending is None else []
        others: list[Proposal] = []
        if "conflict" in kinds:
            others += found_in_partitions(
                catalogue, ("conflict", repo), "", "repo_topics", scope, partial(finders.conflicts, catalogue), convert
            )
        if "cold" in kinds:
            others += _cold(catalogue, repo, scope, reads, now_days, pinned)
        return (pending.result() if pending is not None else found) + others


def _cold(
    catalogue: Catalogue,
    repo: str | None,
    scope: np.ndarray,
    reads: dict[int, str],
    now_days: float,
    pinned: frozenset[int],
) -> list[Proposal]:
    """The cold proposals of ``scope`` (found again only in the partitions whose rows or mark moved)."""
    read_days = dict(zip(reads, days_since_epoch(list(reads.values())).tolist())) if reads else {}
    idle = finders.idle(catalogue, now_days=now_days, cold_days=cold_days(), last_read_days=read_days)
    cold = partial(finders.cold, catalogue, idle=idle, cold_days=cold_days(), pinned=set(pinned))
    depends = json.dumps([cold_days(), sorted(pinned)])
    marks = idle.marks(catalogue.rows.repo_kinds)
    return found_in_partitions(
        catalogue, ("cold", repo), depends, "repo_kinds", scope, cold, partial(_proposal, catalogue), marks=marks
    )


def _proposal(catalogue: Catalogue, found: finders.Found) -> Proposal:
    key = ("proposal", found, *catalogue.digests_of(found.positions))
    return catalogue.remembered(key, _new_proposal, catalogue, found)


def _new_proposal(catalogue: Catalogue, found: finders.Found) -> Proposal:
    rows = catalogue.rows
    ids = tuple(int(rows.ids[p]) for p in found.positions)
    digests = [int(rows.digests[p]) for p in found.positions]
    return Proposal(
        id=proposal_id(found.kind, ids, digests),
        kind=found.kind,
        memory_ids=ids,
        keep_id=None if found.keep is None else int(rows.ids[found.keep]),
        action=found.action,
        reason=found.reason,
        score=found.score,
        repo_id=rows.repos[found.positions[0]],
    )


def review_document(
    store: Store,
    repo: str | None,
    *,
    kinds: frozenset[str] | None = None,
    limit: int | None = None,
    root: Path | None = None,
) -> dict[str, Any]:
    """``open_proposals`` as ``mneme review --json`` prints it and the MCP tool ``review`` returns it."""
    proposals = open_proposals(store, repo, kinds=kinds, limit=limit, root=root)
    return {"repo": repo, "proposals": [proposal.to_json() for proposal in proposals]}
