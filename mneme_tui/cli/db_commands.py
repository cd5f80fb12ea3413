"""``mneme db info`` and ``mneme db copy``: which database a store lives in, and moving a store between
SQLite and PostgreSQL (issue 15). A URL's password is never printed."""

from __future__ import annotations

import argparse

from mneme_tui import config
from mneme_tui.cli import arguments, declared, output
from mneme_tui.operations.declaration import REDACT_PARAM


def register(sub: argparse._SubParsersAction) -> None:
    group = sub.add_parser(
        "db",
        help="the database: info, copy between SQLite and PostgreSQL",
        description="Which database the store lives in; copy a store between backends.",
    )
    arguments.add_common_options(group)
    commands = group.add_subparsers(dest="db_command", metavar="ACTION", parser_class=arguments.Parser, required=True)
    info = arguments.add_command(commands, "info", "backend, database (without password), schema version and counts")
    info.set_defaults(func=cmd_info)
    copy = arguments.add_command(
        commands,
        "copy",
        "copy a whole store from SRC to DST (a file path or a postgresql:// URL), verifying counts and content hashes",
    )
    copy.add_argument("source", metavar="SRC")
    copy.add_argument("destination", metavar="DST")
    copy.add_argument("--merge", action="store_true", help="add to a destination that already has memories")
    declared.add_param(copy, REDACT_PARAM)
    copy.set_defaults(func=cmd_copy)


def cmd_info(args: argparse.Namespace) -> int:
    info = arguments.open_store(args).info()
    if args.json:
        output.print_json(info)
        return 0
    print(f"backend           {info['backend']}")
    print(f"database          {output.literal(info['database'])}")
    print(f"schema version    {info['schema_version']}")
    statuses = ", ".join(f"{status} {count}" for status, count in info["memories"].items() if status != "all")
    print(f"memories          {info['memories']['all']} ({statuses})")
    for table, count in info["tables"].items():
        if table != "memories":
            print(f"{table:<18}{count}")
    return 0


def cmd_copy(args: argparse.Namespace) -> int:
    from mneme_tui.memory import secret_scan, secrets
    from mneme_tui.memory.persistence import store_copy
    from mneme_tui.memory.store import Store

    source_target = config.resolve_db_path(args.source)
    destination_target = config.resolve_db_path(args.destination)
    store_copy.check_targets(source_target, destination_target)
    source = Store(source_target)
    redact = secrets.policy_for(args.redact) == secrets.REDACT
    destination = Store(destination_target)
    result, redacted = secret_scan.screened_copy(source, destination, merge=args.merge, redact=redact)
    output.print_redactions(redacted)
    shown = {"source": str(source.path), "destination": str(destination.path)}
    if args.json:
        output.print_json(
            {**shown, "copied": result.counts, "kept_ids": result.kept_ids, "skipped": result.skipped, "verified": True}
        )
        return 0
    ids = "ids kept" if result.kept_ids else "new ids after the existing ones"
    skipped = f"; {result.skipped} already there, skipped" if result.skipped else ""
    print(
        f"Copied {result.counts['memories']} memories from {output.literal(shown['source'])} to "
        f"{output.literal(shown['destination'])} ({ids}{skipped}); counts and content hashes verified."
    )
    return 0
