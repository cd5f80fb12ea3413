"""The few places where mneme relies on a library's private internals, for speed, each in one function.

Every fast path is used only on the versions it was written and tested against (``TEXTUAL_INTERNALS``,
``JSON_INTERNALS``); elsewhere the function takes the public, always-correct path, so an upgrade can
make mneme slower but never wrong. Textual is imported lazily: ``memory/`` and ``legion/`` use this
module and must never import Textual.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import cache
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.text import Text
    from textual.app import App
    from textual.widgets import DataTable

TEXTUAL_INTERNALS = "8.2."  # the Textual release line whose App and DataTable internals are used here
JSON_INTERNALS = ((3, 11), (3, 14))  # the Python versions whose json.encoder.c_make_encoder is used here


@cache
def textual_internals() -> bool:
    """True when the installed Textual is the release line the fast paths were written for."""
    return version("textual").startswith(TEXTUAL_INTERNALS)


def json_internals() -> bool:
    """True when this Python's C JSON encoder can be called directly."""
    low, high = JSON_INTERNALS
    return _c_make_encoder() is not None and low <= sys.version_info[:2] <= high


def _c_make_encoder() -> Callable[..., Callable[[Any, int], tuple[str, ...]]] | None:
    """CPython's C encoder factory (not in the typing stubs; None on Pythons without it)."""
    return getattr(json.encoder, "c_make_encoder", None)


def prepare_mode(app: App, mode: str) -> None:
    """Build ``mode``'s screen now (Textual's own lazy set-up, done early) so switching to it later is
    instant. Fallback: nothing; the screen is built when the mode is first shown."""
    if textual_internals() and mode not in app._screen_stacks:
        app._init_mode(mode)


def set_table_cell(table: DataTable, row_key: str, column_key: str, value: Text) -> None:
    """Change one cell of ``table`` and repaint only its row.

    ``DataTable.update_cell`` invalidates every cached row, so the whole visible table is rendered again
    (tens of milliseconds for a screenful); this drops only the caches of the changed row. Fallback:
    ``update_cell``. Raises ``CellDoesNotExist`` for an unknown row or column either way.
    """
    from textual.widgets.data_table import CellDoesNotExist, ColumnKey, RowKey

    if not textual_internals():
        table.update_cell(row_key, column_key, value)
        return
    row, column = RowKey(row_key), ColumnKey(column_key)
    index = table._row_locations.get(row)
    if index is None or column not in table._column_locations:
        raise CellDoesNotExist(f"no cell {row_key!r}/{column_key!r}")
    table._data[row][column] = value
    # Textual's LRUCache is not a dict and has no __iter__ (iterating it would index it 0, 1, ...): keep .keys().
    for cell_key in [k for k in table._cell_render_cache.keys() if k[0] == row]:  # noqa: SIM118
        table._cell_render_cache.discard(cell_key)
    for row_cache_key in [k for k in table._row_render_cache.keys() if k[0] == row]:  # noqa: SIM118
        table._row_render_cache.discard(row_cache_key)
    table._row_renderable_cache.discard((table._update_count, index))
    table._line_cache.clear()
    table.refresh_row(index)


def json_encoder() -> Callable[[Any], str]:
    """A function writing a value exactly as ``json.dumps(value, ensure_ascii=False)`` does.

    ``JSONEncoder.encode`` builds its C encoder again on every call; this builds it once. Fallback: the
    encoder's public ``encode``.
    """
    encoder = json.JSONEncoder(ensure_ascii=False)
    if not json_internals():
        return encoder.encode
    make = _c_make_encoder()
    assert make is not None  # json_internals() checked it
    fast = make(None, encoder.default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)
    return lambda value: "".join(fast(value, 0))
