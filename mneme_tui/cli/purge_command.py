"""``mneme purge``: the one deletion (:data:`mneme_tui.operations.purge.PURGE`): the text goes from every file
the store owns and, with ``--markdown``, from the memory's mirrored Legion row."""

from __future__ import annotations

import argparse

from mneme_tui.cli import declared, output
from mneme_tui.operations.purge import PURGE


def register(sub: argparse._SubParsersAction) -> None:
    declared.add_operation(sub, PURGE, context=_dir_option).set_defaults(func=cmd_purge)


def _dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help="the Legion memory folder for --markdown (default: $MNEME_LEGION_DIR or .planning/memory)",
    )


def cmd_purge(args: argparse.Namespace) -> int:
    from mneme_tui.legion.mirror.sync import resolve_memory_dir
    from mneme_tui.legion.skill.api import LegionMemory

    session = declared.session_for(PURGE, args, lambda: LegionMemory(resolve_memory_dir(args.dir)))
    result = declared.run(PURGE, args, session=session)
    if args.json:
        output.print_json(PURGE.to_json(result, {}))
        return 0
    for memory in result.purged:
        print(f"Purged memory {memory.id} (was {memory.previous_status}; removed text sha256 {memory.sha256})")
        if memory.id in result.markdown_rewritten:
            print(f"  and its row {output.literal(memory.legion_record)} in {output.literal(memory.legion_file)}")
        elif memory.legion_file:
            print(
                f"  note: {output.literal(memory.legion_file)} still holds record "
                f"{output.literal(memory.legion_record) or '(no ID)'}: edit the file, or purge with --markdown"
            )
    if not result.clean:
        print(
            "note: another process holds the database open, so its write-ahead log still has the old text; "
            "run the purge again when it has closed"
        )
    return 0
