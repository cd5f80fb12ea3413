"""Every tool is a declared operation; one way to answer a call: check the arguments against the
declaration, run the operation's work (or, for the few whose surfaces differ, this server's function for
it) and return compact JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mneme_tui import display
from mneme_tui.errors import ERR_NOT_FOUND, MnemeError
from mneme_tui.mcp import learning_tools, legion_tools
from mneme_tui.mcp.context import Call
from mneme_tui.operations.catalog import all_operations
from mneme_tui.operations.declaration import Operation
from mneme_tui.operations.values import check_arguments, shown

TOOLS: dict[str, Operation] = {operation.tool: operation for operation in all_operations()}
"""Tool name → its operation's declaration: every declared operation is a tool."""

OWN_WORK: dict[str, Callable[..., Any]] = {**learning_tools.WORK, **legion_tools.WORK}
"""Tool name → the function answering it, for the operations whose work the two surfaces do differently."""


def compact(document: Any) -> str:
    """A tool result's text: JSON without indentation or spaces, unicode kept as is."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def answer(call: Call, name: str, arguments: dict[str, Any]) -> str:
    """The result text of tool ``name`` called with ``arguments``; a MnemeError (unknown tool, bad arguments, a
    refusal of the store) carries the CLI's one-line error."""
    if name not in TOOLS:
        raise MnemeError(ERR_NOT_FOUND, f"no tool named {shown(name)!r} (tools: {', '.join(TOOLS)})")
    operation = TOOLS[name]
    values = check_arguments(operation, arguments)
    if operation.run is None:
        return compact(OWN_WORK[name](call, **values))
    return compact(operation.mcp_document(operation.run(call, **values), values))


def error_text(name: str, exc: MnemeError) -> str:
    """A failed call's one line: the SDK's usual prefix, then the code word and message as the CLI prints them."""
    return f"Error executing tool {display.printable(name)}: {' '.join(display.printable(str(exc)).split())}"
