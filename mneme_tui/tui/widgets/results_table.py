"""A light keyed table for short, often replaced lists (recall results): one pre-rendered strip per row.

``DataTable`` renders every visible cell through several Rich layers and re-renders them all whenever
its contents change; for search-as-you-type that is most of the time between a keystroke and the new
results on screen. This widget lays each row out once (fixed column widths, the last column takes the
rest, every cell cut to one line with an ellipsis) and paints lines from that cache, with a fixed header
line, a row cursor, keyboard and mouse. Cells are ``rich.text.Text`` and are never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mneme_tui import display
from mneme_tui.memory.matched_spans import matched_line
from mneme_tui.memory.records import Memory, ScoredMemory
from mneme_tui.tui.highlight import highlight
from mneme_tui.tui.text import age_cell, cell, kind_cell

GAP = 1  # cells of space between columns (and at both edges)
FIT = 0
"""A column width: as wide as the widest cell shown (header included), at most ``FIT_CAP``."""
FIT_CAP = 24


class ResultsTable(ScrollView, can_focus=True):
    """Rows of Text cells keyed by string; ``Highlighted`` / ``Selected`` messages carry the key."""

    DEFAULT_CSS = """
    ResultsTable {
        background: $surface;
        color: $foreground;
        height: 1fr;
        scrollbar-size-horizontal: 0;
    }
    ResultsTable > .results--header { text-style: bold; background: $panel; color: $foreground; }
    ResultsTable > .results--cursor { background: $block-cursor-blurred-background; }
    ResultsTable:focus > .results--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold;
    }
    """
    COMPONENT_CLASSES = {"results--header", "results--cursor"}
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(-1)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "select", "Open", show=False),
    ]

    cursor_row: reactive[int] = reactive(0, always_update=True)

    class Highlighted(Message):
        def __init__(self, table: ResultsTable, key: str | None) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> ResultsTable:
            return self.table

    class Selected(Highlighted):
        pass

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._columns: list[tuple[str, str, int | None]] = []
        self._keys: list[str] = []
        self._cells: dict[str, list[Text]] = {}
        self._strips: dict[tuple[str, int, bool, bool], Strip] = {}

    # ---------------------------------------------------------------- content
    def setup_columns(self, columns: Sequence[tuple[str, str, int | None]]) -> None:
        """``(key, label, width)`` per column: a width, ``FIT`` (the widest cell, up to ``FIT_CAP``), or
        ``None`` for the one column that takes the remaining width."""
        self._columns = list(columns)
        self._strips.clear()
        self.refresh()

    @property
    def row_keys(self) -> list[str]:
        return list(self._keys)

    @property
    def row_count(self) -> int:
        return len(self._keys)

    @property
    def cursor_key(self) -> str | None:
        if 0 <= self.cursor_row < len(self._keys):
            return self._keys[self.cursor_row]
        return None

    def get_row(self, key: str) -> list[Text]:
        return list(self._cells[key])

    def show_rows(
        self, rows: Sequence[tuple[str, Sequence[Text]]], *, keep: str | None = None, fallback_row: int | None = None
    ) -> None:
        """Replace the rows, putting the cursor on ``keep`` (if present) or at ``fallback_row``."""
        previous = self.cursor_row
        self._keys = [key for key, _ in rows]
        self._cells = {key: list(cells) for key, cells in rows}
        self._strips.clear()
        self.virtual_size = Size(self.size.width, len(self._keys) + 1)
        if keep is not None and keep in self._cells:
            target = self._keys.index(keep)
        elif fallback_row is not None:
            target = fallback_row
        else:
            target = previous
        target = min(max(0, target), max(0, len(self._keys) - 1))
        self.cursor_row = target  # always_update: posts Highlighted even when the index is unchanged
        self._scroll_to_cursor()
        self.refresh()

    # ----------------------------------------------------------------- layout
    def _widths(self, total: int) -> list[int]:
        widths: list[int | None] = []
        for index, (_, label, width) in enumerate(self._columns):
            if width == FIT:
                shown = (cells[index].cell_len for cells in self._cells.values() if index < len(cells))
                width = min(FIT_CAP, max(len(label), *shown, 1))
            widths.append(width)
        fixed = sum(width for width in widths if width is not None)
        rest = max(4, total - fixed - GAP * (len(self._columns) + 1))
        return [width if width is not None else rest for width in widths]

    def _line(self, cells: Sequence[Text], width: int, style: Style) -> Strip:
        line = Text(style=style, no_wrap=True, end="")
        for value, cell_width in zip(cells, self._widths(width)):
            piece = value.copy()
            piece.no_wrap = True
            piece.truncate(cell_width, overflow="ellipsis")
            gap = max(0, cell_width - piece.cell_len)
            if piece.justify == "right":
                piece = Text(" " * gap, end="") + piece
            else:
                piece.pad_right(gap)
            line.append(" " * GAP)
            line.append(piece)
        segments = list(line.render(self.app.console))
        return Strip(segments).adjust_cell_length(width, style)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y == 0:
            style = self.get_component_rich_style("results--header")
            key = ("\0header", width, False, False)
            if key not in self._strips:
                labels = [Text(label, justify="left") for _, label, _ in self._columns]
                self._strips[key] = self._line(labels, width, style)
            return self._strips[key]
        index = self.scroll_offset.y + y - 1
        if index < 0 or index >= len(self._keys):
            key = ("\0blank", width, False, False)
            if key not in self._strips:
                self._strips[key] = Strip.blank(width, self.rich_style)
            return self._strips[key]
        row_key = self._keys[index]
        cursor = index == self.cursor_row
        cache_key = (row_key, width, cursor, self.has_focus)
        strip = self._strips.get(cache_key)
        if strip is None:
            style = self.rich_style + (self.get_component_rich_style("results--cursor") if cursor else Style())
            strip = self._line(self._cells[row_key], width, style)
            self._strips[cache_key] = strip
        return strip

    def on_resize(self) -> None:
        self._strips.clear()
        self.virtual_size = Size(self.size.width, len(self._keys) + 1)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # ----------------------------------------------------------------- cursor
    def watch_cursor_row(self, old: int, new: int) -> None:
        self.refresh()
        self.post_message(self.Highlighted(self, self.cursor_key))

    def _scroll_to_cursor(self) -> None:
        visible = max(1, self.size.height - 1)
        top = self.scroll_offset.y
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + visible:
            self.scroll_to(y=self.cursor_row - visible + 1, animate=False)

    def _move(self, row: int) -> None:
        if not self._keys:
            return
        row = min(max(0, row), len(self._keys) - 1)
        if row != self.cursor_row:
            self.cursor_row = row
            self._scroll_to_cursor()

    def action_cursor(self, step: int) -> None:
        self._move(self.cursor_row + step)

    def action_page(self, step: int) -> None:
        self._move(self.cursor_row + step * max(1, self.size.height - 2))

    def action_edge(self, step: int) -> None:
        self._move(0 if step < 0 else len(self._keys) - 1)

    def action_select(self) -> None:
        if self.cursor_key is not None:
            self.post_message(self.Selected(self, self.cursor_key))

    def on_click(self, event: events.Click) -> None:
        if event.y < 1:
            return
        row = self.scroll_offset.y + event.y - 1
        if 0 <= row < len(self._keys):
            if row == self.cursor_row and event.chain > 1:
                self.action_select()
            self._move(row)


RECALL_COLUMNS: list[tuple[str, str, int | None]] = [
    ("match", "match", 5),
    ("kind", "kind", FIT),
    ("repo", "repo", FIT),
    ("age", "age", 4),
    ("content", "memory · topic", None),
]
"""The Recall list, best score first: the memory's text takes every cell the match, kind, repo and age leave.
The match is the score without its age factor and boosts (the detail pane shows all three), so an old, exact
match reads as the exact match it is beside its age, not as a weak score."""


def recall_cells(
    item: ScoredMemory | Memory, now: datetime, *, query: str = "", profile: str = "", legion_id: str | None = None
) -> list[Text]:
    """One Recall row: match, kind, repo, age, then the Legion record ID (if imported), the first line
    of the content (and the line the query matched, when it is another one) with the query's matched words
    highlighted, and the topic."""
    memory = item.memory if isinstance(item, ScoredMemory) else item
    match = Text("")
    if isinstance(item, ScoredMemory):
        match = Text(f"{display.match_and_age(item.score, item.components)[0]:.3f}", justify="right")
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    if legion_id:
        text.append(display.one_line(legion_id), style="bold cyan")
        text.append(" ")
    text.append(highlight(Text(display.one_line(memory.content, 300)), query, profile))
    hit = matched_line(memory.content, query, profile)
    if hit is not None:
        text.append(" … ", style="dim")
        text.append(highlight(Text(display.one_line(memory.content.splitlines()[hit], 300)), query, profile))
    if memory.topic:
        text.append(" · " + display.one_line(memory.topic, 40), style="dim")
    return [match, kind_cell(memory.kind), cell(memory.repo_id, "dim"), age_cell(memory.created_at, now), text]
