"""The `mneme` command line: argument parsing and dispatch. Each command group lives in its own module
with a ``register(subparsers)`` function; handlers return the exit status."""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from mneme_tui import __version__
from mneme_tui.cli import (
    arguments,
    bench_command,
    db_commands,
    eval_command,
    export_commands,
    legion_commands,
    lifecycle_commands,
    mcp_command,
    memory_commands,
    output,
    purge_command,
    review_commands,
    secrets_command,
    setup_command,
    task_commands,
)
from mneme_tui.errors import MnemeError
from mneme_tui.memory.heap_reuse import keep_freed_memory

COMMAND_MODULES = (
    memory_commands,
    lifecycle_commands,
    legion_commands,
    task_commands,
    eval_command,
    bench_command,
    mcp_command,
    db_commands,
    purge_command,
    secrets_command,
    setup_command,
    export_commands,
    review_commands,
)


def build_parser() -> argparse.ArgumentParser:
    """The full parser: global options plus every command group's commands."""
    parser = arguments.Parser(
        prog="mneme",
        description=(
            "Long-lived memory for coding agents. Without a command, opens the TUI in a terminal "
            "(with no terminal it prints this help and exits 2)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"mneme {__version__}")
    arguments.add_common_options(parser, suppress_defaults=False)
    parser.add_argument("--demo", action="store_true", help="open the TUI on a generated demo workspace")
    parser.add_argument(
        "-p",
        "--project",
        metavar="REPO",
        help="the TUI's active repository (default: $MNEME_REPO or the git work tree's name)",
    )
    parser.add_argument(
        "--legion-dir",
        metavar="DIR",
        help="the TUI's Legion memory folder (default: $MNEME_LEGION_DIR or .planning/memory)",
    )
    parser.add_argument("--profile", help="the TUI's starting ranking profile")
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="open the TUI with every write action off (also: read_only = true in the config file)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=arguments.Parser)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `mneme` console script."""
    keep_freed_memory()  # the TUI, `mneme mcp` and the bench recall again and again in one process
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        arguments.check_arguments(parser, args)
        if args.command is None:
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                return _no_terminal(parser)
            from mneme_tui.tui.launch import launch  # Textual only when the TUI opens

            return launch(args)
        with _notices_on_terminal():
            code = int(args.func(args) or 0)
        if argv is None:  # this process's own command line: it exits next, and what is left is never garbage
            gc.freeze()  # so the collection at exit need not walk it (a tenth of `mneme handshake`'s CPU time)
        return code
    except MnemeError as exc:
        return output.fail(exc)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


@contextmanager
def _notices_on_terminal() -> Iterator[None]:
    """While a command runs, show the index's INFO notices (a long first index build) on stderr when it is a
    terminal: a person sees why it waits; an agent's pipe stays as quiet as before. Like the store's warnings,
    which the logging module's last-resort handler prints, a notice is its message alone (it says ``mneme:``)."""
    if not sys.stderr.isatty():
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.INFO)
    logger = logging.getLogger("mneme_tui.index")
    level, propagate = logger.level, logger.propagate
    logger.setLevel(logging.INFO)
    logger.propagate = False  # shown once, by this handler (not again by a root handler, as `mneme mcp` sets up)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


def _no_terminal(parser: argparse.ArgumentParser) -> int:
    """No command and no terminal (an agent's shell tool, a pipe): the help on stderr and exit 2, never the TUI."""
    sys.stderr.write(parser.format_help())
    print(
        "mneme: the full-screen app needs a terminal on stdin and stdout; give a command (see above)", file=sys.stderr
    )
    return 2
