"""The four canonical actions of spec §5: ``save``, ``recall``, ``list``, ``dismiss`` (no aliases)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mneme_tui import config
from mneme_tui.cli import arguments, declared, output
from mneme_tui.operations.memory import DISMISS, LIST, RECALL, SAVE

if TYPE_CHECKING:
    from mneme_tui.memory.records import Memory


def register(sub: argparse._SubParsersAction) -> None:
    declared.add_operation(sub, SAVE).set_defaults(func=cmd_save)
    declared.add_operation(sub, RECALL).set_defaults(func=cmd_recall)
    declared.add_operation(sub, LIST).set_defaults(func=cmd_list)
    declared.add_operation(sub, DISMISS).set_defaults(func=cmd_dismiss)


def cmd_save(args: argparse.Namespace) -> int:
    session = declared.CliSession(args)
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
    results = declared.run(RECALL, args)
    if args.json:
        output.print_json(RECALL.to_json(results, {}))
    elif not results:
        print("No matching memories.")
    else:
        from mneme_tui.cli import recall_layout

        recall_layout.print_recall(results, query=args.query, profile=arguments.resolve_profile(args),
                                   now=config.now())
    return 0


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
        args.json, values["ids"], change, key="dismissed",
        done="Dismissed {ids} (tombstoned; see `mneme list --status tombstoned`, bring back with `mneme restore ID`)",
        unchanged="Already tombstoned: {ids}",
    )
    return 0


def _print_list_table(memories: list[Memory]) -> None:
    now = config.now()
    table = output.table(
        ("ID", "right"), ("Kind", "left"), ("Topic", "left"), ("Repo", "left"),
        ("Age", "right"), ("Status", "left"), ("Content", "left"),
    )
    for memory in memories:
        table.add_row(
            str(memory.id), memory.kind, output.text(memory.topic), output.text(memory.repo_id),
            output.age(memory.created_at, now), memory.status, output.text(memory.content),
        )
    output.print_table(table)
