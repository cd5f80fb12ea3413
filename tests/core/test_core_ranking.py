"""Hybrid ranking (spec §4.2): each factor against hand-computed values, scoping (TC-MEM-02, 03), the
locality boost and global-axiom cap (TC-MEM-14), and a cross-check against a per-row reference."""

from __future__ import annotations

import math
import random
from datetime import timedelta

import pytest

from mneme_reference import NOW, SPEC_LAMBDA, decode_blob, dot, raw_rows, ref_embed, ref_load, ref_recall
from mneme_tui.memory import kinds as K
from mneme_tui.memory.records import BENCH, Provenance
from mneme_tui.memory.store import Store

GENERATED = Provenance(BENCH, "test")

COMPONENTS = {"cosine", "lexical", "decay", "reinforcement", "locality"}


def _blob(store: Store, memory_id: int) -> list[float]:
    return decode_blob(raw_rows(store.path, "id = ?", (memory_id,))[0]["embedding"])


def _by_id(results):
    return {r.memory.id: r for r in results}


def _product(c: dict[str, float]) -> float:
    return (0.75 * c["cosine"] + 0.25 * c["lexical"]) * c["decay"] * c["reinforcement"] * c["locality"]


# ------------------------------------------------------------------------------ factors
def test_cosine_is_dot_of_stored_vectors(store: Store):
    a = store.save("alpha beta gamma")
    b = store.save("alpha delta")
    c = store.save("epsilon zeta eta theta")
    results = _by_id(store.recall("alpha delta", repo="global", limit=10, profile="spec"))
    query = _blob(store, b.id)  # the query text equals b's content, so its vector is b's stored vector
    for memory in (a, b, c):
        if memory.id in results:
            expected = dot(_blob(store, memory.id), query)
            assert results[memory.id].components["cosine"] == pytest.approx(expected, abs=1e-6)
    assert results[b.id].components["cosine"] == pytest.approx(1.0, abs=1e-6)
    for result in results.values():
        assert -1.0 <= result.components["cosine"] <= 1.0 + 1e-6


def test_lexical_overlap_counts_distinct_query_tokens(store: Store):
    a = store.save("alpha beta gamma gamma")
    b = store.save("ALPHA, alpha; nothing else")
    results = _by_id(store.recall("Alpha beta delta delta", repo="global", limit=10, profile="spec"))
    # distinct query tokens {alpha, beta, delta}
    assert results[a.id].components["lexical"] == pytest.approx(2 / 3)
    assert results[b.id].components["lexical"] == pytest.approx(1 / 3)
    exact = _by_id(store.recall("gamma alpha beta", repo="global", limit=10, profile="spec"))
    assert exact[a.id].components["lexical"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "kind, days",
    [("axiom", 10), ("reflection", 10), ("pitfall", 45.5), ("commit", 3), ("pattern", 365), ("decision", 0.25)],
)
def test_decay_for_past_created_at(store: Store, kind, days):
    memory = store.mint("decay probe text", provenance=GENERATED, kind=kind, created_at=NOW - timedelta(days=days))
    result = store.recall("decay probe", repo="global", limit=1, profile="spec")[0]
    assert result.memory.id == memory.id
    assert result.components["decay"] == pytest.approx(math.exp(-K.DECAY_LAMBDA[kind] * days), rel=1e-9)


def test_spec_lambdas():
    for kind, lam in SPEC_LAMBDA.items():
        assert K.DECAY_LAMBDA[kind] == lam
    assert set(K.DECAY_LAMBDA) >= set(K.ALL_KINDS)
    assert all(lam > 0 for lam in K.DECAY_LAMBDA.values())


def test_lambda_applied_for_every_kind(store: Store):
    days = 30
    ids = {
        kind: store.mint("lambda probe", provenance=GENERATED, kind=kind, created_at=NOW - timedelta(days=days)).id
        for kind in K.DECAY_LAMBDA
    }
    for kind, lam in K.DECAY_LAMBDA.items():
        results = store.recall("lambda probe", repo="global", kind=kind, limit=5, profile="spec")
        assert [r.memory.id for r in results] == [ids[kind]], kind
        assert results[0].components["decay"] == pytest.approx(math.exp(-lam * days), rel=1e-9), kind


