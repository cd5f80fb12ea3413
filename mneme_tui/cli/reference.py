"""The CLI reference page (``docs/reference/cli.md``), generated from the parser that ``mneme`` runs, so
it cannot drift: every command, its usage, and each argument with its help and choices.

Regenerate it with ``python -m mneme_tui.cli.reference docs/reference/cli.md``; a test fails when the
committed page differs from what this writes."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

from mneme_tui.cli import arguments, build_parser

USAGE_WIDTH = 100
"""The width usages are wrapped at, so the page does not depend on the terminal it was made in."""

HEADER = """# CLI reference

Every `mneme` command with its arguments, generated from the parser itself by
`python -m mneme_tui.cli.reference docs/reference/cli.md` (a test fails when this page is out of date).
Every command also takes `--db PATH` (the database; default: `$MNEME_DB` or the user data folder), and
every command that prints data takes `--json` (one JSON document on stdout).
"""


Command = tuple[tuple[str, ...], argparse.ArgumentParser]


def commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> Iterator[Command]:
    """Every (sub)command under ``parser``, depth first, with its command words (deferred groups completed)."""
    if isinstance(parser, arguments.Parser):
        parser.complete()
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, child in action.choices.items():
                yield from commands(child, (*words, word))


def usage(parser: argparse.ArgumentParser) -> str:
    """The command's usage line, wrapped at :data:`USAGE_WIDTH`."""
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _name(action: argparse.Action) -> str:
    if action.option_strings:
        metavar = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
        return ", ".join(f"`{flag}{metavar}`" for flag in action.option_strings)
    return f"`{action.metavar or action.dest}`"


def arguments_table(parser: argparse.ArgumentParser) -> list[str]:
    """A markdown table of the command's arguments (without ``-h``, ``--db`` and ``--json``): name, help, choices."""
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction | argparse._HelpAction | argparse._VersionAction):
            continue
        if action.dest in ("db", "json"):
            continue
        choices = ", ".join(f"`{choice}`" for choice in action.choices) if action.choices else ""
        rows.append(f"| {_name(action)} | {_cell(action.help or '')} | {choices} |")
    if not rows:
        return []
    return ["| Argument | What it is | Choices |", "| --- | --- | --- |", *rows, ""]


def _subcommands(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return [
                f"- `{word}`: {_cell(choice.help or '')}"
                for word, choice in zip(action.choices, action._choices_actions)
            ] + [""]
    return []


def reference() -> str:
    """The whole page."""
    lines = [HEADER]
    for words, parser in commands(build_parser()):
        title = " ".join(("mneme", *words))
        lines += [f"## {title}", "", _cell(parser.description or ""), "", "```text", usage(parser), "```", ""]
        lines += arguments_table(parser) + _subcommands(parser)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page to the path given (``--help`` prints the usage, it is not a file name)."""
    parser = argparse.ArgumentParser(
        prog="python -m mneme_tui.cli.reference", description="Write the CLI reference page (markdown)."
    )
    parser.add_argument("page", type=Path, help="where to write it, for example docs/reference/cli.md")
    target: Path = parser.parse_args(argv).page
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(reference(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
