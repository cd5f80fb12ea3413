"""The proposals engine's view of a store: per memory, the features curation compares (``text.py``), kept in
numpy arrays and brought up to date by database revision like the recall index, so a second review after a
small change reads only what changed.

One ``Catalogue`` per ``Store`` (``Store.catalogue``); callers hold its ``lock`` while they read it, so the TUI's
thread workers can share it. Every key (exact text, claim, bucket, partition) and the content digests that proposal
ids are made of are ``text.stable_hash`` (the same in every process)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import numpy as np
import peewee

from mneme_tui.memory import kinds as K
from mneme_tui.memory.curation import feature_pool
from mneme_tui.memory.curation import text_features as T
from mneme_tui.memory.growing import GrowingArrays, room_for
from mneme_tui.memory.index import days_since_epoch
from mneme_tui.memory.persistence.curation import curation_rows
from mneme_tui.memory.persistence.repositories import database_revision

R = TypeVar("R")
MEMO_LIMIT = 1_000_000
"""Entries the memo keeps before it starts again (or twice the rows, in a larger store: a review of a million
memories remembers a few hundred thousand groups and proposals, which must survive the next refresh)."""
MIN_SKELETON_WORDS = 3
"""A claim of fewer words ("use #") is too short to conflict with anything."""


@dataclass
class Rows:
    """The features of memories, one entry per memory in every column (positions are stable: rows are
    appended, and a changed memory is updated in place)."""

    ids: np.ndarray
    active: np.ndarray
    advisory: np.ndarray
    created_days: np.ndarray
    access: np.ndarray
    exact: np.ndarray
    """Repo, kind and normalised text: equal keys are exact duplicates."""
    claim_keys: np.ndarray
    """Repo, topic and claim skeleton (0: too short); equal keys with other stances are conflicts."""
    stances: np.ndarray
    """The claim's figures and polarity."""
    digests: np.ndarray
    signatures: np.ndarray
    bands: np.ndarray
    """One LSH bucket key per band, mixed with repo and kind."""
    repo_kinds: np.ndarray
    """Repo and kind: duplicates and cold memories are found within one (``partitions.py``)."""
    repo_topics: np.ndarray
    """Repo and topic: conflicts are found within one."""
    repos: list[str]
    texts: list[str]


def empty_rows() -> Rows:
    """Rows of no memory (each column of its dtype)."""
    keys = np.zeros(0, dtype=np.uint64)
    return Rows(
        np.zeros(0, np.int64),
        np.zeros(0, bool),
        np.zeros(0, bool),
        np.zeros(0),
        np.zeros(0, np.int64),
        keys,
        keys,
        keys,
        keys,
        np.zeros((0, T.SIGNATURE_SIZE), np.uint32),
        np.zeros((0, T.BANDS), np.uint64),
        keys,
        keys,
        [],
        [],
    )


