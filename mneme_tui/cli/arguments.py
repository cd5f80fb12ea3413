"""Checks every parsed command-line argument before a command runs: arguments must be UTF-8 text."""

from __future__ import annotations

import argparse

from mneme_tui.validation import check_text


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
