"""The proposals engine's view of a store: per memory, the features curation compares (``text.py``), kept in
numpy arrays and brought up to date by database revision like the recall index, so a second review after a
small change reads only what changed.

One ``Catalogue`` per ``Store`` (``Store.catalogue``); every method takes its lock, so the TUI's thread workers
can share it."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import peewee

from mneme_tui.memory import kinds as K
from mneme_tui.memory.curation import text as T
from mneme_tui.memory.index import days_since_epoch
from mneme_tui.memory.persistence.curation import curation_rows
from mneme_tui.memory.persistence.repositories import database_revision

_MIX = np.uint64(0x9E3779B97F4A7C15)


def _hash64(value: str) -> int:
    return int.from_bytes(hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


@dataclass
class _Batch:
    """The features of a batch of rows, before they join the arrays."""

    ids: np.ndarray
    active: np.ndarray
    advisory: np.ndarray
    created_days: np.ndarray
    access: np.ndarray
    exact: np.ndarray
    claim_keys: np.ndarray
    digests: np.ndarray
    signatures: np.ndarray
    bands: np.ndarray
    repos: list[str]
    kinds: list[str]
    shingles: list[np.ndarray]
    anchors: list[frozenset[str]]
    claims: list[T.Claim]
    texts: list[str | None]


class Catalogue:
    """Curation features of every memory (``refresh`` loads what changed)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.max_id = 0
        self.update_seq = 0
        self.revision = -1
        self.positions: dict[int, int] = {}
        self._word_hashes: dict[str, int] = {}
        self._batch: _Batch | None = None

    @property
    def rows(self) -> _Batch:
        """Every memory's features (empty before the first refresh)."""
        if self._batch is None:
            self._batch = self._features([])
        return self._batch

    def refresh(self, db: peewee.Database) -> bool:
        """Load the rows inserted or updated since the last refresh; True when anything changed."""
        with self.lock:
            max_id, update_seq = database_revision(db)
            if max_id + update_seq == self.revision:
                return False
            if update_seq < self.update_seq or max_id < self.max_id:  # another database: start again
                self.__init__()  # type: ignore[misc]
            for rows in curation_rows(db, self.max_id, self.update_seq):
                self._apply(rows)
            self.max_id, self.update_seq, self.revision = max_id, update_seq, max_id + update_seq
            return True

    def _apply(self, rows: list[tuple]) -> None:
        known = [row for row in rows if row[0] in self.positions]
        new = [row for row in rows if row[0] not in self.positions]
        if known:
            changed = self._features(known)
            where = np.array([self.positions[row[0]] for row in known], dtype=np.int64)
            current = self.rows
            for column in fields(_Batch):
                target, values = getattr(current, column.name), getattr(changed, column.name)
                if isinstance(target, list):
                    for position, value in zip(where.tolist(), values):
                        target[position] = value
                else:
                    target[where] = values
        if new:
            added = self._features(new)
            start = self.rows.ids.size
            self.positions.update((int(memory_id), start + n) for n, memory_id in enumerate(added.ids.tolist()))
            self._batch = _join(self.rows, added)

    def _features(self, rows: list[tuple]) -> _Batch:
        """Features of rows in ``CURATION_COLUMNS`` order."""
        count = len(rows)
        ids, repos, kinds, topics, contents, created, statuses, access = zip(*rows) if rows else ([],) * 8
        normals = [T.normalised(content) for content in contents]
        words = [normal.split() for normal in normals]
        shingles = self._shingles(words)
        claims = [T.claim(normal) for normal in normals]
        anchors = [T.anchors(content) for content in contents]
        signatures = _signatures(shingles)
        return _Batch(
            ids=np.asarray(ids, dtype=np.int64),
            active=np.fromiter((status == K.ACTIVE for status in statuses), bool, count),
            advisory=np.fromiter((kind in K.ADVISORY_KINDS for kind in kinds), bool, count),
            created_days=days_since_epoch(list(created)) if count else np.zeros(0),
            access=np.asarray(access, dtype=np.int64),
            exact=np.fromiter((_hash64(f"{r}\x00{k}\x00{n}") for r, k, n in zip(repos, kinds, normals)),
                              np.uint64, count),
            claim_keys=np.fromiter((_hash64(f"{r}\x00{t}\x00{c.skeleton}") if len(c.skeleton.split()) >= 3 else 0
                                    for r, t, c in zip(repos, topics, claims)), np.uint64, count),
            digests=np.fromiter((_hash64(content) for content in contents), np.uint64, count),
            signatures=signatures,
            bands=_band_keys(signatures, repos, kinds),
            repos=[str(repo or "") for repo in repos],
            kinds=list(kinds),
            shingles=shingles,
            anchors=anchors,
            claims=claims,
            texts=[content if found else None for content, found in zip(contents, anchors)],
        )

    def _shingles(self, texts: list[list[str]]) -> list[np.ndarray]:
        found = [T.shingles(words, self._word_hashes) for words in texts]
        if len(self._word_hashes) > 1_000_000:  # a memo, not a vocabulary: bounded
            self._word_hashes.clear()
        return found


def _signatures(shingles: list[np.ndarray]) -> np.ndarray:
    """The MinHash signatures of many shingle sets at once (one row each; zeros for an empty set)."""
    sizes = np.fromiter((s.size for s in shingles), np.int64, len(shingles))
    result = np.zeros((len(shingles), T.SIGNATURE_SIZE), dtype=np.uint32)
    if not sizes.any():
        return result
    nonempty = sizes > 0
    flat = np.concatenate([s for s in shingles if s.size]).astype(np.uint64)
    starts = np.concatenate([[0], np.cumsum(sizes[nonempty])[:-1]])
    for at in range(T.SIGNATURE_SIZE):  # one hash function at a time: bounded memory
        values = (T.A[at] * flat + T.B[at]) % T.PRIME
        result[nonempty, at] = (np.minimum.reduceat(values, starts) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return result


def _band_keys(signatures: np.ndarray, repos: Sequence[str], kinds: Sequence[str]) -> np.ndarray:
    """One uint64 bucket key per LSH band of each signature, mixed with its repo and kind (so only memories of
    one repo and kind share a bucket)."""
    rows = T.SIGNATURE_SIZE // T.BANDS
    scope = np.fromiter((_hash64(f"{r}\x00{k}") for r, k in zip(repos, kinds)), np.uint64, len(repos))
    keys = np.zeros((signatures.shape[0], T.BANDS), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for band in range(T.BANDS):
            key = scope + np.uint64(band + 1) * _MIX
            for column in range(band * rows, (band + 1) * rows):
                key = key * _MIX + signatures[:, column].astype(np.uint64)
            keys[:, band] = key
    return keys


def _join(a: _Batch, b: _Batch) -> _Batch:
    """The rows of ``a`` followed by those of ``b``."""
    joined: dict[str, Any] = {}
    for column in fields(_Batch):
        first, second = getattr(a, column.name), getattr(b, column.name)
        joined[column.name] = first + second if isinstance(first, list) else np.concatenate([first, second])
    return _Batch(**joined)
