"""Checking an operation's values: whole numbers with a lower bound and memory ids (the same words on the
CLI and in MCP), and a whole MCP argument object against the declaration (unknown, missing, mistyped or
out-of-range arguments are one ``ERR_VALIDATION_FAILED`` line)."""

from __future__ import annotations

from typing import Any

from mneme_tui import display
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
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
from mneme_tui.validation import MAX_ID, check_document

_SHOWN_CHARS = 40


def shown(raw: str) -> str:
    """A value quoted in a one-line message: control characters visible, a long one cut and measured."""
    if len(raw) <= _SHOWN_CHARS:
        return _literal(raw)
    return f"{_literal(raw[:_SHOWN_CHARS])}… ({len(raw):,} characters)"


def _literal(value: str) -> str:
    return display.printable(value).replace("\n", "\\n")


def int_at_least(raw: str, minimum: int) -> int:
    """``raw`` as a whole number ≥ ``minimum``; ValueError with the complaint (``must be at least 1: '0'``)."""
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"not a whole number: {raw!r}") from None
    if value < minimum:
        complaint = "cannot be negative" if minimum == 0 else f"must be at least {minimum}"
        raise ValueError(f"{complaint}: {raw!r}")
    return value


def memory_ids(raws: list[str], past: str) -> list[int]:
    """Ids as numbers; if any is not a valid memory id, ERR_VALIDATION_FAILED names every bad one, with
    "nothing {past}" so the user knows no change was made."""
    bad = [raw for raw in raws if not _is_memory_id(raw)]
    if bad:
        raise MnemeError(ERR_VALIDATION_FAILED, f"not a memory id: {', '.join(map(shown, bad))}; nothing {past}")
    return [int(raw) for raw in raws]


def _is_memory_id(raw: str) -> bool:
    # the length check comes first: int() refuses strings of more than 4,300 digits with ValueError
    return raw.isascii() and raw.isdigit() and len(raw) <= len(str(MAX_ID)) and 0 < int(raw) <= MAX_ID


def check_arguments(operation: Operation, arguments: dict[str, Any]) -> dict[str, Any]:
    """The MCP ``arguments`` checked against ``operation``'s declaration, with every default filled in:
    keyword values for the operation's code. Text is checked to be valid UTF-8 (no lone surrogates)."""
    params = {param.name: param for param in operation.params_on(MCP)}
    unknown = sorted(set(arguments) - set(params))
    if unknown:
        takes = ", ".join(params) or "no arguments"
        raise _invalid(f"unknown argument {', '.join(map(repr, unknown))} ({operation.tool} takes: {takes})")
    values: dict[str, Any] = {}
    for name, param in params.items():
        if name not in arguments or (arguments[name] is None and not param.required):
            if param.required:
                raise _invalid(f"{name} is required")
            values[name] = list(param.default) if isinstance(param.default, tuple) else param.default
            continue
        values[name] = _checked(param, arguments[name], operation)
    return values


def _checked(param: Param, value: Any, operation: Operation) -> Any:
    check_document(value, param.name)
    if param.type == MEMORY_ID:
        return memory_ids([_id_text(param, value)], operation.past)[0]
    if param.type == MEMORY_IDS:
        items = _typed(param, value, list, "a list of memory ids")
        if not items:
            raise _invalid(f"{param.name} needs at least one memory id")
        return memory_ids([_id_text(param, item) for item in items], operation.past)
    if param.type == INT:
        number = _typed(param, value, int, "a whole number")
        if param.minimum is not None:
            try:
                int_at_least(str(number), param.minimum)
            except ValueError as exc:
                raise _invalid(f"{param.name} {exc}") from None
        return number
    if param.type == TEXT:
        text = _typed(param, value, str, "text")
        if param.choices and param.checked_by == "parser" and text not in param.choices:
            raise _invalid(f"{param.name} must be one of {', '.join(param.choices)}: {shown(text)!r}")
        return text
    expected = {
        BOOL: (bool, "true or false"),
        TEXT_LIST: (list, "a list of texts"),
        OBJECT: (dict, "an object"),
        INT_LIST: (list, "a list of whole numbers"),
    }[param.type]
    checked = _typed(param, value, *expected)
    if param.type == TEXT_LIST and not all(isinstance(item, str) for item in checked):
        raise _invalid(f"{param.name} must be a list of texts")
    if param.type == TEXT_LIST and param.choices and param.checked_by == "parser":
        for item in checked:
            if item not in param.choices:
                raise _invalid(f"{param.name} must be a list of {', '.join(param.choices)}: {shown(item)!r}")
    return checked


def _typed(param: Param, value: Any, wanted: type, words: str) -> Any:
    """``value`` if it is of the ``wanted`` JSON type (a boolean is not a number here), else the error."""
    if isinstance(value, wanted) and not (wanted is int and isinstance(value, bool)):
        return value
    raise _invalid(f"{param.name} must be {words}, not {_json_type(value)}")


def _id_text(param: Param, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise _invalid(f"{param.name} must be a memory id (a whole number), not {_json_type(value)}")
    return str(value)


def _json_type(value: Any) -> str:
    for kind, name in (
        (bool, "a boolean"),
        (int, "a number"),
        (float, "a number"),
        (str, "text"),
        (list, "a list"),
        (dict, "an object"),
    ):
        if isinstance(value, kind):
            return f"{name} ({shown(str(value))})" if kind in (int, float, str) else name
    return "null"


def _invalid(message: str) -> MnemeError:
    return MnemeError(ERR_VALIDATION_FAILED, message)
