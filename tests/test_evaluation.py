"""The recall evaluation harness: the labelled dataset, the metrics, the baselines and the store adapter."""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from mneme_tui.errors import MnemeError
from mneme_tui.memory import evaluation as ev

DATASET = Path(__file__).parent / "data" / "recall_eval.json"
ALL_KINDS = {
    "reflection",
    "axiom",
    "decision",
    "fact",
    "preference",
    "architecture",
    "pitfall",
    "pattern",
    "release",
    "task",
    "commit",
    "review",
}


def memory(key: str, content: str, repo: str = "app", kind: str = "fact", **extra) -> dict:
    return {
        "key": key,
        "repo": repo,
        "kind": kind,
        "topic": "General",
        "content": content,
        "age_days": extra.pop("age_days", 1),
        "access_count": extra.pop("access_count", 0),
        **extra,
    }


def question(
    qid: str, query: str, answers: list[str], repo: str = "app", category: str = "lexical", cross_repo: bool = False
) -> dict:
    return {"id": qid, "query": query, "repo": repo, "cross_repo": cross_repo, "answers": answers, "category": category}


def document(memories: list[dict], questions: list[dict]) -> dict:
    return {"description": "toy", "now": "2026-01-01T00:00:00", "memories": memories, "questions": questions}


@pytest.fixture(scope="module")
def dataset() -> ev.Dataset:
    return ev.load_dataset(DATASET)


# --------------------------------------------------------------------------- the shipped dataset


def test_dataset_meets_size_and_coverage_minimums(dataset: ev.Dataset) -> None:
    assert len(dataset.memories) >= 160
    assert len(dataset.questions) >= 64
    assert {m.kind for m in dataset.memories} >= ALL_KINDS
    repos = Counter(m.repo for m in dataset.memories)
    assert "global" in repos
    assert len(set(repos) - {"global"}) >= 5
    categories = Counter(q.category for q in dataset.questions)
    assert set(categories) == set(ev.CATEGORIES)
    assert min(categories.values()) >= 12
    assert any(q.cross_repo for q in dataset.questions)
    assert any(dataset.memory(a).repo == "global" for q in dataset.questions for a in q.answers)
    assert dataset.now == datetime(2026, 11, 29, 12, 0, 0)


def test_dataset_is_varied_and_well_formed(dataset: ev.Dataset) -> None:
    assert len({m.age_days for m in dataset.memories}) > 30
    assert len({m.access_count for m in dataset.memories}) > 5
    assert len({m.content for m in dataset.memories}) == len(dataset.memories)
    assert len({q.query.lower() for q in dataset.questions}) == len(dataset.questions)
    # every question asks from a real repo, and every answer is a recall candidate for it
    repos = {m.repo for m in dataset.memories} - {"global"}
    for q in dataset.questions:
        assert q.repo in repos
        candidates = {m.key for m in dataset.candidates(q)}
        assert set(q.answers) <= candidates


def test_dataset_file_is_one_record_per_line() -> None:
    lines = DATASET.read_text(encoding="utf-8").splitlines()
    records = [line for line in lines if line.strip().startswith('{"')]
    data = json.loads(DATASET.read_text(encoding="utf-8"))
    assert len(records) == len(data["memories"]) + len(data["questions"])


# --------------------------------------------------------------------------- validation


def write(tmp_path: Path, data) -> Path:
    path = tmp_path / "ds.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


