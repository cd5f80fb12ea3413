"""Two lexical baselines on the store's own tokens: BM25 and plain overlap (no decay, no locality).

They read the dataset directly (no store) and rank each question's candidate set, so they show what
bag-of-words matching alone achieves on the same questions the ranking profiles answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from mneme_tui.memory.evaluation.dataset import Dataset, Question
from mneme_tui.memory.vectors import tokenize  # the store's tokeniser: baselines see the same tokens

RANK_CUTOFF = 10  # rankers are asked for (and judged on) at most this many keys
BM25_K1 = 1.2
BM25_B = 0.75

Ranker = Callable[[Question], list[str]]


class TermIndex:
    """A term-frequency matrix over the content tokens of every memory (rows in dataset order)."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.keys = [memory.key for memory in dataset.memories]
        self.row = {key: index for index, key in enumerate(self.keys)}
        docs = [tokenize(memory.content) for memory in dataset.memories]
        self.vocab: dict[str, int] = {}
        for tokens in docs:
            for token in tokens:
                self.vocab.setdefault(token, len(self.vocab))
        rows = [index for index, tokens in enumerate(docs) for _ in tokens]
        cols = [self.vocab[token] for tokens in docs for token in tokens]
        self.tf = np.zeros((len(docs), len(self.vocab)), dtype=np.float64)
        np.add.at(self.tf, (np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)), 1.0)

    def candidate_rows(self, question: Question) -> np.ndarray:
        return np.fromiter((self.row[memory.key] for memory in self.dataset.candidates(question)), dtype=np.intp)

    def query_columns(self, query: str) -> np.ndarray:
        """Vocabulary columns of the query's distinct tokens (tokens seen in no memory are dropped)."""
        columns = {self.vocab[token] for token in tokenize(query) if token in self.vocab}
        return np.asarray(sorted(columns), dtype=np.intp)


def bm25_scores(tf: np.ndarray, query_columns: np.ndarray, *, k1: float = BM25_K1, b: float = BM25_B) -> np.ndarray:
    """BM25 score of every row of ``tf`` (documents x terms) for the distinct query term columns.

    Corpus statistics (N, df, average length) come from the rows given, i.e. the candidate set.
    idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
    """
    n_docs = tf.shape[0]
    if n_docs == 0 or query_columns.size == 0:
        return np.zeros(n_docs)
    lengths = tf.sum(axis=1)
    avgdl = lengths.mean()
    q_tf = tf[:, query_columns]  # documents x query terms
    df = np.count_nonzero(q_tf, axis=0)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    norm = k1 * (1.0 - b + b * lengths / avgdl) if avgdl > 0 else np.full(n_docs, k1)
    per_term = q_tf * (k1 + 1.0) / (q_tf + norm[:, None])
    return per_term @ idf


def overlap_scores(tf: np.ndarray, query_columns: np.ndarray, query_size: int) -> np.ndarray:
    """|q ∩ d| / |q| over distinct tokens; ``query_size`` counts distinct query tokens, seen or not."""
    if query_size == 0 or query_columns.size == 0:
        return np.zeros(tf.shape[0])
    return np.count_nonzero(tf[:, query_columns], axis=1) / query_size


def _top_keys(keys: Sequence[str], scores: np.ndarray, limit: int) -> list[str]:
    """Keys with a positive score, best first; ties keep the (key-ordered) input order."""
    order = np.argsort(-scores, kind="stable")
    return [keys[i] for i in order[:limit] if scores[i] > 0]


def bm25_ranker(
    dataset: Dataset,
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
    limit: int = RANK_CUTOFF,
    index: TermIndex | None = None,
) -> Ranker:
    """BM25 over content tokens, with statistics from each question's candidate set."""
    index = index or TermIndex(dataset)

    def rank(question: Question) -> list[str]:
        rows = index.candidate_rows(question)
        scores = bm25_scores(index.tf[rows], index.query_columns(question.query), k1=k1, b=b)
        return _top_keys([index.keys[row] for row in rows], scores, limit)

    return rank


def overlap_ranker(dataset: Dataset, *, limit: int = RANK_CUTOFF, index: TermIndex | None = None) -> Ranker:
    """Plain lexical overlap |q ∩ d| / |q| over content tokens; ties by key order."""
    index = index or TermIndex(dataset)

    def rank(question: Question) -> list[str]:
        rows = index.candidate_rows(question)
        size = len(set(tokenize(question.query)))
        scores = overlap_scores(index.tf[rows], index.query_columns(question.query), size)
        return _top_keys([index.keys[row] for row in rows], scores, limit)

    return rank


def baseline_rankers(dataset: Dataset) -> dict[str, Ranker]:
    index = TermIndex(dataset)
    return {"bm25": bm25_ranker(dataset, index=index), "overlap": overlap_ranker(dataset, index=index)}