def test_future_created_at_does_not_boost(store: Store):
    store.mint("from the future", provenance=GENERATED, kind="reflection", created_at=NOW + timedelta(days=5))
    assert store.recall("future", repo="global", profile="spec")[0].components["decay"] == 1.0


@pytest.mark.sqlite_only
def test_unknown_kind_from_another_writer_decays_like_reflection(store: Store):
    import sqlite3

    from mneme_tui.memory.vectors import embed, to_blob

    connection = sqlite3.connect(store.path)
    connection.execute(
        "INSERT INTO memories(repo_id, kind, topic, content, task_id, embedding, created_at) VALUES (?,?,?,?,?,?,?)",
        ("global", "hunch", "General", "odd kind row", "", to_blob(embed("odd kind row")), "2026-11-19 12:00:00"),
    )
    connection.commit()
    connection.close()
    result = store.recall("odd kind row", repo="global", profile="spec")[0]
    assert result.memory.kind == "hunch"
    assert result.components["decay"] == pytest.approx(math.exp(-K.DECAY_LAMBDA["reflection"] * 10))


@pytest.mark.parametrize("access, factor", [(0, 1.0), (3, 1.15), (10, 1.5), (25, 1.5)])
def test_reinforcement_factor(store: Store, access, factor):
    store.mint("reinforcement probe", provenance=GENERATED, kind="reflection", access_count=access)
    result = store.recall("reinforcement probe", repo="global", profile="spec")[0]
    assert result.components["reinforcement"] == pytest.approx(factor)


def test_locality_and_score_is_product(store: Store):
    local = store.mint(
        "locality probe words",
        provenance=GENERATED,
        kind="decision",
        repo_id="nomos",
        created_at=NOW - timedelta(days=7),
        access_count=4,
    )
    shared = store.mint(
        "locality probe other words",
        provenance=GENERATED,
        kind="pitfall",
        repo_id="global",
        created_at=NOW - timedelta(days=20),
        access_count=12,
    )
    scoped = _by_id(store.recall("locality probe words", repo="nomos", limit=10, profile="spec"))
    crossed = _by_id(store.recall("locality probe words", repo="nomos", cross_repo=True, limit=10, profile="spec"))
    assert scoped[local.id].components["locality"] == 1.25
    assert scoped[shared.id].components["locality"] == 1.0
    assert crossed[local.id].components["locality"] == 1.0
    assert scoped[local.id].score / crossed[local.id].score == pytest.approx(1.25)
    assert scoped[shared.id].score == pytest.approx(crossed[shared.id].score)
    for results in (scoped, crossed):
        for result in results.values():
            assert set(result.components) == COMPONENTS
            assert result.score == pytest.approx(_product(result.components), rel=1e-6)


def test_ties_ordered_by_lower_id(store: Store):
    # identical texts: minted (save would return the first one again: no new duplicates)
    ids = [
        store.mint("same words everywhere", kind="reflection", repo_id="nomos", provenance=GENERATED).id
        for _ in range(12)
    ]
    results = store.recall("same words", repo="nomos", limit=4, profile="spec")
    assert [r.memory.id for r in results] == ids[:4]
    assert len({r.score for r in results}) == 1
    results = store.recall("same words", repo="nomos", cross_repo=True, limit=12, profile="spec")
    assert [r.memory.id for r in results] == ids


def test_identical_memories_tie_exactly_and_come_back_by_id(store: Store):
    ids = [store.mint("cache invalidation strategy", kind="reflection", provenance=GENERATED).id for _ in range(6)]
    results = store.recall("cache invalidation strategy", repo="global", limit=6, profile="spec")
    assert len({r.score for r in results}) == 1
    assert [r.memory.id for r in results] == ids


def test_cosine_bounded_by_one(store: Store):
    for _ in range(3):
        store.mint("cache invalidation strategy", kind="reflection", provenance=GENERATED)
    results = store.recall("cache invalidation strategy", repo="global", limit=3, profile="spec")
    assert all(-1.0 <= r.components["cosine"] <= 1.0 for r in results)