GOOD = document([memory("m1", "alpha beta"), memory("m2", "gamma", repo="other")], [question("q1", "alpha", ["m1"])])


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda d: d["memories"].append(memory("m1", "dup")), "duplicate memory key 'm1'"),
        (lambda d: d["memories"][0].update(kind="gossip"), "unknown kind 'gossip'"),
        (lambda d: d["memories"][0].update(status="deleted"), "unknown status"),
        (lambda d: d["memories"][0].update(content="   "), "'content' is empty"),
        (lambda d: d["memories"][0].pop("topic"), "missing 'topic'"),
        (lambda d: d["memories"][0].update(age_days="12"), "'age_days' has the wrong type"),
        (lambda d: d["memories"][0].update(age_days=-1), "negative"),
        (lambda d: d["memories"][0].update(access_count=1.5), "'access_count' has the wrong type"),
        (lambda d: d["memories"][0].update(access_count=True), "'access_count' has the wrong type"),
        (lambda d: d["questions"][0].update(answers=["m9"]), "answer 'm9' is not a memory key"),
        (lambda d: d["questions"][0].update(answers=[]), "non-empty list"),
        (lambda d: d["questions"][0].update(answers=["m2"]), "outside the question's scope"),
        (lambda d: d["questions"][0].update(category="vibes"), "unknown category 'vibes'"),
        (lambda d: d["questions"][0].update(cross_repo="no"), "'cross_repo' has the wrong type"),
        (lambda d: d["questions"].append(question("q1", "again", ["m1"])), "duplicate question id 'q1'"),
        (lambda d: d["memories"][0].update(status="tombstoned"), "'m1' is not active"),
        (lambda d: d.update(now="yesterday"), "'now' is not an ISO-8601 time"),
        (lambda d: d.update(questions=[]), "'questions' is empty"),
        (lambda d: d.update(memories={}), "'memories' has the wrong type"),
    ],
)
def test_bad_dataset_raises_validation_error(tmp_path: Path, mutate, fragment: str) -> None:
    data = copy.deepcopy(GOOD)
    mutate(data)
    with pytest.raises(MnemeError) as caught:
        ev.load_dataset(write(tmp_path, data))
    assert caught.value.code == "ERR_VALIDATION_FAILED"
    assert fragment in caught.value.message
    assert "\n" not in str(caught.value)


def test_good_toy_dataset_loads(tmp_path: Path) -> None:
    loaded = ev.load_dataset(write(tmp_path, GOOD))
    assert [m.key for m in loaded.memories] == ["m1", "m2"]
    assert loaded.questions[0].answers == ("m1",)
    # cross_repo makes the other repo's memory a valid answer
    data = copy.deepcopy(GOOD)
    data["questions"][0].update(answers=["m2"], cross_repo=True)
    assert ev.load_dataset(write(tmp_path, data)).questions[0].cross_repo is True


def test_invalid_json_and_non_object_are_validation_errors(tmp_path: Path) -> None:
    with pytest.raises(MnemeError, match="invalid JSON at line 1") as caught:
        ev.load_dataset(write(tmp_path, "{not json"))
    assert caught.value.code == "ERR_VALIDATION_FAILED"
    with pytest.raises(MnemeError, match="top level must be a JSON object"):
        ev.load_dataset(write(tmp_path, "[]"))


def test_missing_file_is_an_io_error(tmp_path: Path) -> None:
    with pytest.raises(MnemeError) as caught:
        ev.load_dataset(tmp_path / "nope.json")
    assert caught.value.code == "ERR_IO"


def test_candidates_are_scoped_and_active_only() -> None:
    data = document(
        [
            memory("m3", "c"),
            memory("m1", "a", repo="global"),
            memory("m2", "b", repo="other"),
            memory("m4", "d", status="superseded"),
        ],
        [question("q1", "a", ["m1"]), question("q2", "b", ["m2"], cross_repo=True)],
    )
    ds = ev.parse_dataset(data)
    assert [m.key for m in ds.candidates(ds.questions[0])] == ["m1", "m3"]
    assert [m.key for m in ds.candidates(ds.questions[1])] == ["m1", "m2", "m3"]


# --------------------------------------------------------------------------- metrics


