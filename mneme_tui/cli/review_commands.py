"""Curation on the command line: ``review`` (open proposals), ``review accept|reject|undo PROPOSAL …`` and
``pin`` / ``unpin ID …``. The work is ``memory/curation``'s; these only parse, call and print."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mneme_tui import config
from mneme_tui.cli import arguments, output
from mneme_tui.cli.task_commands import _root, _root_option
from mneme_tui.memory.curation.names import DECISIONS, KINDS, UNDO


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
    helps = ("accept proposals: run their action (audited; `review undo` reverses it)",
             "reject proposals: never proposed again while their memories are unchanged",
             "undo the last decision on proposals (an accept's changes are put back)")
    for name, help_text in zip((*DECISIONS, UNDO), helps, strict=True):
        action = arguments.add_command(actions, name, help_text)
        action.add_argument("proposals", nargs="+", metavar="PROPOSAL", help="proposal ids from `mneme review`")
        if name != UNDO:
            _root_option(action)
        action.set_defaults(func=cmd_decide, decision=name)

    for name, help_text in (("pin", "pin memories: never proposed as cold, listed first in the handshake"),
                            ("unpin", "unpin memories")):
        pin = arguments.add_command(sub, name, help_text)
        pin.add_argument("ids", nargs="+", metavar="ID")
        pin.set_defaults(func=cmd_pin, pin=name == "pin")


def cmd_review(args: argparse.Namespace) -> int:
    from mneme_tui.memory.curation.proposals import review_document

    repo = None if args.all_repos else config.resolve_repo(args.project)
    document = review_document(arguments.open_store(args), repo, kinds=frozenset(args.kind) if args.kind else None,
                               limit=args.limit, root=_work_tree(args, repo))
    if args.json:
        output.print_json(document)
    elif not document["proposals"]:
        print("No open proposals." + ("" if args.all_repos else f" (repo {output.literal(str(repo))}; -A: every repo)"))
    else:
        _print_proposals(document["proposals"])
    return 0


def cmd_decide(args: argparse.Namespace) -> int:
    from mneme_tui.memory.curation.review import decide_document

    document = decide_document(arguments.open_store(args), args.proposals, args.decision, root=_work_tree(args))
    if args.json:
        output.print_json(document)
    else:
        for decision in document["decisions"]:
            print(_decision_line(decision))
    return 0


def cmd_pin(args: argparse.Namespace) -> int:
    from mneme_tui.memory.curation.review import pin_document

    key = "pinned" if args.pin else "unpinned"
    document = pin_document(arguments.open_store(args), arguments.memory_ids(args.ids, key), pin=args.pin)
    if args.json:
        output.print_json(document)
        return 0
    if document[key]:
        print(f"{key.capitalize()} {', '.join(map(str, document[key]))}")
    if document["unchanged"]:
        print(f"Already {'pinned' if args.pin else 'not pinned'}: {', '.join(map(str, document['unchanged']))}")
    return 0


def _work_tree(args: argparse.Namespace, repo: str | None = None) -> Path | None:
    """``--root``, or the enclosing git work tree for the active repo (stale-by-code reads it); None outside one
    or for another repo."""
    from mneme_tui.memory.curation.proposals import default_root

    return _root(args) if getattr(args, "root", None) else default_root(repo, config.resolve_repo())


def _decision_line(decision: dict[str, Any]) -> str:
    ids = ", ".join(f"#{i}" for i in decision["memory_ids"])
    done = {"accept": "Accepted", "reject": "Rejected", "undone": "Undid the decision on"}[decision["decision"]]
    changed = f"; changed {', '.join(f'#{i}' for i in decision['changed'])}" if decision["changed"] else ""
    return f"{done} {decision['kind']} proposal {decision['proposal']} ({ids}){changed}"


def _print_proposals(proposals: list[dict[str, Any]]) -> None:
    table = output.table(("Proposal", "left"), ("Kind", "left"), ("Action", "left"), ("Memories", "left"),
                         ("Keep", "right"), ("Score", "right"), ("Why", "left"))
    for proposal in proposals:
        keep = proposal["keep_id"]
        table.add_row(proposal["id"], proposal["kind"], proposal["action"], ", ".join(map(str, proposal["memory_ids"])),
                      "" if keep is None else str(keep), f"{proposal['score']:.2f}", output.text(proposal["reason"]))
    output.print_table(table)
