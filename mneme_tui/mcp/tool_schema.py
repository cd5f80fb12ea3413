"""The MCP face of a declared operation: its input schema (types, enums, bounds, defaults, no other
properties), title and annotations, compact enough to be read by an agent on every session."""

from __future__ import annotations

from typing import Any

import mcp_types as types

from mneme_tui.operations.declaration import (
    BOOL,
    INT,
    INT_LIST,
    MCP,
    MEMORY_ID,
    MEMORY_IDS,
    OBJECT,
    TEXT,
    TEXT_LIST,
    Operation,
    Param,
)

_TYPES: dict[str, dict[str, Any]] = {
    TEXT: {"type": "string"},
    INT: {"type": "integer"},
    BOOL: {"type": "boolean"},
    TEXT_LIST: {"type": "array", "items": {"type": "string"}},
    INT_LIST: {"type": "array", "items": {"type": "integer"}},
    OBJECT: {"type": "object"},
    MEMORY_ID: {"type": "integer", "minimum": 1},
    MEMORY_IDS: {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1},
}


def property_schema(param: Param) -> dict[str, Any]:
    """One argument's JSON schema: its type, description, enum, minimum and default (when it has one)."""
    schema: dict[str, Any] = {**_TYPES[param.type], "description": param.mcp_help()}
    if param.choices and param.type == TEXT_LIST:  # a list of choices: each item is one of them
        schema["items"] = {**schema["items"], "enum": list(param.choices)}
    elif param.choices:
        schema["enum"] = list(param.choices)
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.default is not None and not param.required:
        schema["default"] = list(param.default) if isinstance(param.default, tuple) else param.default
    return schema


def input_schema(operation: Operation) -> dict[str, Any]:
    """The tool's input schema: an object of the declared MCP arguments and nothing else."""
    params = operation.params_on(MCP)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {param.name: property_schema(param) for param in params},
        "additionalProperties": False,
    }
    required = [param.name for param in params if param.required]
    if required:
        schema["required"] = required
    return schema


def tool(operation: Operation) -> types.Tool:
    """The tool ``tools/list`` shows for ``operation``: name, title, description, schema and annotations."""
    effect = operation.effect
    return types.Tool(
        name=operation.tool,
        title=operation.title,
        description=operation.description(),
        input_schema=input_schema(operation),
        annotations=types.ToolAnnotations(
            read_only_hint=effect.read_only, destructive_hint=effect.destructive, idempotent_hint=effect.idempotent
        ),
    )
