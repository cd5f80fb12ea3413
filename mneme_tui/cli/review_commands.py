"""Curation on the command line: ``review`` (open proposals), ``review accept|reject|undo PROPOSAL …`` and
``pin`` / ``unpin ID …``. The work is ``memory/curation``'s; these only parse, call and print."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mneme_tui.cli import arguments, declared, output
from mneme_tui.cli.task_commands import _root, _root_option
from mneme_tui.memory.curation.choices import UNDO
from mneme_tui.operations.curation import DECISION_WORDS, PIN, REVIEW, REVIEW_DECIDE, UNPIN


def register(sub: argparse._SubParsersAction) -> None:
    review = declared.add_operation(sub, REVIEW, context=_root_option)
    review.set_defaults(func=cmd_review)
    actions = review.add_subparsers(metavar="ACTION", parser_class=arguments.Parser)
    lines = (
        "accept proposals: run their action (audited; `review undo` reverses it)",
        "reject proposals: never proposed again while their memories are unchanged",
        "undo the last decision on proposals (an accept's changes are put back)",
    )
    for word, line in zip(DECISION_WORDS, lines, strict=True):  # the decision is the command word
        context = None if word == UNDO else _root_option
        declared.add_operation(actions, REVIEW_DECIDE, word=word, line=line, context=context).set_defaults(
            func=cmd_decide, decision=word
        )
    declared.add_operation(sub, PIN).set_defaults(func=cmd_pin, pin_operation=PIN)
    declared.add_operation(sub, UNPIN).set_defaults(func=cmd_pin, pin_operation=UNPIN)


def _session(args: argparse.Namespace) -> declared.CliSession:
    root: Path | None = _root(args) if getattr(args, "root", None) else None
    return declared.CliSession(args, root=root)


def cmd_review(args: argparse.Namespace) -> int:
    document = declared.run(REVIEW, args, session=_session(args))
    if args.json:
        output.print_json(document)
    elif not document["proposals"]:
        repo = document["repo"]
        print("No open proposals." + ("" if args.all_repos else f" (repo {output.literal(str(repo))}; -A: every repo)"))
    else:
        _print_proposals(document["proposals"])
    return 0


def cmd_decide(args: argparse.Namespace) -> int:
    values = {**declared.values_of(REVIEW_DECIDE, args), "decision": args.decision}
    document = declared.run(REVIEW_DECIDE, args, session=_session(args), given=values)
    if args.json:
        output.print_json(document)
    else:
        for decision in document["decisions"]:
            print(_decision_line(decision))
    return 0


def cmd_pin(args: argparse.Namespace) -> int:
    operation = args.pin_operation
    key = operation.past
    document = declared.run(operation, args)
    if args.json:
        output.print_json(document)
        return 0
    if document[key]:
        print(f"{key.capitalize()} {', '.join(map(str, document[key]))}")
    if document["unchanged"]:
        print(f"Already {'pinned' if operation is PIN else 'not pinned'}: {', '.join(map(str, document['unchanged']))}")
    return 0


def _decision_line(decision: dict[str, Any]) -> str:
    ids = ", ".join(f"#{i}" for i in decision["memory_ids"])
    done = {"accept": "Accepted", "reject": "Rejected", "undone": "Undid the decision on"}[decision["decision"]]
    changed = f"; changed {', '.join(f'#{i}' for i in decision['changed'])}" if decision["changed"] else ""
    return f"{done} {decision['kind']} proposal {decision['proposal']} ({ids}){changed}"


def _print_proposals(proposals: list[dict[str, Any]]) -> None:
    table = output.table(
        ("Proposal", "left"),
        ("Kind", "left"),
        ("Action", "left"),
        ("Memories", "left"),
        ("Keep", "right"),
        ("Score", "right"),
        ("Why", "left"),
    )
    for proposal in proposals:
        keep = proposal["keep_id"]
        table.add_row(
            proposal["id"],
            proposal["kind"],
            proposal["action"],
            ", ".join(map(str, proposal["memory_ids"])),
            "" if keep is None else str(keep),
            f"{proposal['score']:.2f}",
            output.text(proposal["reason"]),
        )
    output.print_table(table)
