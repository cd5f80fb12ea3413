"""``mneme purge``: the one deletion (``memory/purge.py``): the text goes from every file the store owns."""

from __future__ import annotations

import argparse

from mneme_tui.cli import arguments, output


def register(sub: argparse._SubParsersAction) -> None:
    purge = arguments.add_command(
        sub, "purge", "remove memories' text for good (a leaked secret): the one deletion; the rows stay, tombstoned"
    )
    purge.add_argument("ids", nargs="+", metavar="ID")
    purge.add_argument("--reason", required=True, metavar="TEXT", help="why (recorded in the audit history)")
    purge.add_argument("--chain", action="store_true", help="purge every version of each memory's supersession chain")
    purge.set_defaults(func=cmd_purge)


def cmd_purge(args: argparse.Namespace) -> int:
    from mneme_tui.memory.purge import purge

    ids = arguments.memory_ids(args.ids, "purged")
    result = purge(arguments.open_store(args), ids, reason=args.reason, chain=args.chain)
    if args.json:
        output.print_json(result.to_json())
        return 0
    for memory in result.purged:
        print(f"Purged memory {memory.id} (was {memory.previous_status}; removed text sha256 {memory.sha256})")
        if memory.legion_file:
            print(f"  note: {output.literal(memory.legion_file)} still holds record "
                  f"{output.literal(memory.legion_record) or '(no ID)'}: edit the file to remove it there")
    if not result.clean:
        print("note: another process holds the database open, so its write-ahead log still has the old text; "
              "run the purge again when it has closed")
    return 0