def test_results_ordered_by_score_and_positive(store: Store):
    rng = random.Random(7)
    words = "cache redis ttl eviction lock thread worker pool queue retry backoff".split()
    for _i in range(60):
        store.mint(
            " ".join(rng.sample(words, 4)),
            provenance=GENERATED,
            kind=rng.choice(K.ALL_KINDS),
            repo_id="nomos",
            created_at=NOW - timedelta(days=rng.uniform(0, 200)),
        )
    results = store.recall("redis cache eviction", repo="nomos", limit=20, profile="spec")
    assert len(results) == 20
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)
    assert all(s > 0 for s in scores)


def test_limit_respected(store: Store):
    for i in range(9):
        store.save(f"limit probe {i}")
    assert len(store.recall("limit probe", repo="global", profile="spec")) == 5  # default
    assert len(store.recall("limit probe", repo="global", limit=1, profile="spec")) == 1
    assert len(store.recall("limit probe", repo="global", limit=100, profile="spec")) == 9


# ------------------------------------------------------------------------------ scoping
@pytest.fixture
def three_repos(store: Store) -> dict[str, int]:
    return {
        "nomos": store.save("retry the flaky network call", repo_id="nomos").id,
        "acme": store.save("retry the flaky network call", repo_id="acme-backend").id,
        "global": store.save("retry the flaky network call", repo_id="global").id,
        "shipctl": store.save("retry the flaky network call", repo_id="shipctl").id,
    }


def test_tc_mem_02_scoped_recall_matches_only_current_repo_or_global(store: Store, three_repos):
    got = {r.memory.repo_id for r in store.recall("flaky network", repo="nomos", limit=10, profile="spec")}
    assert got == {"nomos", "global"}
    got = {r.memory.repo_id for r in store.recall("flaky network", repo="acme-backend", limit=10, profile="spec")}
    assert got == {"acme-backend", "global"}
    got = {r.memory.repo_id for r in store.recall("flaky network", repo="unknown-repo", limit=10, profile="spec")}
    assert got == {"global"}


def test_tc_mem_03_cross_repo_matches_all_repos(store: Store, three_repos):
    results = store.recall("flaky network", repo="nomos", cross_repo=True, limit=10, profile="spec")
    assert {r.memory.repo_id for r in results} == {"nomos", "acme-backend", "global", "shipctl"}
    # no locality boost: identical memories tie and come back by id
    assert [r.memory.id for r in results] == sorted(three_repos.values())
    assert {r.components["locality"] for r in results} == {1.0}


# ------------------------------------------------------------------- TC-MEM-14 cap/backfill
QUERY = "cache invalidation strategy"


def _seed_cap(store: Store, n_nomos: int, n_axioms: int = 3) -> tuple[list[int], list[int]]:
    """nomos memories plus global axioms that match the query better than any of them.

    Returns the nomos ids and the axiom ids in their uncapped rank order (taken from a -A recall).
    """
    nomos = [
        store.save(f"cache invalidation note {i} for the nomos service", repo_id="nomos").id for i in range(n_nomos)
    ]
    axioms = [
        store.save(f"cache invalidation strategy rule{i}", kind="axiom", repo_id="global").id for i in range(n_axioms)
    ]
    store.save("cache invalidation strategy in another repo", repo_id="acme")
    uncapped = store.recall(QUERY, repo="nomos", kind="axiom", limit=50, profile="spec")
    ranked = [r.memory.id for r in uncapped]
    assert sorted(ranked) == axioms
    weakest_axiom = uncapped[-1].score
    best_nomos = max(
        (r.score for r in store.recall(QUERY, repo="nomos", limit=50, profile="spec") if r.memory.id in nomos),
        default=0.0,
    )
    assert weakest_axiom > best_nomos  # so the cap, not the score, decides how many axioms show
    return nomos, ranked


