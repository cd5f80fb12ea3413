"""The CLI and the MCP server are built from one declaration per operation: they have the same parameters,
the same help, the same choices and defaults, and answer with the same documents."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest

from mneme_tui.cli import arguments, build_parser
from mneme_tui.cli import main as cli_main
from mneme_tui.mcp.context import Call, ServerContext
from mneme_tui.mcp.tool_schema import input_schema
from mneme_tui.mcp.tools import OWN_WORK, TOOLS, answer
from mneme_tui.memory import ranking
from mneme_tui.memory.store import Store
from mneme_tui.operations.catalog import all_operations
from mneme_tui.operations.declaration import CLI, MCP, Operation
from mneme_tui.operations.memory import PROFILE_NAMES, RECALL_FIELDS

OPERATIONS = all_operations()
BOTH_SURFACES = [
    (operation, param) for operation in OPERATIONS for param in operation.params if param.on(CLI) and param.on(MCP)
]


def command_parser(words: tuple[str, ...]) -> argparse.ArgumentParser:
    """The argparse parser of ``mneme WORDS…`` (deferred groups completed)."""
    parser: argparse.ArgumentParser = build_parser()
    for word in words:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[word]
        if isinstance(parser, arguments.Parser):
            parser.complete()
    return parser


def cli_action(operation: Operation, name: str) -> argparse.Action:
    param = operation.param(name) if name != "report" else operation.params_on(CLI)[0]
    actions = command_parser(operation.command)._actions
    return next(a for a in actions if a.dest == param.cli_dest)


def plain(text: str, choices: list[str] | None = None) -> str:
    """A help text without what only one surface says: the default, stdin, commas, a negation, the choices
    (the schema's enum, listed in the CLI's help when argparse does not show them)."""
    text = re.sub(r" \(default: [^)]*\)$", "", text.removeprefix("false: "))
    text = text.removesuffix(" (comma-separated)").removesuffix(" (repeat the option for more)")
    text = text.removesuffix("; '-' reads standard input")
    return text.removesuffix(f": {', '.join(choices)}") if choices else text


def test_every_operation_is_a_cli_command_and_an_mcp_tool() -> None:
    assert {operation.tool for operation in OPERATIONS} == set(TOOLS)
    for operation in OPERATIONS:
        parser = command_parser(operation.command)
        assert parser.description == operation.summary
        assert operation.description().lower().startswith(operation.summary.lower()), operation.tool
        # (``review``'s actions, ``review accept|reject|undo``, are commands of their own, without a dest)
        cli_dests = {a.dest for a in parser._actions} - {"help", "db", "json", "dir", "root", argparse.SUPPRESS}
        assert cli_dests == {param.cli_dest for param in operation.params_on(CLI)}, operation.tool
        assert set(input_schema(operation)["properties"]) == {param.name for param in operation.params_on(MCP)}


def test_one_function_does_the_work_of_both_surfaces_where_they_read_alike() -> None:
    """An operation either has one shared ``run`` or, where the surfaces read differently (a report file or an
    object; ``[KIND] [QUERY]`` words or two arguments), the server's own function for it: never both, never none."""
    shared = {operation.tool for operation in OPERATIONS if operation.run is not None}
    assert shared.isdisjoint(OWN_WORK) and shared | set(OWN_WORK) == set(TOOLS)
    assert set(OWN_WORK) == {"handshake", "task_sync", "legion_briefing", "legion_recall"}


@pytest.mark.parametrize("operation, param", BOTH_SURFACES, ids=lambda x: getattr(x, "tool", getattr(x, "name", "")))
def test_a_parameter_on_both_surfaces_agrees(operation: Operation, param: Any) -> None:
    action = cli_action(operation, param.name)
    field = input_schema(operation)["properties"][param.name]
    assert plain(action.help or "", field.get("enum")) == plain(field["description"]) != ""
    assert (param.name in input_schema(operation).get("required", [])) == (action.required or not action.option_strings)
    if action.choices is not None:  # a list of choices has them on its items
        assert list(action.choices) == field.get("enum", field.get("items", {}).get("enum"))
    if "default" in field and not param.negated_flag:
        assert action.default == field["default"]
    if param.minimum is not None:  # a bound: argparse's type on the CLI, the schema's minimum in MCP
        assert action.type is {0: arguments.non_negative_int, 1: arguments.positive_int}[field["minimum"]]
    if param.negated_flag:
        assert action.default is True and isinstance(action, argparse._StoreFalseAction)


