"""The server's one prompt and one resource template: the ``handshake`` prompt (the orientation text of a
task starting now, to put in front of the model) and ``mneme://memory/{id}`` (a memory as ``show`` gives it)."""

from __future__ import annotations

import re

import mcp_types as types

from mneme_tui.errors import ERR_NOT_FOUND, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.mcp.context import Call
from mneme_tui.mcp.tools import answer
from mneme_tui.memory.learning.orientation import orientation
from mneme_tui.memory.learning.scope import relative_to_root
from mneme_tui.operations.learning import HANDSHAKE
from mneme_tui.operations.values import shown
from mneme_tui.validation import check_document

MEMORY_URI = "mneme://memory/{id}"
_MEMORY_URI = re.compile(r"mneme://memory/([^/]+)")

HANDSHAKE_PROMPT = types.Prompt(
    name="handshake",
    title=HANDSHAKE.title,
    description="The orientation of a task starting now, as text: learned pitfalls scoped to the files it "
    "changes, verified patterns and graduation candidates of the active repository.",
    arguments=[
        types.PromptArgument(name="task_id", description=HANDSHAKE.param("task_id").mcp_help()),
        types.PromptArgument(name="modified", description="files the task changes, comma-separated"),
    ],
)

MEMORY_TEMPLATE = types.ResourceTemplate(
    name="memory",
    title="A memory",
    uri_template=MEMORY_URI,
    mime_type="application/json",
    description="One memory with its fields, supersessions, readers and audit history (as the show tool).",
)


def handshake_prompt(call: Call, arguments: dict[str, str] | None) -> types.GetPromptResult:
    """The ``handshake`` prompt: the orientation text as one user message."""
    given = dict(arguments or {})
    for name, value in given.items():
        check_document(value, name)
    unknown = sorted(set(given) - {"task_id", "modified"})
    if unknown:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"unknown argument {', '.join(map(repr, unknown))} (handshake takes: task_id, modified)",
        )
    ctx = call.ctx
    modified = [
        relative_to_root(path.strip(), ctx.root) for path in given.get("modified", "").split(",") if path.strip()
    ]
    task = given.get("task_id", "").strip() or None
    text = orientation(ctx.store, ctx.repo, task, modified, limit=HANDSHAKE.param("limit").default).to_text()
    return types.GetPromptResult(
        description=HANDSHAKE_PROMPT.description,
        messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))],
    )


def read_memory(call: Call, uri: str) -> types.ReadResourceResult:
    """``mneme://memory/{id}``: the ``show`` tool's JSON for that id."""
    match = _MEMORY_URI.fullmatch(uri)
    if match is None:
        raise MnemeError(ERR_NOT_FOUND, f"no resource {shown(uri)!r} (resources: {MEMORY_URI})")
    text = answer(call, "show", {"memory_id": match.group(1)})
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=text)]
    )
