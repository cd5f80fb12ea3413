"""Recall-quality evaluation: a labelled dataset, ranker-agnostic metrics, two baselines and an ablation.

- ``dataset``: the JSON format (documented there and in the README), validation and loading.
- ``baselines``: BM25 and plain lexical overlap on the store's own tokens, per question candidate set.
- ``report``: recall@1, recall@5 and MRR@10 overall, per category and dev/held-out; the plain table.
- ``store_rankers``: the real store (a temporary database) recalled through each ranking profile.
- ``ablation``: the ``bm25`` profile with one design choice changed at a time.

:func:`run` is what ``mneme eval`` calls; ``python -m mneme_tui.memory.evaluation [DATASET] [--json]
[--ablation]`` prints the same table without the CLI. No Textual or Rich imports here.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from mneme_tui.errors import MnemeError
from mneme_tui.memory.evaluation.baselines import (
    BM25_B,
    BM25_K1,
    RANK_CUTOFF,
    Ranker,
    TermIndex,
    baseline_rankers,
    bm25_ranker,
    bm25_scores,
    overlap_ranker,
    overlap_scores,
    tokenize,
)
from mneme_tui.memory.evaluation.dataset import (
    CATEGORIES,
    KINDS,
    Dataset,
    Memory,
    Question,
    default_dataset_path,
    load_dataset,
    parse_dataset,
)
from mneme_tui.memory.evaluation.report import (
    DEV,
    HELD_OUT,
    EvalReport,
    Metrics,
    QuestionResult,
    RankerResult,
    evaluate,
    first_hit_rank,
    held_out_ids,
    render_table,
    summarize,
)
from mneme_tui.memory.evaluation.store_rankers import (
    LoadedStore,
    check_profiles,
    load_into_store,
    store_profiles,
    store_ranker,
)

DEFAULT_HELD_OUT = "q089"
"""First of the shipped dataset's later-written questions, kept out of every design decision."""

__all__ = [
    "BM25_B",
    "BM25_K1",
    "CATEGORIES",
    "DEFAULT_HELD_OUT",
    "DEV",
    "HELD_OUT",
    "KINDS",
    "RANK_CUTOFF",
    "Dataset",
    "EvalReport",
    "LoadedStore",
    "Memory",
    "Metrics",
    "Question",
    "QuestionResult",
    "Ranker",
    "RankerResult",
    "TermIndex",
    "baseline_rankers",
    "bm25_ranker",
    "bm25_scores",
    "check_profiles",
    "default_dataset_path",
    "evaluate",
    "first_hit_rank",
    "held_out_ids",
    "load_dataset",
    "load_into_store",
    "main",
    "overlap_ranker",
    "overlap_scores",
    "parse_dataset",
    "render_table",
    "run",
    "store_profiles",
    "store_ranker",
    "summarize",
    "tokenize",
]


def run(
    dataset_path: str | os.PathLike[str],
    *,
    profiles: Sequence[str] | None = None,
    held_out_from: str | None = None,
    ablation: bool = False,
) -> tuple[EvalReport, EvalReport | None]:
    """Evaluate ``profiles`` (default: all) and both baselines on a dataset in a temporary store.

    Rankers are named ``profile:<name>`` and ``baseline:bm25`` / ``baseline:overlap``. With ``ablation``
    the second report holds the ``bm25`` profile's ablation variants (else None).
    """
    dataset = load_dataset(dataset_path)
    chosen = check_profiles(list(profiles) if profiles else list(store_profiles()))
    held_out_ids(dataset, held_out_from)  # fail early on an unknown id
    with tempfile.TemporaryDirectory(prefix="mneme-eval-") as folder:
        loaded = load_into_store(dataset, Path(folder) / "eval.db")
        try:
            rankers: dict[str, Ranker] = {
                f"profile:{name}": store_ranker(dataset, profile=name, loaded=loaded) for name in chosen
            }
            rankers.update({f"baseline:{name}": ranker for name, ranker in baseline_rankers(dataset).items()})
            report = evaluate(dataset, rankers, held_out_from=held_out_from)
            variants = None
            if ablation:
                from mneme_tui.memory.evaluation.ablation import run_ablation

                variants = run_ablation(dataset, loaded, held_out_from=held_out_from)
        finally:
            loaded.close()
    return report, variants


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mneme_tui.memory.evaluation [DATASET] [--json] [--ablation]`` (held-out from q089 for the
    shipped dataset)."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json, with_ablation = "--json" in args, "--ablation" in args
    paths = [arg for arg in args if arg not in ("--json", "--ablation")]
    path = Path(paths[0]) if paths else default_dataset_path()
    held_out = DEFAULT_HELD_OUT if path.resolve() == default_dataset_path() else None
    try:
        report, variants = run(path, held_out_from=held_out, ablation=with_ablation)
    except MnemeError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    if as_json:
        print(report.to_json())
    else:
        print(render_table(report))
        if variants is not None:
            from mneme_tui.memory.evaluation.ablation import render_ablation

            print()
            print(render_ablation(variants))
    return 0
