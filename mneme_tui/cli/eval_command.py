"""``mneme eval DATASET``: recall quality of each ranking profile and two baselines on a labelled dataset."""

from __future__ import annotations

import argparse

from mneme_tui.cli import arguments, output


def register(sub: argparse._SubParsersAction) -> None:
    evaluate = arguments.add_command(
        sub,
        "eval",
        "measure recall quality (recall@1, recall@5, MRR@10) of ranking profiles and baselines on a labelled dataset",
    )
    evaluate.add_argument("dataset", metavar="DATASET", help="labelled dataset (JSON; format in the README)")
    evaluate.add_argument(
        "--profile",
        action="append",
        metavar="NAME",
        help="ranking profile to evaluate; repeat for several (default: every profile)",
    )
    evaluate.add_argument(
        "--held-out-from",
        metavar="QUESTION_ID",
        help="also report the questions before this id (dev) and from it on (held-out), in file order",
    )
    evaluate.add_argument(
        "--ablation", action="store_true", help="also evaluate the bm25 profile with each design choice changed"
    )
    evaluate.set_defaults(func=cmd_eval)


def cmd_eval(args: argparse.Namespace) -> int:
    """Load the dataset into a temporary store (``--db`` is not touched) and print the table or JSON."""
    from mneme_tui.memory import evaluation

    report, variants = evaluation.run(
        args.dataset, profiles=args.profile, held_out_from=args.held_out_from, ablation=args.ablation
    )
    if args.json:
        document = report.to_dict()
        if variants is not None:
            document["ablation"] = variants.to_dict()["results"]
        output.print_json(document)
        return 0
    print(evaluation.render_table(report))
    if variants is not None:
        from mneme_tui.memory.evaluation.ablation import render_ablation

        print()
        print(render_ablation(variants))
    return 0
