"""Key bindings a person can change: every binding gets an id, and the config file's ``[keys]`` table maps ids
to keys through Textual's keymap.

An id is ``SCOPE.ACTION``: the scope is ``app`` or the screen's name (``recall``, ``memories``, ``detail``,
``new_memory``, …), the action is the binding's action with its arguments joined by ``_``
(``app.mode_recall``, ``memories.page_-1``). TOML reads ``[keys]`` with ``recall.dismiss_result = "x"`` (or
a ``[keys.recall]`` table) as nested tables; :func:`flatten` turns them back into ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from textual.binding import Binding

from mneme_tui.errors import ERR_CONFIG, MnemeError

_ACTION = re.compile(r"^(?P<name>[\w.]+)(?:\((?P<args>.*)\))?$")


def binding_id(scope: str, action: str) -> str:
    """The id of a binding: ``recall`` + ``dismiss_result`` is ``recall.dismiss_result``, ``app`` +
    ``mode('recall')`` is ``app.mode_recall``."""
    found = _ACTION.match(action.strip())
    if found is None:
        return f"{scope}.{re.sub(r'[^A-Za-z0-9_-]+', '_', action).strip('_')}"
    args = [arg.strip().strip("'\"") for arg in (found.group("args") or "").split(",") if arg.strip()]
    return f"{scope}.{'_'.join([found.group('name').replace('.', '_'), *args])}"


def with_ids(scope: str, bindings: Iterable[Any]) -> list[Any]:
    """``bindings`` with an id on every ``Binding`` that has none (tuples are made Bindings first)."""
    out: list[Any] = []
    for item in bindings:
        binding = Binding(*item) if isinstance(item, tuple) else item
        if isinstance(binding, Binding) and binding.id is None:
            binding = replace(binding, id=binding_id(scope, binding.action))
        out.append(binding)
    return out


def flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """The ``[keys]`` table as ``{id: keys}``; a value that is not a string of keys is ERR_CONFIG."""
    keymap: dict[str, str] = {}
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            keymap.update(flatten(value, f"{key}."))
        elif isinstance(value, str) and value.strip():
            keymap[key] = ",".join(part.strip() for part in value.split(",") if part.strip())
        else:
            raise MnemeError(ERR_CONFIG, f'[keys] {key} must be a string of keys such as "ctrl+y" or "x,delete"')
    return keymap


WRITE_ACTIONS = frozenset(
    {
        "app.sync",
        "app.new_memory",
        "app.undo",
        "recall.dismiss_result",
        "memories.dismiss_selected",
        "memories.undo",
        "graduation.dismiss_group",
        "graduation.undo",
        "prune.apply",
        "detail.edit",
        "detail.dismiss_memory",
        "detail.restore",
        "detail.undo",
        "detail.app_new_memory",
        "detail.purge",
        "detail.toggle_pin",
        "new_memory.save",
        "new_memory.save_True",
        "memories.toggle_pin",
        "review.decide_accept",
        "review.decide_reject",
        "review.undo",
    }
)
"""The ids of the bindings that write (to the store or the Legion files): off in a read-only app. A new write
key adds its id here; every write also goes through ``write_in_worker``, which refuses in a read-only app."""


def unknown_ids(keymap: Mapping[str, str], known: Iterable[str]) -> list[str]:
    """The ids of ``keymap`` that name no binding (a typo the person should hear about)."""
    names = set(known)
    return sorted(key for key in keymap if key not in names)


def keys_in_force(binding: Binding, keymap: Mapping[str, str]) -> str:
    """The keys that run ``binding`` now: the keymap's, when it remaps the binding's id, else its own."""
    return keymap.get(binding.id or "", binding.key)
