"""Argument parsing shared by the command modules: the parser class, common options, integer types,
and the store that ``--db`` names."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from mneme_tui import config, display

if TYPE_CHECKING:
    from mneme_tui.memory.store import Store


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (control characters in the user's
    arguments shown as ``\\x1b``, never echoed raw) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {display.printable(message)} (see {self.prog} --help)\n")
        raise SystemExit(2)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Remember the innermost (sub)command that left arguments unrecognised, so the error names it."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras and not hasattr(parsed, _EXTRAS_PROG):
            setattr(parsed, _EXTRAS_PROG, self.prog)
        return parsed, extras

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """Like argparse's, but unrecognised arguments point at the help of the command that got them."""
        parsed, extras = self.parse_known_args(args, namespace)
        prog = getattr(parsed, _EXTRAS_PROG, self.prog)
        if hasattr(parsed, _EXTRAS_PROG):
            delattr(parsed, _EXTRAS_PROG)
        if extras:
            message = f"unrecognized arguments: {' '.join(extras)}"
            sys.stderr.write(f"{prog}: error: {display.printable(message)} (see {prog} --help)\n")
            raise SystemExit(2)
        return parsed


_EXTRAS_PROG = "_mneme_extras_prog"


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
        help="ranking profile: bm25 or spec (default: $MNEME_PROFILE, the config file's `profile`, or bm25)",
    )


def resolve_profile(args: argparse.Namespace) -> str:
    """``--profile`` > ``MNEME_PROFILE`` > config file ``profile`` > ``bm25`` (ranking.DEFAULT_PROFILE)."""
    from mneme_tui.memory.ranking import DEFAULT_PROFILE

    return config.resolve_profile(getattr(args, "profile", None), DEFAULT_PROFILE)


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


def open_store(args: argparse.Namespace) -> Store:
    """The Store for ``--db`` / ``MNEME_DB`` / the default path."""
    from mneme_tui.memory.store import Store

    return Store(config.resolve_db_path(getattr(args, "db", None)))