def test_tc_mem_14_locality_boost_and_axiom_cap(store: Store):
    _nomos, axioms = _seed_cap(store, n_nomos=5)
    scoped = store.recall(QUERY, repo="nomos", limit=5, profile="spec")
    crossed = _by_id(store.recall(QUERY, repo="nomos", cross_repo=True, limit=20, profile="spec"))
    got = [r.memory.id for r in scoped]
    assert len(got) == 5
    assert [i for i in got if i in axioms] == axioms[:1]  # capped to max(1, 5 // 3) = 1
    assert {r.memory.repo_id for r in scoped} == {"nomos", "global"}
    for result in scoped:
        if result.memory.repo_id == "nomos":
            assert result.components["locality"] == 1.25
            assert result.score / crossed[result.memory.id].score == pytest.approx(1.25)
        else:
            assert result.components["locality"] == 1.0
            assert result.score == pytest.approx(crossed[result.memory.id].score)
    # without the cap the axioms would have taken the top three places
    assert [r.memory.id for r in store.recall(QUERY, repo="nomos", cross_repo=True, limit=3, profile="spec")] == axioms
    assert all(r.memory.repo_id != "acme" for r in scoped)


def test_tc_mem_14_cap_does_not_apply_to_typed_or_cross_repo_queries(store: Store):
    _nomos, axioms = _seed_cap(store, n_nomos=5)
    typed = [r.memory.id for r in store.recall(QUERY, repo="nomos", kind="axiom", limit=5, profile="spec")]
    assert typed == axioms  # all three, although untyped scoped queries show one
    crossed = [r.memory.id for r in store.recall(QUERY, repo="nomos", cross_repo=True, limit=5, profile="spec")]
    assert set(axioms) <= set(crossed)


def test_tc_mem_14_cap_applies_only_to_axioms(store: Store):
    _seed_cap(store, n_nomos=5)
    decisions = [store.save(f"cache invalidation strategy decision {i}", kind="decision").id for i in range(3)]
    got = [r.memory.id for r in store.recall(QUERY, repo="nomos", limit=5, profile="spec")]
    assert set(decisions) <= set(got)


@pytest.mark.parametrize("n_nomos, expected_axioms", [(5, 1), (4, 1), (3, 2), (2, 3), (1, 3), (0, 3)])
def test_tc_mem_14_backfill_only_when_repo_matches_are_sparse(store: Store, n_nomos, expected_axioms):
    nomos, axioms = _seed_cap(store, n_nomos=n_nomos, n_axioms=3)
    results = store.recall(QUERY, repo="nomos", limit=5, profile="spec")
    got = [r.memory.id for r in results]
    assert [i for i in got if i in axioms] == axioms[:expected_axioms]
    assert len([i for i in got if i in nomos]) == min(n_nomos, 5 - expected_axioms)
    assert len(got) == min(5, n_nomos + 3)
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)
    backfilled = [r for r in results if any("backfill" in reason for reason in r.reasons)]
    assert len(backfilled) == expected_axioms - 1


@pytest.mark.parametrize("limit, slots", [(1, 1), (3, 1), (5, 1), (6, 2), (9, 3)])
def test_tc_mem_14_slot_count_is_max_1_floor_limit_over_3(store: Store, limit, slots):
    _nomos, axioms = _seed_cap(store, n_nomos=12, n_axioms=5)
    got = [r.memory.id for r in store.recall(QUERY, repo="nomos", limit=limit, profile="spec")]
    assert len(got) == limit
    assert [i for i in got if i in axioms] == axioms[:slots]


def test_scoped_search_of_global_itself_boosts_global_and_does_not_cap(store: Store):
    axioms = [store.save(f"global axiom number{i}", kind="axiom", repo_id="global").id for i in range(4)]
    results = store.recall("global axiom", repo="global", limit=5, profile="spec")
    assert sorted(r.memory.id for r in results) == axioms
    assert {r.components["locality"] for r in results} == {1.25}


# ----------------------------------------------------------------------------- cross-check
WORDS = (
    "cache redis ttl eviction lock mutex thread worker pool queue retry backoff sqlite wal "
    "index vector cosine token parser schema migration deploy release rollback flaky test "
    "timeout network socket json yaml config env path git branch merge commit review "
    "straße café 数据库 naïve"
).split()
REPOS = ("nomos", "acme", "shipctl", "global")