def test_metrics_on_a_hand_made_dataset() -> None:
    ds = ev.parse_dataset(
        document(
            [memory(f"m{i}", f"memory {i}") for i in range(1, 13)],
            [
                question("q1", "x", ["m1"], category="lexical"),  # ranked 1st
                question("q2", "x", ["m3", "m9"], category="lexical"),  # m3 at rank 3 (m9 later)
                question("q3", "x", ["m7"], category="paraphrase"),  # rank 7: R@5 miss, RR 1/7
                question("q4", "x", ["m12"], category="paraphrase"),  # rank 11: beyond the cutoff
                question("q5", "x", ["m2"], category="stopword"),  # not returned at all
            ],
        )
    )
    rankings = {
        "q1": ["m1", "m2"],
        "q2": ["m1", "m2", "m3", "m4", "m9"],
        "q3": ["m1", "m2", "m3", "m4", "m5", "m6", "m7"],
        "q4": [f"m{i}" for i in range(1, 13)],
        "q5": [],
    }
    report = ev.evaluate(ds, {"fixed": lambda q: rankings[q.id]})
    result = report.results["fixed"]
    assert [r.rank for r in result.questions] == [1, 3, 7, None, None]
    assert result.overall == ev.Metrics(
        questions=5, recall_at_1=1 / 5, recall_at_5=2 / 5, mrr_at_10=pytest.approx((1 + 1 / 3 + 1 / 7) / 5)
    )
    assert result.by_category["lexical"] == ev.Metrics(2, 0.5, 1.0, pytest.approx((1 + 1 / 3) / 2))
    assert result.by_category["paraphrase"] == ev.Metrics(2, 0.0, 0.0, pytest.approx(1 / 14))
    assert result.by_category["stopword"] == ev.Metrics(1, 0.0, 0.0, 0.0)
    assert list(result.by_category) == ["lexical", "paraphrase", "stopword"]
    assert result.questions[3].top == tuple(f"m{i}" for i in range(1, 11))  # cut at 10


def test_first_hit_rank_and_summarize_edges() -> None:
    assert ev.first_hit_rank(["a", "b", "c"], ["c", "b"]) == 2
    assert ev.first_hit_rank([str(i) for i in range(20)], ["10"]) is None
    assert ev.first_hit_rank([str(i) for i in range(20)], ["9"]) == 10
    assert ev.summarize([]) == ev.Metrics(0, 0.0, 0.0, 0.0)
    assert ev.summarize([5, 6]) == ev.Metrics(2, 0.0, 0.5, pytest.approx((1 / 5 + 1 / 6) / 2))


def test_report_serialises_and_renders() -> None:
    ds = ev.parse_dataset(GOOD)
    report = ev.evaluate(ds, {"always-m1": lambda q: ["m1"], "nothing": lambda q: []})
    data = json.loads(report.to_json())
    assert data["questions"] == 1 and data["memories"] == 2
    assert data["results"]["always-m1"]["overall"] == {
        "questions": 1,
        "recall_at_1": 1.0,
        "recall_at_5": 1.0,
        "mrr_at_10": 1.0,
    }
    assert data["results"]["nothing"]["questions"][0]["rank"] is None
    table = ev.render_table(report)
    assert "always-m1" in table and "nothing" in table and "MRR@10" in table
    assert "\x1b" not in table  # plain text, no terminal styling


# --------------------------------------------------------------------------- baselines


TOY = document(
    [
        memory("d1", "SQLite database is locked"),
        memory("d2", "the deploy lock file"),
        memory("d3", "database backup, database"),
        memory("d4", "database locked elsewhere", repo="elsewhere"),
    ],
    [question("q1", "Database LOCKED?", ["d1"])],
)


