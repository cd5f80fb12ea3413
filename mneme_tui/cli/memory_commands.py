"""The four canonical actions of spec §5: ``save``, ``recall``, ``list``, ``dismiss`` (no aliases)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mneme_tui import config
from mneme_tui.cli import arguments, declared, output
from mneme_tui.operations.memory import DISMISS, LIST, RECALL, SAVE

if TYPE_CHECKING:
    from mneme_tui.memory.records import Memory, ScoredMemory


def register(sub: argparse._SubParsersAction) -> None:
    declared.add_operation(sub, SAVE).set_defaults(func=cmd_save)
    declared.add_operation(sub, RECALL).set_defaults(func=cmd_recall)
    declared.add_operation(sub, LIST).set_defaults(func=cmd_list)
    declared.add_operation(sub, DISMISS).set_defaults(func=cmd_dismiss)


def cmd_save(args: argparse.Namespace) -> int:
    session = declared.session_for(SAVE, args)
    memory, match = declared.run(SAVE, args, session=session)
    output.print_redactions(session.store().redactions)
    if args.json:
        output.print_json(SAVE.to_json((memory, match), {}))
        return 0
    if match.duplicate_of is None:
        print(
            f"Saved memory {memory.id} ({memory.kind}, topic {output.literal(memory.topic)},"
            f" repo {output.literal(memory.repo_id)})"
        )
        if config.repo_defaulted_to_global(args.project):
            print(f"saved to {config.GLOBAL_REPO} (not inside a git work tree; -p REPO to choose)")
    if match.notice():
        print(match.notice())
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    values = declared.values_of(RECALL, args)
    results = declared.run(RECALL, args, given=values)
    if args.json:  # with --budget: {"results": [...], "budget": {...}} of the results that fit
        output.print_json(RECALL.to_json(results, values))
    elif args.budget is not None:
        _print_recall_within(results, args.budget, args.query, arguments.resolve_profile(args))
    else:
        _print_recall(results, args.query, arguments.resolve_profile(args))
    return 0


def _print_recall(results: Sequence[ScoredMemory], query: str, profile: str) -> None:
    """The text form of recall's results (``cli.recall_layout``): what a ``--budget`` measures."""
    if not results:
        print("No matching memories.")
    else:
        from mneme_tui.cli import recall_layout

        recall_layout.print_recall(list(results), query=query, profile=profile, now=config.now())


def _print_recall_within(results: list[ScoredMemory], budget: int, query: str, profile: str) -> None:
    """``--budget`` in text: the best whole results whose printed text fits, then the budget's note."""
    from mneme_tui.cli import budget_output

    def show(kept: Sequence[ScoredMemory]) -> None:
        if kept or not results:  # when none fit, the note says so
            _print_recall(kept, query, profile)

    budget_output.print_within(results, budget, budget_output.text_render(show, "result"))


def cmd_list(args: argparse.Namespace) -> int:
    memories = declared.run(LIST, args)
    if args.json:
        output.print_json(LIST.to_json(memories, {}))
    elif not memories:
        print(f"No {args.status if args.status != 'all' else ''} memories.".replace("  ", " "))
    else:
        _print_list_table(memories)
    return 0


def cmd_dismiss(args: argparse.Namespace) -> int:
    values = declared.values_of(DISMISS, args)
    change = declared.run(DISMISS, args, given=values)
    output.print_status_change(
        args.json,
        values["ids"],
        change,
        key="dismissed",
        done="Dismissed {ids} (tombstoned; see `mneme list --status tombstoned`, bring back with `mneme restore ID`)",
        unchanged="Already tombstoned: {ids}",
    )
    return 0


def _print_list_table(memories: list[Memory]) -> None:
    now = config.now()
    table = output.table(
        ("ID", "right"),
        ("Kind", "left"),
        ("Topic", "left"),
        ("Repo", "left"),
        ("Age", "right"),
        ("Status", "left"),
        ("Content", "left"),
    )
    for memory in memories:
        table.add_row(
            str(memory.id),
            memory.kind,
            output.text(memory.topic),
            output.text(memory.repo_id),
            output.age(memory.created_at, now),
            memory.status,
            output.text(memory.content),
        )
    output.print_table(table)