def _seed_random(store: Store, count: int, seed: int) -> None:
    rng = random.Random(seed)
    items = []
    for _i in range(count):
        repo = rng.choice(REPOS)
        kind = "axiom" if repo == "global" and rng.random() < 0.5 else rng.choice(K.ALL_KINDS)
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 9))]
        if rng.random() < 0.1:
            words.append(rng.choice(["Hello,", "WORLD!", "x86_64", "[bold]", "v2.0"]))
        items.append(
            dict(
                content=" ".join(words),
                provenance=GENERATED,
                kind=kind,
                repo_id=repo,
                topic=rng.choice(["General", "Architecture", "Verification"]),
                created_at=NOW - timedelta(days=rng.uniform(-2, 500), seconds=rng.randint(0, 86399)),
                status=rng.choices(K.STATUSES, weights=[8, 1, 1])[0],
                access_count=rng.choice([0, 0, 1, 2, 3, 5, 9, 10, 11, 40]),
            )
        )
    store.mint_many(items)


CROSS_QUERIES = [
    "redis cache eviction",
    "flaky test retry backoff",
    "sqlite wal lock",
    "deploy release rollback",
    "Cache CACHE cache ttl",
    "git branch merge commit review",
    "straße 数据库",
    "json yaml config env path unknownword",
    "worker pool queue thread mutex",
    "vector cosine token",
]
SHAPES = [
    dict(repo="nomos"),
    dict(repo="acme"),
    dict(repo="nomos", cross_repo=True),
    dict(repo="shipctl", kind="axiom"),
    dict(repo="nomos", kind="reflection"),
    dict(repo="acme", cross_repo=True, kind="pitfall"),
    dict(repo="nomos", limit=7),
    dict(repo="global"),
]


def _assert_same(store: Store, rows, query: str, shape: dict) -> None:
    limit = shape.get("limit", 5)
    expected = ref_recall(
        rows,
        query,
        repo=shape["repo"],
        cross_repo=shape.get("cross_repo", False),
        kind=shape.get("kind"),
        limit=limit,
        lambdas=K.DECAY_LAMBDA,
    )
    got = store.recall(
        query,
        repo=shape["repo"],
        cross_repo=shape.get("cross_repo", False),
        kind=shape.get("kind"),
        limit=limit,
        profile="spec",
    )
    assert [r.memory.id for r in got] == [e[0] for e in expected], (query, shape)
    for result, (_, score, parts) in zip(got, expected):
        assert result.score == pytest.approx(score, abs=1e-5), (query, shape, result.memory.id)
        for name, value in parts.items():
            assert result.components[name] == pytest.approx(value, abs=1e-5), (query, shape, name)


def test_recall_matches_per_row_reference_300_memories(store: Store):
    _seed_random(store, 300, seed=20261129)
    rows = ref_load(store.path)
    assert len(rows) == 300
    assert sum(r.repo_id == "global" and r.kind == "axiom" and r.status == "active" for r in rows) > 10
    for query in CROSS_QUERIES:
        for shape in SHAPES:
            _assert_same(store, rows, query, shape)


def test_recall_matches_reference_after_postings_are_built(store: Store, tmp_path):
    """Past ~2000 rows the index switches to token postings plus a scanned tail; both must agree."""
    _seed_random(store, 2300, seed=99)
    shapes = [dict(repo="nomos", limit=25), dict(repo="acme", cross_repo=True, limit=25)]
    queries = CROSS_QUERIES[:4]
    rows = ref_load(store.path)
    for query in queries:
        for shape in shapes:
            _assert_same(store, rows, query, shape)
    # a second writer appends rows (the tail) and edits rows covered by the postings and by the tail
    other = Store(store.path)
    _seed_random(other, 40, seed=5)
    other.update_content(3, content="redis cache eviction rewritten for postings")
    other.update_content(2310, content="sqlite wal lock rewritten in the tail")
    other.dismiss([5, 2320])
    rows = ref_load(store.path)
    for query in queries:
        for shape in shapes:
            _assert_same(store, rows, query, shape)


def test_reference_vectors_agree_with_store_blobs(store: Store):
    _seed_random(store, 40, seed=3)
    for row in ref_load(store.path):
        assert max(abs(a - b) for a, b in zip(row.vector, ref_embed(row.content))) < 1e-6
