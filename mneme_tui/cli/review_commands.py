"""Curation on the command line: ``review`` (open proposals), ``review accept|reject|undo PROPOSAL …`` and
``pin`` / ``unpin ID …``. The work is ``memory/curation``'s; these only parse, call and print."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from mneme_tui import config
from mneme_tui.cli import arguments, output
from mneme_tui.cli.task_commands import _root, _root_option

if TYPE_CHECKING:
    from mneme_tui.memory.curation.proposals import Proposal
    from mneme_tui.memory.curation.review import Decision

KINDS = ("duplicate", "conflict", "stale", "cold")


def register(sub: argparse._SubParsersAction) -> None:
    review = arguments.add_command(sub, "review", "list what curation proposes to merge, supersede, re-check or "
                                                  "dismiss (best first); decide with `review accept|reject`")
    review.add_argument("-A", "--all", dest="all_repos", action="store_true", help="proposals of every repository")
    review.add_argument("-p", "--project", metavar="REPO", help="repository to review (default: the active repo)")
    review.add_argument("--kind", action="append", choices=KINDS, help="only this kind (repeatable)")
    review.add_argument("-n", "--limit", type=arguments.positive_int, help="at most this many proposals")
    _root_option(review)
    review.set_defaults(func=cmd_review)
    actions = review.add_subparsers(dest="review_command", metavar="ACTION", parser_class=arguments.Parser)
    for name, help_text in (("accept", "accept proposals: run their action (audited; `review undo` reverses it)"),
                            ("reject", "reject proposals: never proposed again while their memories are unchanged"),
                            ("undo", "undo the last decision on proposals (an accept's changes are put back)")):
        action = arguments.add_command(actions, name, help_text)
        action.add_argument("proposals", nargs="+", metavar="PROPOSAL", help="proposal ids from `mneme review`")
        if name != "undo":
            _root_option(action)
        action.set_defaults(func=cmd_decide, decision=name)

    for name, help_text in (("pin", "pin memories: never proposed as cold, listed first in the handshake"),
                            ("unpin", "unpin memories")):
        pin = arguments.add_command(sub, name, help_text)
        pin.add_argument("ids", nargs="+", metavar="ID")
        pin.set_defaults(func=cmd_pin, pin=name == "pin")


def cmd_review(args: argparse.Namespace) -> int:
    from mneme_tui.memory.curation.proposals import open_proposals

    repo = None if args.all_repos else config.resolve_repo(args.project)
    store = arguments.open_store(args)
    proposals = open_proposals(store, repo, kinds=frozenset(args.kind) if args.kind else None, limit=args.limit,
                               root=_work_tree(args))
    if args.json:
        output.print_json({"repo": repo, "proposals": [proposal.to_json() for proposal in proposals]})
    elif not proposals:
        print("No open proposals." + ("" if args.all_repos else f" (repo {output.literal(str(repo))}; -A: every repo)"))
    else:
        _print_proposals(proposals)
    return 0


def cmd_decide(args: argparse.Namespace) -> int:
    from mneme_tui.memory.curation.review import decide_many, undo

    store = arguments.open_store(args)
    if args.decision == "undo":
        decisions = store.run_transaction(lambda: [undo(store, proposal) for proposal in args.proposals])
    else:
        decisions = decide_many(store, args.proposals, args.decision, root=_work_tree(args))
    if args.json:
        output.print_json({"decisions": [decision.to_json() for decision in decisions]})
    else:
        for decision in decisions:
            print(_decision_line(decision))
    return 0


def cmd_pin(args: argparse.Namespace) -> int:
    key = "pinned" if args.pin else "unpinned"
    ids = arguments.memory_ids(args.ids, key)
    store = arguments.open_store(args)
    changed = store.pin(ids) if args.pin else store.unpin(ids)
    unchanged = [i for i in dict.fromkeys(ids) if i not in changed]
    if args.json:
        output.print_json({key: changed, "unchanged": unchanged})
        return 0
    if changed:
        print(f"{key.capitalize()} {', '.join(map(str, changed))}")
    if unchanged:
        print(f"Already {key}: {', '.join(map(str, unchanged))}")
    return 0


def _work_tree(args: argparse.Namespace) -> Path | None:
    """``--root``, or the enclosing git work tree (stale-by-code reads it); None outside one."""
    return _root(args) if getattr(args, "root", None) else config.find_git_root()


def _decision_line(decision: Decision) -> str:
    ids = ", ".join(f"#{i}" for i in decision.memory_ids)
    done = {"accept": "Accepted", "reject": "Rejected", "undone": "Undid the decision on"}[decision.decision]
    changed = f"; changed {', '.join(f'#{i}' for i in decision.change.ids)}" if decision.change.ids else ""
    return f"{done} {decision.kind} proposal {decision.proposal_id} ({ids}){changed}"


def _print_proposals(proposals: list[Proposal]) -> None:
    table = output.table(("Proposal", "left"), ("Kind", "left"), ("Action", "left"), ("Memories", "left"),
                         ("Keep", "right"), ("Score", "right"), ("Why", "left"))
    for proposal in proposals:
        table.add_row(proposal.id, proposal.kind, proposal.action, ", ".join(map(str, proposal.memory_ids)),
                      "" if proposal.keep_id is None else str(proposal.keep_id), f"{proposal.score:.2f}",
                      output.text(proposal.reason))
    output.print_table(table)
