"""Argparse commands built from the operation declarations (:mod:`mneme_tui.operations`): one option or
positional argument per declared parameter, with the declaration's help, type, bounds, choices and default."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from mneme_tui.cli import arguments
from mneme_tui.operations.declaration import BOOL, CLI, INT, INT_LIST, MEMORY_IDS, TEXT_LIST, Operation, Param


def add_operation(
    sub: argparse._SubParsersAction, operation: Operation, *,
    context: Callable[[argparse.ArgumentParser], None] | None = None,
) -> argparse.ArgumentParser:
    """The command of ``operation`` (its last command word) with ``--db``, ``--json``, the options ``context``
    adds (where the work happens: ``--dir``, ``--root``), then every CLI parameter."""
    parser = arguments.add_command(sub, operation.command[-1], operation.summary)
    if context is not None:
        context(parser)
    for param in operation.params_on(CLI):
        add_param(parser, param)
    return parser


def add_param(parser: argparse.ArgumentParser, param: Param) -> None:
    """One declared parameter as an argparse argument."""
    options: dict[str, Any] = {"help": param.cli_help()}
    if param.metavar:
        options["metavar"] = param.metavar
    if param.positional:
        if param.type in (TEXT_LIST, INT_LIST, MEMORY_IDS):
            options["nargs"] = "+" if param.required else "*"
        parser.add_argument(param.cli_dest, **options)
        return
    options["dest"] = param.cli_dest
    if param.type == BOOL:
        options.update(_flag_action(param))
    else:
        options.update(_value_options(param))
    parser.add_argument(*param.flags, **options)


def _flag_action(param: Param) -> dict[str, Any]:
    if param.negated_flag:
        return {"action": "store_false", "default": param.default}
    if param.negatable:
        return {"action": argparse.BooleanOptionalAction, "default": param.default}
    return {"action": "store_true", "default": param.default}


def _value_options(param: Param) -> dict[str, Any]:
    options: dict[str, Any] = {"default": list(param.default) if isinstance(param.default, tuple) else param.default}
    if param.required:
        options["required"] = True
    if param.choices and param.checked_by == "parser":
        options["choices"] = param.choices
    if param.type == INT:
        options["type"] = {None: int, 0: arguments.non_negative_int, 1: arguments.positive_int}[param.minimum]
    elif param.type == TEXT_LIST and param.comma_list:
        options["type"] = _comma_list
    elif param.type == TEXT_LIST:
        options.update(nargs="+", action="extend")
    return options


def _comma_list(raw: str) -> list[str]:
    from mneme_tui.legion.records import split_tags  # the Legion tag rules; only the legion group has lists

    return split_tags(raw)
