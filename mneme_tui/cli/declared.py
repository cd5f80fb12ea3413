"""Argparse commands built from the operation declarations (:mod:`mneme_tui.operations`): one option or
positional argument per declared parameter, with the declaration's help, type, bounds, choices and default."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mneme_tui import config
from mneme_tui.cli import arguments, output
from mneme_tui.memory.records import SAVE
from mneme_tui.operations.declaration import (
    BOOL,
    CLI,
    INT,
    INT_LIST,
    MEMORY_ID,
    MEMORY_IDS,
    TEXT_LIST,
    Operation,
    Param,
)

if TYPE_CHECKING:  # the store and the Legion API are imported by the commands that use them
    from pathlib import Path

    from mneme_tui.legion.skill.api import LegionMemory
    from mneme_tui.memory.store import Store


def add_operation(
    sub: argparse._SubParsersAction,
    operation: Operation,
    *,
    context: Callable[[argparse.ArgumentParser], None] | None = None,
    word: str | None = None,
    line: str = "",
) -> argparse.ArgumentParser:
    """The command of ``operation`` (its last command word, or ``word`` where a choice is spelled as the command:
    ``review accept|reject|undo``, with ``line`` its line in the group's list) with ``--db``, ``--json``, the
    options ``context`` adds (where the work happens: ``--dir``, ``--root``), then every CLI parameter, all added
    when the command is first used (:class:`arguments.Parser`'s ``deferred``)."""

    def add_arguments(parser: argparse.ArgumentParser) -> None:
        if context is not None:
            context(parser)
        for param in operation.params_on(CLI):
            add_param(parser, param)

    name = word or operation.command[-1]
    line = line or operation.summary
    return arguments.add_command(sub, name, line, description=operation.summary, deferred=add_arguments)


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
    elif param.type == TEXT_LIST and param.repeated:
        options["action"] = "append"
    elif param.type == TEXT_LIST:
        options.update(nargs="+", action="extend")
    return options


def _comma_list(raw: str) -> list[str]:
    from mneme_tui.legion.markdown.legion_records import (
        split_tags,  # the Legion tag rules; only the legion group has lists
    )

    return split_tags(raw)


def values_of(operation: Operation, args: argparse.Namespace) -> dict[str, Any]:
    """The parsed CLI arguments as the operation's keyword values: memory ids checked (``not a memory id: x;
    nothing shown``) and ``-`` read from standard input where the declaration says so."""
    found: dict[str, Any] = {}
    for param in operation.params_on(CLI):
        value = getattr(args, param.cli_dest)
        if param.type == MEMORY_ID:
            (value,) = arguments.memory_ids([value], operation.past)
        elif param.type == MEMORY_IDS:
            value = arguments.memory_ids(value, operation.past)
        elif param.reads_stdin:
            value = arguments.read_content(value)
        found[param.name] = value
    return found


class CliSession:
    """Where a command runs: the store ``--db`` names (opened on first use; created if missing only when
    ``create`` says so), the active repo and profile as the CLI resolves them, the Legion folder the command's
    caller chose, and the work tree (``--root``, where the command has it, else the enclosing git work tree for
    the active repo)."""

    source, detail = SAVE, ""

    def __init__(
        self,
        args: argparse.Namespace,
        legion: Callable[[], LegionMemory] | None = None,
        root: Path | None = None,
        *,
        create: bool = False,
    ) -> None:
        self._args, self._legion, self._root, self._create = args, legion, root, create
        self._store: Store | None = None

    def store(self) -> Store:
        if self._store is None:
            self._store = arguments.open_store(self._args, create=self._create)
        return self._store

    def repo(self, given: str | None) -> str:
        return config.resolve_repo(given)

    def profile(self, given: str | None) -> str:
        from mneme_tui.memory.ranking import DEFAULT_PROFILE

        return config.resolve_profile(given, DEFAULT_PROFILE)

    def legion(self) -> LegionMemory:
        assert self._legion is not None, "a Legion command passes its folder"
        return self._legion()

    def work_tree(self, repo: str | None) -> Path | None:
        from mneme_tui.memory.curation.proposals import default_root

        return self._root or default_root(repo, config.resolve_repo())

    def screened(self, fields: dict[str, Any], redact: bool) -> dict[str, Any]:
        """As the Session says, an error naming the option (``--pattern``); the count of redactions on stderr."""
        from mneme_tui.memory import secrets

        spelled = {_option(name): value for name, value in fields.items()}
        screened, replaced = secrets.screen_fields(spelled, secrets.policy_for(redact))
        output.print_redactions(replaced)
        return {name: screened[_option(name)] for name in fields}


def session_for(
    operation: Operation, args: argparse.Namespace, legion: Callable[[], LegionMemory] | None = None
) -> CliSession:
    """Where ``operation`` runs: its store is created if missing only when the operation only adds (``save``);
    a read or a change of a store that does not exist is one ERR_DATABASE line, and nothing is created."""
    return CliSession(args, legion, create=operation.effect.creates_store)


def _option(name: str) -> str:
    return f"--{name.replace('_', '-')}"


def run(
    operation: Operation,
    args: argparse.Namespace,
    *,
    session: CliSession | None = None,
    given: dict[str, Any] | None = None,
) -> Any:
    """Run ``operation`` on the parsed arguments (or on the values ``given``, already read from them): its
    result object, to print or to pass to ``operation.to_json``. Without ``session``: ``session_for(operation)``."""
    assert operation.run is not None, f"{operation.tool} has no shared work"
    session = session or session_for(operation, args)
    return operation.run(session, **(values_of(operation, args) if given is None else given))
