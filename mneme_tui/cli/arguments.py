"""Argument parsing shared by the command modules: the parser class, common options, integer types,
the check that every argument is UTF-8 text, and the store that ``--db`` names."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from mneme_tui import config, display
from mneme_tui.operations import values
from mneme_tui.validation import MAX_CONTENT_CHARS, check_text, decode_utf8, read_stream, strip_one_newline, too_large

if TYPE_CHECKING:
    from mneme_tui.memory.store import Store


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (control characters in the user's
    arguments shown as ``\\x1b``, never echoed raw) and exit status 2. Options are never abbreviated.

    ``deferred``, when set, adds the parser's arguments on its first use (parsing, help, or adding another
    argument, which then comes after them): a command costs nothing until it is the one typed, and a group
    whose options need its own modules (``legion``) costs the other commands nothing."""

    deferred: Callable[[argparse.ArgumentParser], None] | None = None
    words_anywhere: str | None = None
    """The dest of a ``nargs="*"`` positional that also takes the words given after options, so
    ``legion recall errors --json "text"`` works as ``legion recall errors "text" --json`` does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Spec Law 6 (zero aliases): an option is only ever its full name, never a prefix of it (``--lim``)."""
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def complete(self) -> None:
        """Add the deferred arguments now (also for code that walks the parser, such as the JSON-shape test)."""
        add, self.deferred = self.deferred, None
        if add is not None:
            add(self)
            for action in self._actions:  # a set_defaults made before still wins, as when made after the arguments
                if action.dest in self._defaults:
                    action.default = self._defaults[action.dest]

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        self.complete()
        return super().add_argument(*args, **kwargs)

    def add_subparsers(self, **kwargs: Any) -> argparse._SubParsersAction:
        self.complete()
        return super().add_subparsers(**kwargs)

    def format_usage(self) -> str:
        self.complete()
        return super().format_usage()

    def format_help(self) -> str:
        self.complete()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {display.printable(message)} (see {self.prog} --help)\n")
        raise SystemExit(2)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Remember the innermost (sub)command that left arguments unrecognised, so the error names it."""
        self.complete()
        parsed, extras = super().parse_known_args(args, namespace)
        if self.words_anywhere and extras:
            late = [extra for extra in extras if not extra.startswith("-")]
            setattr(parsed, self.words_anywhere, [*getattr(parsed, self.words_anywhere), *late])
            extras = [extra for extra in extras if extra.startswith("-")]
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
    parser.add_argument(
        "--db", metavar="PATH", default=default, help="database file (default: $MNEME_DB or the user data dir)"
    )


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document to stdout")


def add_command(
    sub: argparse._SubParsersAction,
    name: str,
    help_text: str,
    *,
    json_option: bool = True,
    description: str | None = None,
    deferred: Callable[[argparse.ArgumentParser], None] | None = None,
) -> argparse.ArgumentParser:
    """A subcommand parser with the options every command takes (``--db``, and ``--json`` by default);
    ``help_text`` is its line in its group's list and, unless ``description`` is given, its description.
    With ``deferred``, those options and then what ``deferred`` adds are added on the parser's first use."""
    parser = sub.add_parser(name, help=help_text, description=description or help_text)

    def add_arguments(command: argparse.ArgumentParser) -> None:
        add_common_options(command)
        if json_option:
            add_json_option(command)
        if deferred is not None:
            deferred(command)

    if deferred is None:
        add_arguments(parser)
    else:
        assert isinstance(parser, Parser), "the subparsers' parser_class must be arguments.Parser"
        parser.deferred = add_arguments
    return parser


def add_deferred_command(
    sub: argparse._SubParsersAction,
    name: str,
    help_text: str,
    description: str,
    add_arguments: Callable[[argparse.ArgumentParser], None],
) -> None:
    """A command (group) whose arguments ``add_arguments`` adds only when the command is used or its help shown."""
    parser = sub.add_parser(name, help=help_text, description=description)
    assert isinstance(parser, Parser), "the subparsers' parser_class must be arguments.Parser"
    parser.deferred = add_arguments


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
    return _int_at_least(raw, 1)


def non_negative_int(raw: str) -> int:
    """argparse type: an integer ≥ 0."""
    return _int_at_least(raw, 0)


def _int_at_least(raw: str, minimum: int) -> int:
    try:
        return values.int_at_least(raw, minimum)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def open_store(args: argparse.Namespace, *, create: bool = False) -> Store:
    """The Store for ``--db`` / ``MNEME_DB`` / the default path (redacting secrets when ``--redact`` was given).
    A SQLite store that does not exist is created only by the commands that pass ``create`` (those that
    save); any other command refuses it with one ERR_DATABASE line and creates nothing (a mistyped ``--db``
    path makes no new database or folder)."""
    from mneme_tui.memory.store import Store

    store = Store(config.resolve_db_path(getattr(args, "db", None)), create=create)
    if getattr(args, "redact", False):
        store.secrets_policy = "redact"
    return store


memory_ids = values.memory_ids


def read_content(raw: str) -> str:
    """A CONTENT argument: ``-`` reads standard input as UTF-8, at most the content size limit (longer input
    is refused, never read whole), without the one trailing newline that ``echo`` adds."""
    if raw != "-":
        return raw
    refusal = too_large("standard input", "content size", MAX_CONTENT_CHARS, "characters")
    data = read_stream(sys.stdin.buffer, MAX_CONTENT_CHARS * 4, refusal)  # a UTF-8 character is at most 4 bytes
    return strip_one_newline(decode_utf8(data, "standard input"))


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """ERR_VALIDATION_FAILED naming the argument when a parsed value is not valid UTF-8 text (Python
    decodes argv with ``surrogateescape``, so a byte like ``\\xff`` arrives as a lone surrogate)."""
    for dest, value in vars(args).items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                check_text(item, _argument_name(parser, dest) or dest)


def _argument_name(parser: argparse.ArgumentParser, dest: str) -> str | None:
    """How the user spells the argument stored in ``dest`` (``--topic``, ``-p/--project``, ``CONTENT``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                name = _argument_name(child, dest)
                if name:
                    return name
        elif action.dest == dest:
            metavar = action.metavar if isinstance(action.metavar, str) else None
            return "/".join(action.option_strings) or metavar or dest
    return None
