"""BM25 scores from the query terms' postings: the work grows with the rows the terms reach, not the store.

For one candidate set (``index.Candidates``) a term's contribution to every candidate row it occurs in,
idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / avgdl)), depends on nothing but the term: it is
computed once from the term's posting list (the candidates kept, the others dropped) and cached on the
candidate set, which the index drops on every change. A query then adds up its terms' cached
contributions per row (one ``np.bincount``, in term order, so the sums are the same float64 numbers as a
full scan's); how many query terms a row has is counted only for the few rows that make the result
(from their own term lists). The cache holds at most
``CACHE_BYTES`` per candidate set, counting only the arrays it owns (in the set of every row, a term's rows
are a view of its posting list); the terms cached first are dropped first.
A term seen for the first time in a candidate set costs one pass over its posting list (the candidates
kept, their lengths gathered, a few float operations): no sort and nothing the size of the store.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mneme_tui.memory.index import Candidates, MemoryIndex
from mneme_tui.memory.term_features import TermFeatures

CACHE_BYTES = 48_000_000
"""Bytes of term scores cached per candidate set: 4,000,000 (int32 row, float64 contribution) pairs of a
subset, or 6,000,000 contributions of the set of every row (whose rows are views of the postings)."""


@dataclass(frozen=True)
class TermScores:
    """The candidate rows one term occurs in (index positions) and its BM25 contribution to each."""

    rows: np.ndarray  # int32 or int64
    contribution: np.ndarray  # float64

    @property
    def nbytes(self) -> int:
        """The memory this entry holds of its own (rows that are a view of the postings cost it nothing)."""
        return self.contribution.nbytes + (self.rows.nbytes if self.rows.flags.owndata else 0)


@dataclass(frozen=True)
class Bm25Sums:
    """The candidate rows sharing a term with the query that score at least the floor (index positions,
    ascending), their bm25, and the best bm25 of any candidate (0 when no row shares a term)."""

    rows: np.ndarray
    bm25: np.ndarray  # float64
    best: float
    terms: TermFeatures
    term_ids: np.ndarray

    def matched(self, rows: np.ndarray) -> np.ndarray:
        """How many of the query's terms each of ``rows`` has (read from each row's own terms)."""
        doc_terms, start = self.terms.doc_terms, self.terms.doc_start
        wanted = set(self.term_ids.tolist())  # a set: a row has a dozen terms, and np.isin costs 15 µs a call
        return np.array(
            [sum(term in wanted for term in doc_terms[start[row] : start[row + 1]].tolist()) for row in rows.tolist()],
            dtype=np.int64,
        )


def bm25_sums(
    index: MemoryIndex,
    candidates: Candidates,
    stats: Candidates,
    term_ids: np.ndarray,
    k1: float,
    b: float,
    floor: float = 0.0,
) -> Bm25Sums:
    """BM25 of the candidates that share a term with the sorted ``term_ids``, with N, df and avgdl of
    ``stats`` (the candidates themselves, or every active row); rows below ``floor`` × the best are left out
    (picked from the per-row sums in the same pass that finds the rows at all)."""
    scores = _term_scores(index, candidates, stats, term_ids, k1, b)
    if not scores:
        return Bm25Sums(np.zeros(0, dtype=np.int64), np.zeros(0), 0.0, index.terms, term_ids)
    rows = np.concatenate([score.rows for score in scores])
    contribution = np.concatenate([score.contribution for score in scores])
    per_row = np.bincount(rows, weights=contribution, minlength=index.size)
    best = float(per_row.max())
    cut = floor * best
    # every contribution is > 0 (idf > 0, tf > 0), so a row scoring >= a cut above 0 shares a term
    hits = np.flatnonzero(per_row >= cut if cut > 0 else per_row > 0)  # a bool mask: 20× faster than nonzero
    return Bm25Sums(hits, per_row[hits], best, index.terms, term_ids)


def _term_scores(
    index: MemoryIndex, candidates: Candidates, stats: Candidates, term_ids: np.ndarray, k1: float, b: float
) -> list[TermScores]:
    """Each query term's cached scores, the missing ones computed (in one batch, so idf is one array op)."""
    cache = candidates.term_scores
    keys = [(k1, b, stats is candidates, term) for term in term_ids.tolist()]
    missing = [number for number, key in enumerate(keys) if key not in cache]
    if missing:
        computed = _compute(index, candidates, stats, term_ids[missing], k1, b)
        for number, score in zip(missing, computed):
            cache[keys[number]] = score
    found = [cache[key] for key in keys]
    _trim(cache, keep=set(keys))
    return [score for score in found if score.rows.size]


def _compute(
    index: MemoryIndex, candidates: Candidates, stats: Candidates, term_ids: np.ndarray, k1: float, b: float
) -> list[TermScores]:
    terms = index.terms
    postings = terms.postings_of(term_ids)
    in_stats = stats.maps(index.size)[0]
    df = np.array([rows.size if stats.is_all else np.count_nonzero(in_stats[rows]) for rows, _ in postings])
    idf = np.log1p((stats.rows.size - df + 0.5) / (df + 0.5))
    average = max(stats.average_length(terms.doc_len), 1e-9)
    member = candidates.maps(index.size)[0]
    computed = []
    for weight, (rows, tf) in zip(idf.tolist(), postings):
        if not candidates.is_all:
            keep = member[rows]
            rows, tf = rows[keep], tf[keep]
        tf64 = tf.astype(np.float64)
        norm = k1 * (1.0 - b + b * terms.doc_len[rows].astype(np.float64) / average)
        computed.append(TermScores(rows, weight * tf64 * (k1 + 1.0) / (tf64 + norm)))
    return computed


def _trim(cache: dict, keep: set) -> None:
    """Drop the oldest cached terms (not the ones in ``keep``) while the cache holds more than ``CACHE_BYTES``."""
    total = sum(score.nbytes for score in cache.values())
    for key in list(cache):
        if total <= CACHE_BYTES:
            return
        if key not in keep:
            total -= cache.pop(key).nbytes
