"""Shared plumbing for command handlers: parsers, opening the store, tables, JSON and error output."""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime
from typing import Any, NoReturn

from mneme_tui import display
from mneme_tui.errors import MnemeError


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)


def add_common_options(parser: argparse.ArgumentParser, *, suppress_defaults: bool = True) -> None:
    """``--db PATH`` on the top-level parser and on every subcommand (either position works)."""
    default = argparse.SUPPRESS if suppress_defaults else None
    parser.add_argument("--db", metavar="PATH", default=default, help="database file (default: $MNEME_DB or the user data dir)")


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document to stdout")


def add_command(sub: argparse._SubParsersAction, name: str, help_text: str, *, json_option: bool = True) -> argparse.ArgumentParser:
    """A subcommand parser with the options every command takes (``--db``, and ``--json`` by default)."""
    parser = sub.add_parser(name, help=help_text, description=help_text)
    add_common_options(parser)
    if json_option:
        add_json_option(parser)
    return parser


def add_profile_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        help="ranking profile (default: $MNEME_PROFILE, the config file's `profile`, or spec)",
    )


def resolve_profile(args: argparse.Namespace) -> str:
    """``--profile`` > ``MNEME_PROFILE`` > config file ``profile`` > ``spec``."""
    from mneme_tui.config import load_settings
    from mneme_tui.memory.ranking import DEFAULT_PROFILE

    chosen = getattr(args, "profile", None) or os.environ.get("MNEME_PROFILE", "").strip()
    if not chosen:
        chosen = str(load_settings().get("profile", "") or DEFAULT_PROFILE)
    return chosen


def positive_int(raw: str) -> int:
    """argparse type: an integer ≥ 1."""
    return _int_at_least(raw, 1, "must be at least 1")


def non_negative_int(raw: str) -> int:
    """argparse type: an integer ≥ 0."""
    return _int_at_least(raw, 0, "cannot be negative")


def _int_at_least(raw: str, minimum: int, complaint: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {raw!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{complaint}: {raw!r}")
    return value


def open_store(args: argparse.Namespace):
    """The Store for ``--db`` / ``MNEME_DB`` / the default path."""
    from mneme_tui.config import resolve_db_path
    from mneme_tui.memory.store import Store

    return Store(resolve_db_path(getattr(args, "db", None)))


def print_json(document: Any) -> None:
    """One JSON document on stdout (unicode kept as is)."""
    sys.stdout.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")


def fail(exc: MnemeError) -> int:
    """One line on stderr naming the error code; exit status 1."""
    message = " ".join(display.printable(str(exc)).split())
    print(f"mneme: {message}", file=sys.stderr)
    return 1


def literal(value: str) -> str:
    """A value quoted for a one-line message, control characters made visible."""
    return display.printable(value).replace("\n", "\\n")


def text(value: str):
    """A rich Text that shows ``value`` literally: no markup, no emoji codes, controls made visible."""
    from rich.text import Text

    return Text(display.printable(value))


def age(created_at: datetime, now: datetime) -> str:
    return display.age(created_at, now)


def table(*columns: tuple[str, str]):
    """A plain rich table whose cells fold instead of being cut, so no text is ever lost."""
    from rich import box
    from rich.table import Table

    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    for name, justify in columns:
        grid.add_column(name, justify=justify, overflow="fold", no_wrap=False)
    return grid


def print_table(grid) -> None:
    from rich.console import Console

    Console(markup=False, emoji=False, highlight=False, soft_wrap=False).print(grid)


def run_tui(args: argparse.Namespace) -> int:
    """Open the full-screen app (imported lazily so the CLI never pays for Textual)."""
    try:
        from mneme_tui.tui.launch import launch
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("mneme_tui.tui"):
            print("mneme: the TUI is not built yet; see `mneme --help`", file=sys.stderr)
            return 2
        raise
    return launch(args)
