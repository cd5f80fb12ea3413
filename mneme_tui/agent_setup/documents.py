"""Agent configuration files as documents: parse JSON or TOML (TOML through tomlkit, which keeps comments,
order and layout), add or remove one entry, and render the document back with everything else as it was."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, Literal

import tomlkit
import tomlkit.exceptions
from tomlkit.items import Item

from mneme_tui.errors import ERR_CONFIG, MnemeError

Document = MutableMapping[str, Any]
Action = Literal["added", "unchanged", "kept", "removed", "absent"]


@dataclass(frozen=True)
class Entry:
    """One thing setup writes: the member ``name`` of the table at ``keys`` (a server), or, with ``name``
    None, one element of the list at ``keys`` (a hook group)."""

    keys: tuple[str, ...]
    name: str | None
    value: dict[str, Any]

    @property
    def label(self) -> str:
        """How the change is shown: ``mcpServers.mneme``, ``hooks.SessionStart[]``."""
        return ".".join(self.keys) + (f".{self.name}" if self.name else "[]")


@dataclass(frozen=True)
class Format:
    """How one kind of file is read and written."""

    name: str
    parse: Callable[[str], Document]
    render: Callable[[Document, str], str]
    new_table: Callable[[], Document]


def _parse_json(text: str) -> Document:
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    if not isinstance(document, dict):
        raise ValueError("not a JSON object")
    return document


def _render_json(document: Document, original: str) -> str:
    """The document with the original's indentation (two spaces for a new file) and a final newline."""
    found = re.search(r"^([ \t]+)\"", original, re.MULTILINE)
    indent = found.group(1) if found else "  "
    return json.dumps(document, indent=indent, ensure_ascii=False) + "\n"


def _parse_toml(text: str) -> Document:
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:
        raise ValueError(f"not valid TOML ({exc})") from None


def _render_toml(document: Document, _original: str) -> str:
    """tomlkit's rendering, ending in one newline (so a removal leaves no blank line behind)."""
    text = tomlkit.dumps(document).rstrip("\n")
    return text + "\n" if text else ""


JSON = Format("json", _parse_json, _render_json, dict)
TOML = Format("toml", _parse_toml, _render_toml, lambda: tomlkit.table(is_super_table=True))


def plain(value: Any) -> Any:
    """A tomlkit item as the plain Python value it holds (JSON values are plain already)."""
    return value.unwrap() if isinstance(value, Item) else value


def _container(document: Document, keys: tuple[str, ...], new: Callable[[int], Any] | None) -> Any:
    """The value at ``keys``, None when absent; with ``new``, what is missing is created (``new(depth)``)."""
    here: Any = document
    for depth, key in enumerate(keys):
        if not isinstance(here, MutableMapping):
            raise MnemeError(ERR_CONFIG, f"`{'.'.join(keys[:depth])}` is not a table")
        if key not in here:
            if new is None:
                return None
            here[key] = new(depth)
        here = here[key]
    return here


def add_entry(document: Document, entry: Entry, fmt: Format) -> Action:
    """Add ``entry`` unless it is there already (``unchanged``) or another value holds its name (``kept``)."""
    if entry.name is None:
        items = _list_at(document, entry, fmt, create=True)
        if any(plain(item) == entry.value for item in items):
            return "unchanged"
        items.append(entry.value)
        return "added"
    table = _table_at(document, entry, fmt, create=True)
    if entry.name in table:
        return "unchanged" if plain(table[entry.name]) == entry.value else "kept"
    table[entry.name] = entry.value
    return "added"


def remove_entry(document: Document, entry: Entry, fmt: Format) -> Action:
    """Remove ``entry`` when it is exactly what setup writes; a different value under its name is ``kept``.
    Tables and lists left empty by the removal go too."""
    if entry.name is None:
        items = _list_at(document, entry, fmt, create=False)
        matches = [index for index, item in enumerate(items or []) if plain(item) == entry.value]
        if not matches:
            return "absent"
        for index in reversed(matches):
            del items[index]
    else:
        table = _table_at(document, entry, fmt, create=False)
        if table is None or entry.name not in table:
            return "absent"
        if plain(table[entry.name]) != entry.value:
            return "kept"
        del table[entry.name]
    _drop_empty(document, entry.keys)
    return "removed"


def _table_at(document: Document, entry: Entry, fmt: Format, *, create: bool) -> Any:
    table = _container(document, entry.keys, (lambda _depth: fmt.new_table()) if create else None)
    if table is not None and not isinstance(table, MutableMapping):
        raise MnemeError(ERR_CONFIG, f"`{'.'.join(entry.keys)}` is not a table")
    return table


def _list_at(document: Document, entry: Entry, fmt: Format, *, create: bool) -> Any:
    last = len(entry.keys) - 1
    items = _container(
        document, entry.keys, (lambda depth: [] if depth == last else fmt.new_table()) if create else None
    )
    if items is not None and not isinstance(items, list):
        raise MnemeError(ERR_CONFIG, f"`{'.'.join(entry.keys)}` is not a list")
    return items


def _drop_empty(document: Document, keys: tuple[str, ...]) -> None:
    """Delete the containers along ``keys`` that are now empty, innermost first."""
    for depth in range(len(keys), 0, -1):
        parent = _container(document, keys[: depth - 1], None)
        if parent is None or len(parent[keys[depth - 1]]) > 0:
            return
        del parent[keys[depth - 1]]