def test_bm25_matches_hand_computed_scores() -> None:
    # In scope: d1 (4 tokens), d2 (4), d3 (3): N = 3, avgdl = 11/3, k1 = 1.2, b = 0.75.
    # df(database) = 2, df(locked) = 1:
    idf_database = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # ln 1.6
    idf_locked = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))  # ln (8/3)
    norm_d1 = 1.2 * (1 - 0.75 + 0.75 * 4 / (11 / 3))
    norm_d3 = 1.2 * (1 - 0.75 + 0.75 * 3 / (11 / 3))
    d1 = (1 * 2.2 / (1 + norm_d1)) * (idf_database + idf_locked)
    d3 = (2 * 2.2 / (2 + norm_d3)) * idf_database
    assert d1 == pytest.approx(1.39880, abs=1e-4) and d3 == pytest.approx(0.68108, abs=1e-4)  # worked by hand

    ds = ev.parse_dataset(TOY)
    index = ev.TermIndex(ds)
    rows = index.candidate_rows(ds.questions[0])
    assert [index.keys[r] for r in rows] == ["d1", "d2", "d3"]
    scores = ev.bm25_scores(index.tf[rows], index.query_columns("Database LOCKED?"))
    np.testing.assert_allclose(scores, [d1, 0.0, d3], rtol=1e-12)
    # the ranker drops zero scores and never looks outside the question's scope
    assert ev.bm25_ranker(ds)(ds.questions[0]) == ["d1", "d3"]


def test_bm25_scores_direct_matrix() -> None:
    tf = np.array([[2.0, 0.0], [0.0, 1.0]])  # two docs, lengths 2 and 1, avgdl 1.5
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))  # ln 2 for both terms
    expected_0 = 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 2 / 1.5)) * idf
    np.testing.assert_allclose(ev.bm25_scores(tf, np.array([0])), [expected_0, 0.0])
    np.testing.assert_allclose(ev.bm25_scores(tf, np.array([], dtype=np.intp)), [0.0, 0.0])
    assert ev.bm25_scores(np.zeros((0, 2)), np.array([0])).shape == (0,)


def test_overlap_scores_and_ties_by_key_order() -> None:
    ds = ev.parse_dataset(
        document(
            [memory("m2", "lock file stale"), memory("m1", "database lock"), memory("m3", "database locked now")],
            [question("q1", "database lock error", ["m1"])],
        )
    )
    index = ev.TermIndex(ds)
    rows = index.candidate_rows(ds.questions[0])
    assert [index.keys[r] for r in rows] == ["m1", "m2", "m3"]
    # |q| = 3 distinct tokens ('error' is in no memory but still counts)
    scores = ev.overlap_scores(index.tf[rows], index.query_columns("database lock error"), 3)
    np.testing.assert_allclose(scores, [2 / 3, 1 / 3, 1 / 3])
    assert ev.overlap_ranker(ds)(ds.questions[0]) == ["m1", "m2", "m3"]  # m2 before m3: key order


def test_baselines_use_the_store_tokenizer() -> None:
    from mneme_tui.memory.vectors import tokenize

    assert ev.tokenize is tokenize
    assert ev.tokenize("OperationalError: database_is LOCKED, é日本") == [
        "operationalerror",
        "database",
        "is",
        "locked",
        "é日本",
    ]


def test_baselines_on_the_shipped_dataset(dataset: ev.Dataset) -> None:
    report = ev.evaluate(dataset, ev.baseline_rankers(dataset))
    for name in ("bm25", "overlap"):
        overall = report.results[name].overall
        assert overall.questions == len(dataset.questions)
        assert 0.0 < overall.recall_at_1 <= overall.recall_at_5 <= 1.0
        assert overall.recall_at_1 <= overall.mrr_at_10 <= 1.0
        for result in report.results[name].questions:
            assert len(result.top) <= ev.RANK_CUTOFF
    # paraphrase and stop-word questions are meant to be hard for bag-of-words rankers
    bm25 = report.results["bm25"].by_category
    assert bm25["paraphrase"].recall_at_1 < bm25["identifier"].recall_at_1
    assert bm25["stopword"].recall_at_1 < bm25["lexical"].recall_at_1


# --------------------------------------------------------------------------- the store adapter


