"""No product function is longer than about 60 lines; the few still being split are listed, and the list only
shrinks (a listed function that got short must leave the list)."""

from __future__ import annotations

import ast
from pathlib import Path

import mneme_tui

PACKAGE = Path(mneme_tui.__file__).parent
MAX_LINES = 60

# a function being split on a branch while others land (issue 19): its "path:name", removed when it lands
BEING_SPLIT: set[str] = set()


def long_functions() -> dict[str, int]:
    """``path:qualified.name`` → lines, for every function of the package longer than :data:`MAX_LINES`."""
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        found.update(_long_in(ast.parse(path.read_text(encoding="utf-8")), f"{relative}:"))
    return found


def _long_in(node: ast.AST, prefix: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + child.name
            if not isinstance(child, ast.ClassDef) and (lines := child.end_lineno - child.lineno + 1) > MAX_LINES:
                found[name] = lines
            found.update(_long_in(child, name + "."))
    return found


def test_no_function_is_longer_than_sixty_lines_except_those_being_split():
    assert {name: lines for name, lines in long_functions().items() if name not in BEING_SPLIT} == {}


def test_the_list_of_functions_being_split_only_shrinks():
    assert sorted(BEING_SPLIT - set(long_functions())) == [], "now short or gone: remove from BEING_SPLIT"