def test_the_profile_enum_is_the_ranking_profiles() -> None:
    assert tuple(sorted(ranking.PROFILES)) == PROFILE_NAMES


@pytest.fixture
def both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """A store with three memories, and two ways to ask it: the CLI's ``--json`` and an MCP tool call."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEME_REPO", "acme")
    db, folder = tmp_path / "mneme.db", tmp_path / ".planning" / "memory"

    def cli(*argv: str) -> Any:
        capsys.readouterr()
        assert cli_main([*argv, "--json", "--db", str(db)]) == 0
        return json.loads(capsys.readouterr().out)

    for text in (
        "peewee keeps one connection per thread",
        "a worker thread opens its own connection",
        "tombstone, never delete",
    ):
        cli("save", text)
    call = Call(ServerContext(Store(db), "acme", "bm25", tmp_path, folder))
    return cli, lambda tool, **given: json.loads(answer(call, tool, given)), str(folder)


def test_the_results_have_the_same_shapes(both) -> None:
    cli, mcp, folder = both
    assert mcp("recall", query="connection thread", detail=True) == cli("recall", "connection thread")
    lean = mcp("recall", query="connection thread")
    assert lean and all(tuple(item) == RECALL_FIELDS for item in lean)
    assert mcp("list", limit=2) == cli("list", "-n", "2")
    assert mcp("show", memory_id=1) == cli("show", "1")
    assert mcp("handshake") == cli("handshake")
    assert mcp("legion_briefing") == cli("legion", "briefing", "--dir", folder)
    assert mcp("legion_recall", kind="errors") == cli("legion", "recall", "errors", "--dir", folder)
    saved, echo = cli("save", "one more"), mcp("save", content="one more again")
    assert set(echo) == {"id", "kind", "repo_id", "topic", "echo", "chars"} and set(echo) - {"echo", "chars"} < set(
        saved
    )
    assert set(mcp("dismiss", ids=[1])) == set(cli("dismiss", "2")) == {"dismissed", "unchanged"}
    assert set(mcp("restore", ids=[1])) == set(cli("restore", "2")) == {"restored", "unchanged"}
    assert set(mcp("supersede", memory_id=3, content="tombstone it")) == set(cli("supersede", "4", "x"))
    assert mcp("review", all_repos=True) == cli("review", "-A")
    assert set(mcp("pin", ids=[3])) == set(cli("pin", "3")) == {"pinned", "unchanged"}
    assert (
        set(mcp("purge", ids=[1], reason="a leaked key"))
        == set(cli("purge", "2", "--reason", "a leaked key"))
        == {"purged", "reason", "clean", "markdown_rewritten"}
    )


def test_a_budget_cuts_the_same_documents(both) -> None:
    """``budget`` / ``--budget``: the same shape on both surfaces; a budget that holds everything keeps the same
    items (each surface measures what it prints: compact JSON in MCP, indented with ``--json``)."""
    cli, mcp, folder = both
    ample = "100000"
    for tool, argv, items in (
        ("recall", ("recall", "connection thread"), "results"),
        ("handshake", ("handshake",), "learned_pitfalls"),
        ("legion_briefing", ("legion", "briefing", "--dir", folder), "top_agents"),
        ("legion_recall", ("legion", "recall", "--dir", folder), "records"),
    ):
        extra = {"query": "connection thread", "detail": True} if tool == "recall" else {}
        answer, printed = mcp(tool, budget=int(ample), **extra), cli(*argv, "--budget", ample)
        assert set(answer) == set(printed) and answer[items] == printed[items], tool
        assert answer["budget"]["left_out"] == printed["budget"]["left_out"] == 0, tool
        assert answer["budget"]["needed"] < printed["budget"]["needed"], tool
