"""The `mneme` command line: argument parsing and dispatch. Each command group lives in its own module
with a ``register(subparsers)`` function; handlers return the exit status."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mneme_tui import __version__
from mneme_tui.cli import output
from mneme_tui.errors import MnemeError

COMMAND_MODULES = (
    "mneme_tui.cli.memory_commands",
    "mneme_tui.cli.lifecycle_commands",
    "mneme_tui.cli.legion_commands",
    "mneme_tui.cli.task_commands",
    "mneme_tui.cli.eval_command",
    "mneme_tui.cli.bench_command",
)


def build_parser() -> argparse.ArgumentParser:
    """The full parser: global options plus every registered command."""
    import importlib

    parser = output.Parser(
        prog="mneme",
        description="Long-lived memory for coding agents. Without a command, opens the TUI.",
    )
    parser.add_argument("--version", action="version", version=f"mneme {__version__}")
    output.add_common_options(parser, suppress_defaults=False)
    parser.add_argument("--demo", action="store_true", help="open the TUI on a generated demo workspace")
    parser.add_argument("-p", "--project", metavar="REPO", help="the TUI's active repository (default: $MNEME_REPO or the git work tree's name)")
    parser.add_argument("--legion-dir", metavar="DIR", help="the TUI's Legion memory folder (default: $MNEME_LEGION_DIR or .planning/memory)")
    parser.add_argument("--profile", help="the TUI's starting ranking profile")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=output.Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # command group not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `mneme` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            return output.run_tui(args)
        return int(args.func(args) or 0)
    except MnemeError as exc:
        return output.fail(exc)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
