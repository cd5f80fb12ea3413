"""``mneme secrets scan``: memories already stored that hold a secret, each a proposal to purge it."""

from __future__ import annotations

import argparse

from mneme_tui import config
from mneme_tui.cli import arguments, output


def register(sub: argparse._SubParsersAction) -> None:
    group = sub.add_parser("secrets", help="find secrets already stored", description="Find secrets already stored.")
    arguments.add_common_options(group)
    actions = group.add_subparsers(
        dest="secrets_command", metavar="ACTION", parser_class=arguments.Parser, required=True
    )
    scan = arguments.add_command(
        actions,
        "scan",
        "list memories whose text holds a secret, with the purge that removes it (the secret itself is never shown)",
    )
    scan.add_argument("-A", "--all", dest="all_repos", action="store_true", help="memories of every repository")
    scan.add_argument(
        "-p", "--project", metavar="REPO", help="repository to scan (default: the active repo, plus global)"
    )
    scan.set_defaults(func=cmd_scan)


def cmd_scan(args: argparse.Namespace) -> int:
    from mneme_tui.memory.secret_scan import scan

    store = arguments.open_store(args)
    repo = None if args.all_repos else config.resolve_repo(args.project)
    proposals = scan(store, repo_id=repo, include_global=args.project is None)
    if args.json:
        output.print_json({"proposals": [proposal.to_json() for proposal in proposals]})
        return 0
    if not proposals:
        print("No stored memory holds a secret.")
    for proposal in proposals:
        where = ", ".join(f"{f.description} ({name} line {f.line}, column {f.column})" for name, f in proposal.findings)
        print(
            f"memory {proposal.memory_id} ({proposal.kind}, {proposal.status}, repo "
            f"{output.literal(proposal.repo_id)}): {where}"
        )
        print(f"  to remove it: {proposal.command}")
    return 0