def test_store_ranker_on_a_toy_dataset(tmp_path: Path) -> None:
    pytest.importorskip("mneme_tui.memory.store")
    ds = ev.parse_dataset(TOY)
    loaded = ev.load_into_store(ds, tmp_path / "toy.db")
    try:
        assert sorted(loaded.id_to_key.values()) == ["d1", "d2", "d3", "d4"]
        ranking = ev.store_ranker(ds, loaded=loaded)(ds.questions[0])
        assert ranking[0] == "d1"
        assert "d4" not in ranking  # scoped to the question's repo
        cross = ev.Question("q2", "database locked", "app", True, ("d4",), "lexical")
        assert "d4" in ev.store_ranker(ds, loaded=loaded)(cross)
    finally:
        loaded.close()


def test_store_ranker_on_the_shipped_dataset(dataset: ev.Dataset, tmp_path: Path) -> None:
    pytest.importorskip("mneme_tui.memory.store")
    report = ev.evaluate(dataset, {"store": ev.store_ranker(dataset, tmp_path / "eval.db")})
    result = report.results["store"]
    assert result.overall.questions == len(dataset.questions)
    # each rank is where the first labelled answer stands in the top list; the metrics summarise the ranks
    answers = {q.id: q.answers for q in dataset.questions}
    for question in result.questions:
        hits = [number for number, key in enumerate(question.top, start=1) if key in answers[question.id]]
        assert question.rank == (hits[0] if hits else None)
    assert result.overall == ev.summarize([q.rank for q in result.questions])
    # hand-checked: the only memory naming ignoreDifferences and /spec/replicas
    assert {q.id: q.top[0] for q in result.questions}["q055"] == "m148"


def test_store_ranker_needs_a_database() -> None:
    with pytest.raises(MnemeError, match="needs a db_path"):
        ev.store_ranker(ev.parse_dataset(GOOD))


def test_main_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert ev.main([str(DATASET)]) == 0
    out = capsys.readouterr().out
    assert "bm25" in out and "overlap" in out and "near-duplicate" in out


def test_main_reports_bad_input_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ev.main([str(write(tmp_path, "{"))]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("ERR_VALIDATION_FAILED:") and "\n" not in err


def test_held_out_split_follows_file_order() -> None:
    ds = ev.parse_dataset(
        document(
            [memory(f"m{i}", f"memory {i}") for i in range(1, 5)],
            [
                question("q9", "x", ["m1"]),
                question("q2", "x", ["m2"]),
                question("q3", "x", ["m3"]),
                question("q1", "x", ["m4"]),
            ],
        )
    )
    report = ev.evaluate(ds, {"first": lambda q: ["m1", "m2", "m3", "m4"]}, held_out_from="q3")
    result = report.results["first"]
    assert list(result.by_split) == [ev.DEV, ev.HELD_OUT]
    assert result.by_split[ev.DEV] == ev.Metrics(2, 0.5, 1.0, pytest.approx((1 + 1 / 2) / 2))
    assert result.by_split[ev.HELD_OUT] == ev.Metrics(2, 0.0, 1.0, pytest.approx((1 / 3 + 1 / 4) / 2))
    table = ev.render_table(report)
    assert "held-out" in table and "from q3 on" in table
    assert ev.evaluate(ds, {"first": lambda q: []}).results["first"].by_split == {}
    with pytest.raises(MnemeError, match="held-out question 'q7'"):
        ev.evaluate(ds, {"first": lambda q: []}, held_out_from="q7")


def test_run_evaluates_profiles_and_baselines_on_one_temporary_store(tmp_path: Path) -> None:
    report, variants = ev.run(write(tmp_path, TOY), profiles=["bm25", "bm25"])
    assert variants is None
    assert list(report.results) == ["profile:bm25", "baseline:bm25", "baseline:overlap"]
    assert report.results["profile:bm25"].questions[0].top[0] == "d1"
    with pytest.raises(MnemeError, match="unknown profile"):
        ev.run(write(tmp_path, TOY), profiles=["fancy"])