class Catalogue:
    """Curation features of every memory (``refresh`` loads what changed)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.revision = -1
        self.max_id = 0
        self.update_seq = 0
        """The revision the rows reflect: the highest memory id and update seq read (``revision`` is their sum)."""
        self.saved_revision = -1
        """The revision of the snapshot on disk this catalogue started from or last wrote (``snapshot.py``)."""
        self._positions: dict[int, int] | None = None
        """Memory id → position, only once ids came out of order; while they ascend (rows are read in id order)
        a position is found by bisecting ``rows.ids``, which costs no memory."""
        self._anchors: dict[int, frozenset[str]] = {}
        self._shingles: dict[int, np.ndarray] = {}
        self.rows = empty_rows()
        self._growing = GrowingArrays()
        """The room after each array column of ``rows``: appending a row copies no column."""
        self.version = 0
        """Counts the refreshes that changed something."""
        self._changed_at = np.zeros(0, np.int64)
        """Per row, the ``version`` that last added or changed it."""
        self._moved: list[tuple[int, np.ndarray, np.ndarray]] = []
        """(version, repo_kinds, repo_topics) that changed rows had before that version changed them."""
        self.memo: dict[tuple, Any] = {}
        """What the finders worked out for a group, keyed by the group's memories and their digests (so it is
        reused while they are unchanged: a second review after a small change rebuilds only what changed)."""
        self.last_found: tuple[tuple, list[Any]] = ((), [])
        """The last review's proposals (but stale ones) and what they depended on (revision, repo, kinds, clock,
        pins, reads)."""

    def refresh(self, db: peewee.Database) -> bool:
        """Load the rows inserted or updated since the last refresh; True when anything changed."""
        with self.lock:
            max_id, update_seq = database_revision(db)
            if self.revision >= 0 and (max_id, update_seq) == (self.max_id, self.update_seq):
                return False
            if update_seq < self.update_seq or max_id < self.max_id:  # another database: start again
                self.__init__()  # type: ignore[misc]
            self.version += 1
            batches = curation_rows(db, self.max_id, self.update_seq)
            if self.rows.ids.size:
                for rows in batches:
                    self._apply(rows)
            else:  # every row is new: a large store's features are computed on both cores (feature_pool)
                for added in feature_pool.in_order(batches, features, parallel=max_id >= feature_pool.PARALLEL_ROWS):
                    self._add(added)
            self.max_id, self.update_seq, self.revision = max_id, update_seq, max_id + update_seq
            if len(self.memo) > max(MEMO_LIMIT, 2 * self.rows.ids.size):  # bounded
                self.memo.clear()
            if len(self._moved) > MEMO_LIMIT // 1000:  # the partitions' states start again (partitions.py)
                self._moved.clear()
                self.memo.clear()
            return True

    def restore(self, rows: Rows, max_id: int, update_seq: int) -> None:
        """Start a cold catalogue from rows kept on disk at that revision (``snapshot.py``): the next
        ``refresh`` reads only what changed since."""
        with self.lock:
            for column in fields(Rows):  # each array into a buffer with room: appending after it copies nothing
                value = getattr(rows, column.name)
                if isinstance(value, np.ndarray):
                    setattr(rows, column.name, self._growing.adopt(column.name, _with_room(value), value.shape[0]))
            self.rows = rows
            self._positions = None if _ascending(rows.ids) else dict(zip(rows.ids.tolist(), range(rows.ids.size)))
            changed_at = np.zeros(rows.ids.size + room_for(rows.ids.size), np.int64)
            self._changed_at = self._growing.adopt("_changed_at", changed_at, rows.ids.size)
            self.max_id, self.update_seq = max_id, update_seq
            self.revision = self.saved_revision = max_id + update_seq

    def changed_since(self, version: int, column: str) -> np.ndarray:
        """The distinct values of ``column`` (``repo_kinds`` or ``repo_topics``) that rows added or changed after
        ``version`` have now or had before."""
        values = [getattr(self.rows, column)[self._changed_at > version]]
        at = 1 if column == "repo_kinds" else 2
        values += [moved[at] for moved in self._moved if moved[0] > version]
        ordered = np.sort(np.concatenate(values))  # distinct (np.unique would import numpy.ma: 70 ms)
        return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])] if ordered.size else ordered

    def anchors(self, position: int) -> frozenset[str]:
        """The paths the memory at ``position`` names (worked out once, when a comparison needs them)."""
        found = self._anchors.get(position)
        if found is None:
            found = self._anchors[position] = T.anchors(self.rows.texts[position])
        return found

    def shingles(self, position: int) -> np.ndarray:
        """The word-bigram hashes of the memory at ``position`` (made from its text when a comparison needs them:
        keeping them for every memory would cost more than the texts)."""
        found = self._shingles.get(position)
        if found is None:
            found = self._shingles[position] = T.shingles(T.words_of(self.rows.texts[position]))
        return found

    def remembered(self, key: tuple, work: Callable[..., R], *arguments: Any) -> R:
        """``work(*arguments)``, or what it returned before for ``key`` (a key names the memories it is about by
        position and content digest, and whatever else the result depends on)."""
        if key not in self.memo:
            self.memo[key] = work(*arguments)
        return self.memo[key]

    def digests_of(self, positions: Sequence[int]) -> tuple[int, ...]:
        """The content digests of the memories at ``positions`` (with their statuses: an active and a superseded
        copy are not the same state)."""
        rows = self.rows
        return tuple(int(rows.digests[p]) * 2 + bool(rows.active[p]) for p in positions)

    def positions_of(self, memory_ids: np.ndarray) -> np.ndarray:
        """Where each memory is in the columns (-1: not there)."""
        if self._positions is not None:
            get = self._positions.get
            return np.fromiter((get(i, -1) for i in memory_ids.tolist()), np.int64, memory_ids.size)
        ids = self.rows.ids
        if not ids.size:
            return np.full(memory_ids.size, -1, np.int64)
        at = np.minimum(np.searchsorted(ids, memory_ids), ids.size - 1)
        return np.where(ids[at] == memory_ids, at, -1)

    def _apply(self, rows: list[tuple]) -> None:
        places = self.positions_of(np.fromiter((row[0] for row in rows), np.int64, len(rows)))
        known = [row for row, place in zip(rows, places.tolist()) if place >= 0]
        new = [row for row, place in zip(rows, places.tolist()) if place < 0]
        if known:
            changed = features(known)
            where = places[places >= 0]
            self._moved.append((self.version, self.rows.repo_kinds[where], self.rows.repo_topics[where]))
            self._changed_at[where] = self.version
            for column in fields(Rows):
                target, values = getattr(self.rows, column.name), getattr(changed, column.name)
                if isinstance(target, list):
                    for position, value in zip(where.tolist(), values):
                        target[position] = value
                else:
                    target[where] = values
            for position in where.tolist():
                self._anchors.pop(position, None)
                self._shingles.pop(position, None)
        if new:
            self._add(features(new))

    def _add(self, added: Rows) -> None:
        """Put the rows of memories not in the catalogue yet after its rows."""
        start, ids = self.rows.ids.size, self.rows.ids
        if self._positions is None and not _ascending(np.concatenate([ids[-1:], added.ids])):
            self._positions = dict(zip(ids.tolist(), range(start)))  # an id below the highest: a dict from now
        if self._positions is not None:
            self._positions.update(zip(added.ids.tolist(), range(start, start + added.ids.size)))
        self._append(added)

    def _append(self, added: Rows) -> None:
        """Put ``added`` after the rows: each array column grows into its room (``growing``), each list in place."""
        grow = self._growing.append
        for column in fields(Rows):
            target, values = getattr(self.rows, column.name), getattr(added, column.name)
            if isinstance(target, list):
                target.extend(values)
            else:
                setattr(self.rows, column.name, grow(column.name, target, values))
        changed = np.full(added.ids.size, self.version, np.int64)
        self._changed_at = grow("_changed_at", self._changed_at, changed)


def features(rows: list[tuple]) -> Rows:
    """The features of memory rows in ``CURATION_COLUMNS`` order (a pure function of the rows: a worker process
    can compute them, ``feature_pool``)."""
    count = len(rows)
    ids, repos, kinds, topics, contents, created, statuses, access = zip(*rows)
    repos = tuple(sys.intern(str(repo or "")) for repo in repos)  # one string per repo, not per memory
    words = [T.words_of(content) for content in contents]
    normals = [" ".join(text) for text in words]
    table = T.word_table(words)
    skeletons, stances, skeleton_words = T.claim_hashes(table)
    flat, starts = T.shingle_sets(table)
    signatures = _signatures(flat, starts)
    repo_kinds = _pair_keys(repos, kinds)
    repo_topics = _pair_keys(repos, topics)
    return Rows(
        ids=np.asarray(ids, dtype=np.int64),
        active=np.fromiter((status == K.ACTIVE for status in statuses), bool, count),
        advisory=np.fromiter((kind in K.ADVISORY_KINDS for kind in kinds), bool, count),
        created_days=days_since_epoch(list(created)),
        access=np.asarray(access, dtype=np.int64),
        exact=T.stable_keys(f"{r}\0{k}\0{n}" for r, k, n in zip(repos, kinds, normals)),
        claim_keys=np.where(
            skeleton_words >= MIN_SKELETON_WORDS, T.mixed(skeletons ^ T.mixed(repo_topics)), np.uint64(0)
        ),
        stances=stances,
        digests=T.stable_keys(contents),
        signatures=signatures,
        bands=_band_keys(signatures, repo_kinds),
        repo_kinds=repo_kinds,
        repo_topics=repo_topics,
        repos=list(repos),
        texts=list(contents),
    )


def _with_room(array: np.ndarray) -> np.ndarray:
    """A buffer holding ``array``'s rows and room for more after them (``growing.room_for``; untouched room costs
    no memory)."""
    buffer = np.empty((array.shape[0] + room_for(array.shape[0]), *array.shape[1:]), array.dtype)
    buffer[: array.shape[0]] = array
    return buffer


def _ascending(ids: np.ndarray) -> bool:
    """True when every id is above the one before."""
    return bool(np.all(ids[1:] > ids[:-1]))


def _pair_keys(firsts: Sequence[str], seconds: Sequence[str]) -> np.ndarray:
    """A stable key per (first, second) pair (repo and kind, repo and topic), each distinct pair hashed once."""
    pairs = list(zip(firsts, seconds))
    keys = {pair: T.stable_hash(f"{pair[0]}\0{pair[1]}") for pair in set(pairs)}
    return np.fromiter(map(keys.__getitem__, pairs), np.uint64, len(pairs))


def _signatures(flat: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The MinHash signatures of the shingle sets ``flat[starts[i]:starts[i + 1]]`` (zeros for an empty set)."""
    count = starts.size - 1
    result = np.zeros((count, T.SIGNATURE_SIZE), dtype=np.uint32)
    nonempty = starts[1:] > starts[:-1]
    if not flat.size:
        return result
    values64 = flat.astype(np.uint64)
    firsts = starts[:-1][nonempty]
    for at in range(T.SIGNATURE_SIZE):  # one hash function at a time: bounded memory
        values = (T.A[at] * values64 + T.B[at]) % T.PRIME
        result[nonempty, at] = np.minimum.reduceat(values, firsts) & np.uint64(0xFFFFFFFF)
    return result


def _band_keys(signatures: np.ndarray, scope: np.ndarray) -> np.ndarray:
    """One bucket key per LSH band of each signature, mixed with its repo and kind key ``scope`` (so only
    memories of one repo and kind share a bucket)."""
    rows = T.SIGNATURE_SIZE // T.BANDS
    keys = np.zeros((signatures.shape[0], T.BANDS), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for band in range(T.BANDS):
            key = scope + np.uint64(band + 1) * T.MIX
            for column in range(band * rows, (band + 1) * rows):
                key = key * T.MIX + signatures[:, column].astype(np.uint64)
            keys[:, band] = key
    return keys
