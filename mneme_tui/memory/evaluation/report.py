"""Metrics (recall@1, recall@5, MRR@10), running rankers over a dataset, and the plain-text table.

A *ranker* is any callable that maps a :class:`Question` to an ordered list of memory keys (best first);
only its first 10 keys are judged. Results are given overall, per question category and, when a
held-out point is named, for the questions before it ("dev") and from it on ("held-out").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.evaluation.baselines import RANK_CUTOFF, Ranker
from mneme_tui.memory.evaluation.dataset import CATEGORIES, Dataset

DEV, HELD_OUT = "dev", "held-out"


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
    by_split: dict[str, Metrics] = field(default_factory=dict)


@dataclass(frozen=True)
class EvalReport:
    description: str
    memories: int
    questions: int
    results: dict[str, RankerResult]
    held_out_from: str | None = None

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


def held_out_ids(dataset: Dataset, held_out_from: str | None) -> frozenset[str]:
    """Ids of the questions from ``held_out_from`` on, in file order (empty for None)."""
    if held_out_from is None:
        return frozenset()
    ids = [question.id for question in dataset.questions]
    if held_out_from not in ids:
        raise MnemeError(ERR_VALIDATION_FAILED, f"held-out question {held_out_from!r} is not in the dataset")
    return frozenset(ids[ids.index(held_out_from) :])


def evaluate(dataset: Dataset, rankers: Mapping[str, Ranker], *, held_out_from: str | None = None) -> EvalReport:
    """Run each ranker on every question and score it; a ranker's extra keys past 10 are ignored."""
    held_out = held_out_ids(dataset, held_out_from)
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
        by_split = {}
        if held_out:
            by_split = {
                DEV: summarize([r.rank for r in per_question if r.id not in held_out]),
                HELD_OUT: summarize([r.rank for r in per_question if r.id in held_out]),
            }
        results[name] = RankerResult(
            name=name,
            overall=summarize([r.rank for r in per_question]),
            by_category=by_category,
            questions=tuple(per_question),
            by_split=by_split,
        )
    return EvalReport(
        description=dataset.description,
        memories=len(dataset.memories),
        questions=len(dataset.questions),
        results=results,
        held_out_from=held_out_from,
    )


def render_table(report: EvalReport) -> str:
    """A plain-text table: one block per ranker, rows = overall, each category, then dev/held-out."""
    width = max([12, *(len(name) for name in report.results)])
    header = f"{'ranker':<{width}} {'slice':<16} {'n':>4} {'R@1':>6} {'R@5':>6} {'MRR@10':>7}"
    lines = [f"{report.memories} memories, {report.questions} questions", header, "-" * len(header)]
    for name, result in report.results.items():
        rows = [("overall", result.overall), *result.by_category.items(), *result.by_split.items()]
        for index, (label, metrics) in enumerate(rows):
            lines.append(
                f"{name if index == 0 else '':<{width}} {label:<16} {metrics.questions:>4} "
                f"{metrics.recall_at_1:>6.3f} {metrics.recall_at_5:>6.3f} {metrics.mrr_at_10:>7.3f}"
            )
    if report.held_out_from is not None:
        lines.append(f"held-out = the questions from {report.held_out_from} on, in file order; dev = the ones before")
    return "\n".join(lines)
