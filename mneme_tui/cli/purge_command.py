"""``mneme purge``: the one deletion (``memory/purge.py``): the text goes from every file the store owns."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mneme_tui.cli import arguments, output

if TYPE_CHECKING:
    from mneme_tui.memory.purge import PurgeResult


def register(sub: argparse._SubParsersAction) -> None:
    purge = arguments.add_command(
        sub, "purge", "remove memories' text for good (a leaked secret): the one deletion; the rows stay, tombstoned"
    )
    purge.add_argument("ids", nargs="+", metavar="ID")
    purge.add_argument("--reason", required=True, metavar="TEXT", help="why (recorded in the audit history)")
    purge.add_argument("--chain", action="store_true", help="purge every version of each memory's supersession chain")
    purge.add_argument("--markdown", action="store_true",
                       help="also replace the text of the mirrored row in its Legion file (a safe rewrite)")
    purge.add_argument("--dir", metavar="DIR",
                       help="the Legion memory folder for --markdown (default: $MNEME_LEGION_DIR or .planning/memory)")
    purge.set_defaults(func=cmd_purge)


def _rewrite_rows(args: argparse.Namespace, result: PurgeResult) -> set[int]:
    """Replace the text of each purged memory's mirrored Legion row; the ids whose row was rewritten."""
    from mneme_tui.legion.api import LegionMemory
    from mneme_tui.legion.purge_rows import purge_row
    from mneme_tui.legion.sync import resolve_memory_dir
    from mneme_tui.memory.purge import PURGED

    legion = LegionMemory(resolve_memory_dir(args.dir))
    return {memory.id for memory in result.purged
            if memory.legion_file and purge_row(legion, memory.legion_file, memory.legion_record, PURGED)}


def cmd_purge(args: argparse.Namespace) -> int:
    from mneme_tui.memory.purge import purge

    ids = arguments.memory_ids(args.ids, "purged")
    result = purge(arguments.open_store(args), ids, reason=args.reason, chain=args.chain)
    rewritten = _rewrite_rows(args, result) if args.markdown else set()
    if args.json:
        output.print_json({**result.to_json(), "markdown_rewritten": sorted(rewritten)})
        return 0
    for memory in result.purged:
        print(f"Purged memory {memory.id} (was {memory.previous_status}; removed text sha256 {memory.sha256})")
        if memory.id in rewritten:
            print(f"  and its row {output.literal(memory.legion_record)} in {output.literal(memory.legion_file)}")
        elif memory.legion_file:
            print(f"  note: {output.literal(memory.legion_file)} still holds record "
                  f"{output.literal(memory.legion_record) or '(no ID)'}: edit the file, or purge with --markdown")
    if not result.clean:
        print("note: another process holds the database open, so its write-ahead log still has the old text; "
              "run the purge again when it has closed")
    return 0
