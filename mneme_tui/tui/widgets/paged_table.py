"""A row-cursor DataTable over one page of a long list; moving past either end asks for the next page.

Only a page of rows (a few hundred) is ever in the table, so 100,000 memories cost the same as 200.
Rows are keyed by memory id: a refresh of the same page updates changed cells in place and keeps the
cursor on the same memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from mneme_tui import compat

Row = Sequence[Text]
Column = tuple[str, str, int | None]
CELL_PADDING = 1
"""DataTable's default: one cell of padding on each side of every cell."""
MIN_TEXT_WIDTH = 40
"""The text column's width below which ``fit_columns`` drops droppable columns."""


def fit_columns(columns: Sequence[Column], width: int, droppable: Sequence[str] = ()) -> list[Column]:
    """``columns`` for a table ``width`` cells wide: the one ``None``-width column (the text) gets all the
    width the others leave, and while that is under ``MIN_TEXT_WIDTH`` the ``droppable`` columns go, the
    least useful (first) first. The text cells are cut with ``…`` at their column's edge."""
    kept = list(columns)

    def rest() -> int:
        fixed = sum(w for _, _, w in kept if w is not None)
        return width - fixed - 2 * CELL_PADDING * len(kept)

    for key in droppable:
        if rest() >= MIN_TEXT_WIDTH:
            break
        kept = [column for column in kept if column[0] != key]
    text_width = max(10, rest())
    return [(key, label, text_width if w is None else w) for key, label, w in kept]


class WidthChanged(Message):
    """A ``PagedTable`` got a new width (its columns may need fitting again)."""

    def __init__(self, table: PagedTable, width: int) -> None:
        super().__init__()
        self.table = table
        self.width = width

    @property
    def control(self) -> PagedTable:
        return self.table


class PagedTable(DataTable):
    """DataTable with ``PageRequest`` messages at the page edges and keyed in-place refreshes."""

    class PageRequest(Message):
        def __init__(self, table: PagedTable, step: int) -> None:
            super().__init__()
            self.table = table
            self.step = step

        @property
        def control(self) -> PagedTable:
            return self.table

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("cursor_type", "row")
        kwargs.setdefault("zebra_stripes", False)
        super().__init__(**kwargs)
        self.has_next = False
        self.has_previous = False
        self._keys: list[str] = []
        self._columns_keys: list[str] = []

    def setup_columns(self, columns: Sequence[tuple[str, str, int | None]]) -> None:
        """``(key, label, width)`` per column; ``width=None`` lets the column size to its content."""
        self._columns_keys = [key for key, _, _ in columns]
        for key, label, width in columns:
            self.add_column(label, key=key, width=width)

    @property
    def column_keys(self) -> list[str]:
        return list(self._columns_keys)

    @property
    def fit_width(self) -> int:
        """The width columns may fill: the table's, less a vertical scrollbar (which a long page shows)."""
        return self.size.width - self.styles.scrollbar_size_vertical

    def on_resize(self) -> None:
        self.post_message(WidthChanged(self, self.fit_width))

    # --------------------------------------------------------------- paging
    def action_cursor_down(self) -> None:
        if self.row_count and self.cursor_row >= self.row_count - 1 and self.has_next:
            self.post_message(self.PageRequest(self, +1))
            return
        super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self.cursor_row <= 0 and self.has_previous:
            self.post_message(self.PageRequest(self, -1))
            return
        super().action_cursor_up()

    def action_page_down(self) -> None:
        if self.row_count and self.cursor_row >= self.row_count - 1 and self.has_next:
            self.post_message(self.PageRequest(self, +1))
            return
        super().action_page_down()

    def action_page_up(self) -> None:
        if self.cursor_row <= 0 and self.has_previous:
            self.post_message(self.PageRequest(self, -1))
            return
        super().action_page_up()

    def action_scroll_end(self) -> None:
        """End: the cursor to the last row of the page (DataTable only scrolls)."""
        if self.row_count:
            self.move_cursor(row=self.row_count - 1, animate=False)

    def action_scroll_home(self) -> None:
        """Home: the cursor to the first row of the page."""
        if self.row_count:
            self.move_cursor(row=0, animate=False)

    # ------------------------------------------------------------- contents
    def set_cell(self, row_key: str, column_key: str, value: Text) -> None:
        """Change one cell and repaint only its row (see ``compat.set_table_cell``)."""
        compat.set_table_cell(self, row_key, column_key, value)

    @property
    def row_keys(self) -> list[str]:
        return list(self._keys)

    @property
    def cursor_key(self) -> str | None:
        if not self._keys or self.cursor_row < 0 or self.cursor_row >= len(self._keys):
            return None
        return self._keys[self.cursor_row]

    def show_rows(
        self,
        rows: Sequence[tuple[str, Row]],
        *,
        keep: str | None = None,
        fallback_row: int | None = None,
        same: Callable[[Text, Text], bool] | None = None,
    ) -> None:
        """Show ``rows`` (``(key, cells)``), keeping the cursor on ``keep`` (or at ``fallback_row``).

        When the keys are the same as before, only changed cells are updated (no rebuild, no flicker);
        otherwise the rows are replaced.
        """
        keys = [key for key, _ in rows]
        previous_row = self.cursor_row
        wanted = set(keys)
        kept = [key for key in self._keys if key in wanted]
        if kept and self.row_count == len(self._keys) and kept == keys[: len(kept)]:
            # Same order, some rows gone, maybe new ones at the end: update in place (no rebuild).
            for key in self._keys:
                if key not in wanted:
                    self.remove_row(key)
            cells_by_key = dict(rows)
            equal = same or (lambda a, b: a == b)
            for key in kept:
                current = self.get_row(key)
                for column, (old, new) in enumerate(zip(current, cells_by_key[key])):
                    if not equal(old, new):
                        self.update_cell(key, self._columns_keys[column], new)
            for key, cells in rows[len(kept) :]:
                self.add_row(*cells, key=key)
        else:
            self.clear(columns=False)
            for key, cells in rows:
                self.add_row(*cells, key=key)
        self._keys = keys
        if not keys:
            return
        if keep is not None and keep in keys:
            target = keys.index(keep)
        elif fallback_row is not None:
            target = fallback_row
        else:
            target = previous_row
        target = min(max(0, target), len(keys) - 1)
        if target != self.cursor_row:
            self.move_cursor(row=target, animate=False, scroll=True)
