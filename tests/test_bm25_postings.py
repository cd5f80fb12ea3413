"""The bm25 profile scores from the query terms' postings (``memory/bm25_scores``): the same results as a
full scan of every candidate row, on a generated store, for many queries (terms in no row, terms in every
row), scoped and across repos, by kind, with rows appended since the postings were built and rows edited."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from mneme_tui.bench.synthetic import QUERIES, REPOS, generate
from mneme_tui.config import GLOBAL_REPO
from mneme_tui.memory import ranking
from mneme_tui.memory.index import Candidates, MemoryIndex
from mneme_tui.memory.store import Store

NOW = datetime(2026, 11, 29, 12, 0, 0)
EXTRA_QUERIES = (
    "zzyzx",
    "ref",
    "ref lock",
    "zzyzx database locked",
    "connection pool retry webhook token",
    "the of and",
    "Function Length gate",
    "useSession hooks",
    "quokka lantern",
    "ref 17",
)


@dataclass(frozen=True)
class FullScanBm25:
    """The bm25 profile computed the plain way: every candidate row's terms read from the row-major CSR."""

    inner: ranking.Bm25Profile
    name = "bm25-full-scan"
    description = "reference"

    @property
    def score_floor(self) -> float:
        return self.inner.score_floor

    def score(self, index: MemoryIndex, text: str, candidates: Candidates) -> ranking.Relevance:
        profile, terms = self.inner, index.terms
        term_ids, distinct = terms.query_terms(text)
        stats = candidates if profile.statistics == "candidates" else index.candidates(None, True, None, GLOBAL_REPO)
        in_stats = stats.maps(index.size)[0]
        owners = np.repeat(np.arange(index.size), np.diff(terms.doc_start))
        length_norm = profile.k1 * (
            1.0
            - profile.b
            + profile.b * terms.doc_len.astype(np.float64) / max(stats.average_length(terms.doc_len), 1e-9)
        )
        bm25, matched = np.zeros(index.size), np.zeros(index.size)
        for term in term_ids.tolist():  # in term order, as the postings path adds them
            entries = np.flatnonzero(terms.doc_terms == term)
            rows, tf = owners[entries], terms.doc_tf[entries].astype(np.float64)
            df = np.count_nonzero(in_stats[rows])
            idf = float(np.log1p(np.array([(stats.rows.size - df + 0.5) / (df + 0.5)]))[0])
            bm25[rows] += idf * tf * (profile.k1 + 1.0) / (tf + length_norm[rows])
            matched[rows] += 1
        bm25, matched = bm25[candidates.rows], matched[candidates.rows]
        best = bm25.max() if bm25.size else 0.0
        if profile.transform == "linear":
            relevance = bm25 / best if best > 0 else bm25
        else:
            relevance = np.where(matched > 0, np.exp(np.maximum(bm25 - best, -700.0)), 0.0)
        relevance[bm25 < profile.floor * best] = 0.0
        parts = {"relevance": relevance, "bm25": bm25, "matched": matched / float(max(distinct, 1))}
        return ranking.Relevance(relevance, parts)


def _compare(index: MemoryIndex, profile: ranking.Bm25Profile, now_days: float) -> int:
    """Rank every query shape both ways; the number of results compared."""
    compared = 0
    for text in QUERIES + EXTRA_QUERIES:
        for repo, cross_repo, kind in (
            (REPOS[0], False, None),
            (REPOS[3], False, "pitfall"),
            (REPOS[1], True, None),
            (REPOS[2], True, "axiom"),
        ):
            query = ranking.RecallQuery(text, repo, now_days, cross_repo=cross_repo, kind=kind, limit=8)
            fast = ranking.rank(index, query, profile)
            slow = ranking.rank(index, query, FullScanBm25(profile))  # type: ignore[arg-type]
            assert [(r.memory_id, r.reasons) for r in fast] == [(r.memory_id, r.reasons) for r in slow], text
            for got, want in zip(fast, slow):
                assert got.score == pytest.approx(want.score, rel=1e-12, abs=0)
                assert got.components == pytest.approx(want.components, rel=1e-12, abs=0)
            compared += len(fast)
    return compared


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):
    path = Path(tmp_path_factory.mktemp("bm25")) / "store.db"
    generated = Store(path)
    generated.mint_ids(generate(2_500, now=NOW))
    generated.close()
    opened = Store(path)
    opened.refresh_index()
    yield opened
    opened.close()


@pytest.mark.parametrize(
    "profile",
    [
        ranking.Bm25Profile(),
        ranking.Bm25Profile(statistics="index"),
        ranking.Bm25Profile(k1=2.0, b=0.3, transform="linear"),
    ],
)
def test_postings_give_the_full_scans_results(store: Store, profile: ranking.Bm25Profile) -> None:
    now_days = float(np.datetime64(NOW, "us").astype(np.int64)) / 86_400_000_000
    assert _compare(store.index, profile, now_days) > 300


def test_rows_appended_and_edited_since_the_postings_were_built(store: Store) -> None:
    now_days = float(np.datetime64(NOW, "us").astype(np.int64)) / 86_400_000_000
    profile = ranking.Bm25Profile()
    _compare(store.index, profile, now_days)  # builds the postings and fills the per-term cache
    for number in range(40):  # too few to rebuild the postings: the new rows are read from the tail
        store.save(f"quokka lantern {number}: the connection pool hit a database lock", repo_id=REPOS[number % 3])
    store.refresh_index()
    assert store.index.terms._built_for < store.index.size
    assert _compare(store.index, profile, now_days) > 300
    first = int(store.index.ids[5])
    store.update_content(first, content="zzyzx: a webhook retry without an idempotency key")
    store.refresh_index()
    assert _compare(store.index, profile, now_days) > 300
