"""Recall-quality evaluation: a labelled dataset, ranker-agnostic metrics and two lexical baselines.

A *ranker* is any callable that maps a :class:`Question` to an ordered list of memory keys (best
first). :func:`evaluate` scores any number of rankers on the same questions with recall@1, recall@5
and MRR@10, overall and per question category. Two baselines are built in and share the store's
tokenisation and candidate set: BM25 (:func:`bm25_ranker`) and plain lexical overlap
(:func:`overlap_ranker`). :func:`store_ranker` plugs the real store in.

The dataset format is documented in ``tests/data/recall_eval.json`` (``description``) and the README.
Run ``python -m mneme_tui.memory.evaluation [DATASET]`` for a plain-text table.

No Textual or Rich imports here: this module is part of the memory core.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from mneme_tui.config import GLOBAL_REPO
from mneme_tui.errors import ERR_IO, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.kinds import ACTIVE, ALL_KINDS, STATUSES
from mneme_tui.memory.vectors import tokenize  # the store's tokeniser: baselines see the same tokens

KINDS = frozenset(ALL_KINDS)
CATEGORIES = ("lexical", "paraphrase", "identifier", "stopword", "near-duplicate")
RANK_CUTOFF = 10  # rankers are asked for (and judged on) at most this many keys
BM25_K1 = 1.2
BM25_B = 0.75

Ranker = Callable[["Question"], list[str]]


# --------------------------------------------------------------------------- dataset


@dataclass(frozen=True)
class Memory:
    """One labelled memory; ``created_at`` is ``Dataset.now - age_days``."""

    key: str
    repo: str
    kind: str
    topic: str
    content: str
    age_days: float
    access_count: int
    status: str = ACTIVE


@dataclass(frozen=True)
class Question:
    """A query asked from ``repo``; any key in ``answers`` counts as a correct hit."""

    id: str
    query: str
    repo: str
    cross_repo: bool
    answers: tuple[str, ...]
    category: str


@dataclass(frozen=True)
class Dataset:
    description: str
    now: datetime
    memories: tuple[Memory, ...]
    questions: tuple[Question, ...]
    _by_key: dict[str, Memory] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_key.update({memory.key: memory for memory in self.memories})

    def memory(self, key: str) -> Memory:
        return self._by_key[key]

    def created_at(self, memory: Memory) -> datetime:
        return self.now - timedelta(days=memory.age_days)

    def candidates(self, question: Question) -> list[Memory]:
        """The memories a recall for ``question`` may return, in key order.

        Active only; scoped to the question's repo plus ``global`` unless ``cross_repo`` (spec TC-MEM-02/03).
        """
        return sorted(
            (
                memory
                for memory in self.memories
                if memory.status == ACTIVE
                and (question.cross_repo or memory.repo in (question.repo, GLOBAL_REPO))
            ),
            key=lambda memory: memory.key,
        )


def _fail(source: str, message: str) -> MnemeError:
    return MnemeError(ERR_VALIDATION_FAILED, f"{source}: {message}")


def _field(obj: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str, source: str) -> Any:
    if name not in obj:
        raise _fail(source, f"{where} is missing {name!r}")
    value = obj[name]
    # bool is an int subclass: never accept it where a number is wanted
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise _fail(source, f"{where} field {name!r} has the wrong type ({type(value).__name__})")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _text(obj: Mapping[str, Any], name: str, where: str, source: str) -> str:
    value = _field(obj, name, str, where, source)
    if not value.strip():
        raise _fail(source, f"{where} field {name!r} is empty")
    return value


def parse_dataset(data: Any, *, source: str = "dataset") -> Dataset:
    """Validate a decoded JSON document and build a :class:`Dataset`; raises ERR_VALIDATION_FAILED."""
    if not isinstance(data, Mapping):
        raise _fail(source, "top level must be a JSON object")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise _fail(source, "'description' must be a string")
    now_text = _text(data, "now", "dataset", source)
    try:
        now = datetime.fromisoformat(now_text.replace("Z", "+00:00"))
    except ValueError:
        raise _fail(source, f"'now' is not an ISO-8601 time: {now_text!r}") from None
    if now.tzinfo is not None:
        raise _fail(source, "'now' must be a naive UTC time (no offset)")

    raw_memories = _field(data, "memories", list, "dataset", source)
    raw_questions = _field(data, "questions", list, "dataset", source)
    if not raw_memories:
        raise _fail(source, "'memories' is empty")
    if not raw_questions:
        raise _fail(source, "'questions' is empty")

    memories: list[Memory] = []
    seen_keys: set[str] = set()
    for index, raw in enumerate(raw_memories):
        where = f"memory #{index + 1}"
        if not isinstance(raw, Mapping):
            raise _fail(source, f"{where} is not an object")
        key = _text(raw, "key", where, source)
        where = f"memory {key!r}"
        if key in seen_keys:
            raise _fail(source, f"duplicate memory key {key!r}")
        seen_keys.add(key)
        kind = _text(raw, "kind", where, source)
        if kind not in KINDS:
            raise _fail(source, f"{where} has unknown kind {kind!r}")
        status = raw.get("status", ACTIVE)
        if status not in STATUSES:
            raise _fail(source, f"{where} has unknown status {status!r}")
        age_days = _field(raw, "age_days", (int, float), where, source)
        if not math.isfinite(age_days) or age_days < 0:
            raise _fail(source, f"{where} has a negative or non-finite age_days")
        access_count = _field(raw, "access_count", int, where, source)
        if access_count < 0:
            raise _fail(source, f"{where} has a negative access_count")
        memories.append(
            Memory(
                key=key,
                repo=_text(raw, "repo", where, source),
                kind=kind,
                topic=_text(raw, "topic", where, source),
                content=_text(raw, "content", where, source),
                age_days=float(age_days),
                access_count=access_count,
                status=status,
            )
        )

    by_key = {memory.key: memory for memory in memories}
    questions: list[Question] = []
    seen_ids: set[str] = set()
    for index, raw in enumerate(raw_questions):
        where = f"question #{index + 1}"
        if not isinstance(raw, Mapping):
            raise _fail(source, f"{where} is not an object")
        qid = _text(raw, "id", where, source)
        where = f"question {qid!r}"
        if qid in seen_ids:
            raise _fail(source, f"duplicate question id {qid!r}")
        seen_ids.add(qid)
        category = _text(raw, "category", where, source)
        if category not in CATEGORIES:
            raise _fail(source, f"{where} has unknown category {category!r}")
        answers = _field(raw, "answers", list, where, source)
        if not answers or not all(isinstance(answer, str) for answer in answers):
            raise _fail(source, f"{where} needs a non-empty list of answer keys")
        if len(set(answers)) != len(answers):
            raise _fail(source, f"{where} lists an answer twice")
        question = Question(
            id=qid,
            query=_text(raw, "query", where, source),
            repo=_text(raw, "repo", where, source),
            cross_repo=_field(raw, "cross_repo", bool, where, source),
            answers=tuple(answers),
            category=category,
        )
        for answer in answers:
            memory = by_key.get(answer)
            if memory is None:
                raise _fail(source, f"{where} answer {answer!r} is not a memory key")
            if memory.status != ACTIVE:
                raise _fail(source, f"{where} answer {answer!r} is not active")
            if not question.cross_repo and memory.repo not in (question.repo, GLOBAL_REPO):
                raise _fail(source, f"{where} answer {answer!r} is outside the question's scope")
        questions.append(question)

    return Dataset(description=description, now=now, memories=tuple(memories), questions=tuple(questions))


def load_dataset(path: str | os.PathLike[str]) -> Dataset:
    """Read and validate a dataset file; bad content raises ERR_VALIDATION_FAILED, unreadable files ERR_IO."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MnemeError(ERR_IO, f"cannot read dataset {path}: {exc.__class__.__name__}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(str(path), f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    return parse_dataset(data, source=str(path))


# --------------------------------------------------------------------------- baselines


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
        return np.fromiter(
            (self.row[memory.key] for memory in self.dataset.candidates(question)), dtype=np.intp
        )

    def query_columns(self, query: str) -> np.ndarray:
        """Vocabulary columns of the query's distinct tokens (tokens seen in no memory are dropped)."""
        columns = {self.vocab[token] for token in tokenize(query) if token in self.vocab}
        return np.asarray(sorted(columns), dtype=np.intp)


def bm25_scores(
    tf: np.ndarray, query_columns: np.ndarray, *, k1: float = BM25_K1, b: float = BM25_B
) -> np.ndarray:
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
    dataset: Dataset, *, k1: float = BM25_K1, b: float = BM25_B, limit: int = RANK_CUTOFF,
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


# --------------------------------------------------------------------------- the store as a ranker


@dataclass(frozen=True)
class LoadedStore:
    """A store filled with a dataset's memories, and the map from store ids back to dataset keys."""

    store: Any
    id_to_key: dict[int, str]

    def close(self) -> None:
        self.store.close()


def store_available() -> bool:
    """True when ``mneme_tui.memory.store`` can be imported."""
    try:
        from mneme_tui.memory import store  # noqa: F401
    except ImportError:
        return False
    return True


def load_into_store(dataset: Dataset, db_path: str | os.PathLike[str]) -> LoadedStore:
    """Mint every dataset memory (created_at = now - age_days, access_count, status) into ``db_path``.

    ``db_path`` should be a new database file: memories already in it would compete in every recall.
    """
    try:
        from mneme_tui.memory.store import Store
    except ImportError as exc:
        raise MnemeError(ERR_VALIDATION_FAILED, f"the memory store is not available: {exc}") from None
    store = Store(db_path)
    minted = store.mint_many(
        [
            dict(
                content=memory.content,
                kind=memory.kind,
                topic=memory.topic,
                repo_id=memory.repo,
                created_at=dataset.created_at(memory),
                access_count=memory.access_count,
                status=memory.status,
            )
            for memory in dataset.memories
        ]
    )
    return LoadedStore(store, {row.id: memory.key for row, memory in zip(minted, dataset.memories, strict=True)})


def store_ranker(
    dataset: Dataset,
    db_path: str | os.PathLike[str] | None = None,
    *,
    profile: str = "spec",
    limit: int = RANK_CUTOFF,
    loaded: LoadedStore | None = None,
) -> Ranker:
    """The store's ``recall`` as a ranker: read-only, at the dataset's ``now``, scoped like the question.

    Give either a fresh ``db_path`` (the dataset is loaded into it) or ``loaded`` from
    :func:`load_into_store`, e.g. to compare several ranking profiles on one database.
    """
    if loaded is None:
        if db_path is None:
            raise MnemeError(ERR_VALIDATION_FAILED, "store_ranker needs a db_path or a loaded store")
        loaded = load_into_store(dataset, db_path)

    def rank(question: Question) -> list[str]:
        results = loaded.store.recall(
            question.query,
            repo=question.repo,
            cross_repo=question.cross_repo,
            limit=limit,
            profile=profile,
            now=dataset.now,
        )
        return [loaded.id_to_key[r.memory.id] for r in results if r.memory.id in loaded.id_to_key]

    return rank


def store_profiles() -> tuple[str, ...]:
    """The ranking profiles the store offers (empty when there is no store)."""
    try:
        from mneme_tui.memory.ranking import profile_names
    except ImportError:
        return ()
    return tuple(profile_names())


# --------------------------------------------------------------------------- metrics and report


@dataclass(frozen=True)
class Metrics:
    questions: int
    recall_at_1: float
    recall_at_5: float
    mrr_at_10: float


@dataclass(frozen=True)
class QuestionResult:
    id: str
    category: str
    rank: int | None  # 1-based rank of the first correct key within the top 10, else None
    top: tuple[str, ...]


@dataclass(frozen=True)
class RankerResult:
    name: str
    overall: Metrics
    by_category: dict[str, Metrics]
    questions: tuple[QuestionResult, ...]


@dataclass(frozen=True)
class EvalReport:
    description: str
    memories: int
    questions: int
    results: dict[str, RankerResult]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


def first_hit_rank(ranking: Sequence[str], answers: Sequence[str], cutoff: int = RANK_CUTOFF) -> int | None:
    """1-based position of the first answer key within the first ``cutoff`` keys, else None."""
    wanted = set(answers)
    for position, key in enumerate(ranking[:cutoff], start=1):
        if key in wanted:
            return position
    return None


def summarize(ranks: Sequence[int | None]) -> Metrics:
    """recall@1, recall@5 and MRR@10 averaged over questions (0.0 for an empty list)."""
    count = len(ranks)
    if count == 0:
        return Metrics(0, 0.0, 0.0, 0.0)
    values = np.asarray([rank if rank is not None else 0 for rank in ranks], dtype=np.float64)
    hit = values > 0
    reciprocal = np.where(hit & (values <= RANK_CUTOFF), 1.0 / np.where(hit, values, 1.0), 0.0)
    return Metrics(
        questions=count,
        recall_at_1=float(np.mean(hit & (values <= 1))),
        recall_at_5=float(np.mean(hit & (values <= 5))),
        mrr_at_10=float(np.mean(reciprocal)),
    )


def evaluate(dataset: Dataset, rankers: Mapping[str, Ranker]) -> EvalReport:
    """Run each ranker on every question and score it; a ranker's extra keys past 10 are ignored."""
    results: dict[str, RankerResult] = {}
    for name, ranker in rankers.items():
        per_question = []
        for question in dataset.questions:
            ranking = list(ranker(question))[:RANK_CUTOFF]
            per_question.append(
                QuestionResult(
                    id=question.id,
                    category=question.category,
                    rank=first_hit_rank(ranking, question.answers),
                    top=tuple(ranking),
                )
            )
        by_category = {
            category: summarize([r.rank for r in per_question if r.category == category])
            for category in CATEGORIES
            if any(r.category == category for r in per_question)
        }
        results[name] = RankerResult(
            name=name,
            overall=summarize([r.rank for r in per_question]),
            by_category=by_category,
            questions=tuple(per_question),
        )
    return EvalReport(
        description=dataset.description,
        memories=len(dataset.memories),
        questions=len(dataset.questions),
        results=results,
    )


def render_table(report: EvalReport) -> str:
    """A plain-text table: one block per ranker, rows = overall + each category."""
    header = f"{'ranker':<12} {'slice':<16} {'n':>4} {'R@1':>6} {'R@5':>6} {'MRR@10':>7}"
    lines = [f"{report.memories} memories, {report.questions} questions", header, "-" * len(header)]
    for name, result in report.results.items():
        rows = [("overall", result.overall), *result.by_category.items()]
        for index, (label, metrics) in enumerate(rows):
            lines.append(
                f"{name if index == 0 else '':<12} {label:<16} {metrics.questions:>4} "
                f"{metrics.recall_at_1:>6.3f} {metrics.recall_at_5:>6.3f} {metrics.mrr_at_10:>7.3f}"
            )
    return "\n".join(lines)


def default_dataset_path() -> Path:
    return Path(__file__).resolve().parents[2] / "tests" / "data" / "recall_eval.json"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mneme_tui.memory.evaluation [DATASET] [--json]``: baselines (+ the store when present)."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    paths = [arg for arg in args if arg != "--json"]
    try:
        dataset = load_dataset(paths[0] if paths else default_dataset_path())
        rankers = baseline_rankers(dataset)
        with tempfile.TemporaryDirectory() as tmp:
            loaded = load_into_store(dataset, Path(tmp) / "eval.db") if store_available() else None
            try:
                for profile in store_profiles() if loaded else ():
                    rankers[f"store:{profile}"] = store_ranker(dataset, profile=profile, loaded=loaded)
                report = evaluate(dataset, rankers)
            finally:
                if loaded is not None:
                    loaded.close()
    except MnemeError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(report.to_json() if as_json else render_table(report))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
