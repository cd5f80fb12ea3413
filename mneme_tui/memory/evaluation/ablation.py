"""The ``bm25`` profile's ablation table: each design choice switched on or off, measured on a dataset.

Every variant is the shipped profile with one thing changed. It ranks through the real code path
(``MemoryIndex`` built from the store's database with the variant's analyzer, then ``ranking.rank``
with the variant's profile), so the first row equals ``profile:bm25`` of the main table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mneme_tui.memory.analysis import Analyzer
from mneme_tui.memory.evaluation.baselines import RANK_CUTOFF, Ranker
from mneme_tui.memory.evaluation.dataset import Dataset, Question
from mneme_tui.memory.evaluation.report import DEV, HELD_OUT, EvalReport, evaluate
from mneme_tui.memory.evaluation.store_rankers import LoadedStore
from mneme_tui.memory.index import MemoryIndex, days_since_epoch
from mneme_tui.memory.ranking import Bm25Profile, RecallQuery, rank

SHIPPED = "bm25 as shipped"


@dataclass(frozen=True)
class Variant:
    """One row of the ablation table."""

    label: str
    analyzer: dict = field(default_factory=dict)  # Analyzer fields that differ from the shipped ones
    topic_weight: float = 0.0
    profile: dict = field(default_factory=dict)  # Bm25Profile fields that differ from the shipped ones


VARIANTS: tuple[Variant, ...] = (
    Variant(SHIPPED),
    Variant("relevance bm25/best (linear)", profile={"transform": "linear"}),
    Variant("no stop words", analyzer={"stop_words": False}),
    Variant("no stemming", analyzer={"stemmer": "none"}),
    Variant("Snowball English (Porter2) stemmer", analyzer={"stemmer": "english"}),
    Variant("no camel-case splitting", analyzer={"split_identifiers": False}),
    Variant("no whole identifiers as terms", analyzer={"compounds": False}),
    Variant("+ topic field ×0.25", topic_weight=0.25),
    Variant("+ topic field ×1", topic_weight=1.0),
    Variant("+ 0.05 × spec cosine", profile={"cosine_weight": 0.05}),
    Variant("+ 0.25 × spec cosine", profile={"cosine_weight": 0.25}),
    Variant("IDF/avgdl over all active rows", profile={"statistics": "index"}),
    Variant(
        "plain BM25 × factors (no analysis, linear)",
        analyzer={"split_identifiers": False, "stop_words": False, "stemmer": "none"},
        profile={"transform": "linear"},
    ),
)


def variant_ranker(dataset: Dataset, loaded: LoadedStore, variant: Variant, *, limit: int = RANK_CUTOFF) -> Ranker:
    """Rank like ``store.recall(profile="bm25")`` but with the variant's analysis and profile."""
    index = MemoryIndex(Analyzer(**variant.analyzer), variant.topic_weight)
    index.refresh(loaded.store.db)
    profile = Bm25Profile(**variant.profile)
    now_days = float(days_since_epoch([dataset.now.isoformat(sep=" ")])[0])

    def ranker(question: Question) -> list[str]:
        query = RecallQuery(
            text=question.query,
            repo=question.repo,
            now_days=now_days,
            cross_repo=question.cross_repo,
            limit=limit,
            profile=profile.name,
        )
        return [loaded.id_to_key[row.memory_id] for row in rank(index, query, profile)]

    return ranker


def run_ablation(dataset: Dataset, loaded: LoadedStore, *, held_out_from: str | None = None) -> EvalReport:
    """Evaluate every variant on ``dataset`` (already loaded into ``loaded``)."""
    rankers = {variant.label: variant_ranker(dataset, loaded, variant) for variant in VARIANTS}
    return evaluate(dataset, rankers, held_out_from=held_out_from)


def render_ablation(report: EvalReport) -> str:
    """One line per variant: overall metrics, MRR@10 on dev and held-out, and the change from shipped."""
    shipped = report.results[SHIPPED].overall.mrr_at_10
    split = bool(report.held_out_from)
    width = max(len(name) for name in report.results)
    header = f"{'variant':<{width}} {'R@1':>6} {'R@5':>6} {'MRR@10':>7} {'ΔMRR':>7}"
    if split:
        header += f" {'dev MRR':>8} {'held MRR':>8}"
    lines = [header, "-" * len(header)]
    for name, result in report.results.items():
        overall = result.overall
        line = (
            f"{name:<{width}} {overall.recall_at_1:>6.3f} {overall.recall_at_5:>6.3f} {overall.mrr_at_10:>7.3f} "
            f"{overall.mrr_at_10 - shipped:>+7.3f}"
        )
        if split:
            line += f" {result.by_split[DEV].mrr_at_10:>8.3f} {result.by_split[HELD_OUT].mrr_at_10:>8.3f}"
        lines.append(line)
    return "\n".join(lines)
