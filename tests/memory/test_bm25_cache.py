"""The bm25 path's per-term cache (``memory/bm25_scores``) counts the bytes it owns: a term's rows in the set of
every row are a view of its posting list and cost nothing, a subset's rows are its own; past
``CACHE_BYTES`` the oldest terms go, never one the query uses."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from mneme_tui.bench.synthetic import REPOS, generate
from mneme_tui.config import GLOBAL_REPO
from mneme_tui.memory import bm25_scores
from mneme_tui.memory.store import Store

NOW = datetime(2026, 11, 29, 12, 0, 0)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    opened = Store(Path(tmp_path_factory.mktemp("bm25-cache")) / "store.db")
    opened.mint_ids(generate(600, now=NOW))
    opened.refresh_index()
    opened.index.terms.postings()  # built (a store this small keeps its rows in the unbuilt tail until asked)
    yield opened
    opened.close()


def _cached(store: Store, repo: str | None, text: str) -> list[bm25_scores.TermScores]:
    index = store.index
    candidates = index.candidates(repo, repo is None, None, GLOBAL_REPO)
    term_ids, _ = index.terms.query_terms(text)
    bm25_scores.bm25_sums(index, candidates, candidates, term_ids, 1.2, 0.75)
    return list(candidates.term_scores.values())


def test_rows_of_the_set_of_every_row_are_views_and_cost_nothing(store: Store) -> None:
    store.index._candidates = {}
    cached = _cached(store, None, "database locked retry")
    assert cached and all(not score.rows.flags.owndata for score in cached)
    assert all(score.nbytes == score.contribution.nbytes for score in cached)


def test_rows_of_a_subset_are_counted(store: Store) -> None:
    store.index._candidates = {}
    cached = _cached(store, REPOS[0], "database locked retry")
    assert cached and all(score.nbytes == score.contribution.nbytes + score.rows.nbytes for score in cached)


def test_the_oldest_terms_go_past_the_budget(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.index._candidates = {}
    first = _cached(store, None, "database locked retry")
    monkeypatch.setattr(bm25_scores, "CACHE_BYTES", sum(score.nbytes for score in first))
    both = _cached(store, None, "database locked retry webhook idempotency key")
    candidates = store.index.candidates(None, True, None, GLOBAL_REPO)
    term_ids, _ = store.index.terms.query_terms("webhook idempotency key")
    assert len(both) == len(first) + term_ids.size  # the query's own terms are never dropped
    oldest = next(iter(candidates.term_scores))
    left = _cached(store, None, "webhook idempotency key")
    assert set(term_ids.tolist()) <= {key[-1] for key in candidates.term_scores}
    assert oldest not in candidates.term_scores  # the terms cached first went first
    assert sum(score.nbytes for score in left) <= bm25_scores.CACHE_BYTES
