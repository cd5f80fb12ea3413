"""The shape of the code: no import cycles between the modules that had them, no string imports, and
usage errors that never echo control characters."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mneme_tui
from mneme_tui.cli import main

PACKAGE = Path(mneme_tui.__file__).parent


def imported_modules(module: str) -> set[str]:
    """Every module ``module`` imports anywhere in its file (top level, inside functions, TYPE_CHECKING)."""
    path = PACKAGE.parent / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = path.with_suffix("") / "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize(
    "one, other",
    [
        ("mneme_tui.tui.app", "mneme_tui.tui.screens.help"),
        ("mneme_tui.tui.launch", "mneme_tui.cli.output"),
        ("mneme_tui.tui.launch", "mneme_tui.cli.arguments"),
        ("mneme_tui.tui.screens.base", "mneme_tui.tui.widgets.header"),
    ],
)
def test_no_import_cycle(one, other):
    assert not (other in imported_modules(one) and one in imported_modules(other))


def test_cli_and_tui_import_their_modules_by_name_not_by_string():
    offenders = [
        str(path.relative_to(PACKAGE))
        for folder in ("cli", "tui")
        for path in (PACKAGE / folder).rglob("*.py")
        if "importlib" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


@pytest.mark.parametrize(
    "command", ["save", "recall", "list", "dismiss", "legion", "task", "handshake", "eval", "bench"]
)
def test_every_command_group_is_registered(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: mneme {command}")


@pytest.mark.parametrize("argv", [["list", "\x1b[31mred"], ["recall", "x", "--limit", "\x1b]0;title\x07"], ["\x1b[2J"]])
def test_usage_errors_show_control_characters_visibly(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mneme")
    assert "\x1b" not in err and "\x07" not in err
    assert "\\x1b" in err
