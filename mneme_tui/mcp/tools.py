"""Every tool: its declared operation and the function that does its work, and one way to answer a call
(check the arguments against the declaration, do the work, return compact JSON)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mneme_tui import display
from mneme_tui.errors import ERR_NOT_FOUND, MnemeError
from mneme_tui.mcp import learning_tools, legion_tools, memory_tools
from mneme_tui.mcp.context import Call
from mneme_tui.operations.declaration import Operation
from mneme_tui.operations.values import check_arguments, shown

Work = Callable[..., Any]

TOOLS: dict[str, tuple[Operation, Work]] = {
    operation.tool: (operation, work)
    for operation, work in (*memory_tools.TOOLS, *learning_tools.TOOLS, *legion_tools.TOOLS)
}
"""Tool name → (its operation's declaration, the function doing its work)."""


def compact(document: Any) -> str:
    """A tool result's text: JSON without indentation or spaces, unicode kept as is."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def answer(call: Call, name: str, arguments: dict[str, Any]) -> str:
    """The result text of tool ``name`` called with ``arguments``; a MnemeError (unknown tool, bad arguments, a
    refusal of the store) carries the CLI's one-line error."""
    if name not in TOOLS:
        raise MnemeError(ERR_NOT_FOUND, f"no tool named {shown(name)!r} (tools: {', '.join(TOOLS)})")
    operation, work = TOOLS[name]
    return compact(work(call, **check_arguments(operation, arguments)))


def error_text(name: str, exc: MnemeError) -> str:
    """A failed call's one line: the SDK's usual prefix, then the code word and message as the CLI prints them."""
    return f"Error executing tool {display.printable(name)}: {' '.join(display.printable(str(exc)).split())}"
