"""Memories: the list with status/repo/kind/text filters and sort orders, a detail pane, go to id; dismiss,
undo and audit history.

The list is paged (``PAGE_SIZE`` rows at a time, ``limit``/``offset`` in the store), so it opens and
scrolls at the same speed with 100,000 memories as with 100. Moving past the last row loads the next
page. A dismissal shows at once in the row (in place), is written in a worker, and can be undone.
"""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.widgets import DataTable, Input

from mneme_tui import config
from mneme_tui.memory import kinds as K
from mneme_tui.memory.records import Memory, StatusChange
from mneme_tui.memory.store import LIST_ORDERS
from mneme_tui.tui.memory_list import (
    ALL_REPOS,
    PAGE_SIZE,
    THIS_REPO,
    ListFilter,
    ListPage,
    list_columns,
    load_page,
    memory_cells,
)
from mneme_tui.tui.repo_scope import scope_label
from mneme_tui.tui.screens.base import ModeScreen
from mneme_tui.tui.screens.dialogs import ChoiceScreen
from mneme_tui.tui.screens.memory_screen import PIN_MARK, PIN_STYLE, MemoryScreen, toggle_pin
from mneme_tui.tui.text import STATUS_STYLES, one_line, status_cell
from mneme_tui.tui.widgets.chips import Chip, ChipBar
from mneme_tui.tui.widgets.memory_detail import MemoryDetail, memory_text
from mneme_tui.tui.widgets.paged_table import Column, PagedTable, WidthChanged

STATUS_FILTERS = (K.ACTIVE, K.SUPERSEDED, K.TOMBSTONED, "all")
DISMISS_REASON = "dismissed in the TUI"
UNDO_REASON = "undo in the TUI"
HEADER_ORDERS = {"id": "id", "kind": "kind", "repo": "repo", "content": "topic", "access": "access"}
"""Clicking a column header sorts by it (``age`` switches between newest and oldest)."""


class MemoriesScreen(ModeScreen):
    MODE_NAME = "memories"
    MODE_KEY = "2"
    MODE_TITLE = "Memories"
    MODE_DESCRIPTION = "Browse, filter and dismiss memories"
    HELP = "Every memory, paged. Filter by status, repo and kind; dismiss stale ones with d, undo with u."
    BINDINGS = [
        Binding(
            "d", "dismiss_selected", "Dismiss", tooltip="Dismiss (tombstone) the highlighted memory, or the marked ones"
        ),
        Binding("u", "undo", "Undo", tooltip="Undo the last dismissal (restores the previous status)"),
        Binding(
            "space",
            "mark",
            "Mark",
            tooltip="Mark or unmark the highlighted memory and move down (d then dismisses every marked one)",
        ),
        Binding(
            "p",
            "toggle_pin",
            "Pin",
            tooltip=f"Pin or unpin the highlighted memory ({PIN_MARK} pinned: never "
            "proposed as cold, listed first in a handshake)",
        ),
        Binding("f", "cycle_status", "Status", tooltip="Status filter: active, superseded, tombstoned, all"),
        Binding("r", "pick_repo", "Repo", tooltip="Repo filter: this repo (+global), all repos, global, or one repo"),
        Binding("k", "pick_kind", "Kind", tooltip="Filter by kind (with each kind's count)"),
        Binding(
            "o",
            "cycle_order",
            "Sort",
            tooltip="Sort: newest, oldest, id, kind, topic, repo, access (or click a column header)",
        ),
        Binding("slash", "find_text", "Filter", tooltip="Filter by words in the text or topic"),
        Binding("g", "go_to_id", "Go to", show=False, tooltip="Open a memory by its id"),
        Binding(
            "right_square_bracket", "page(1)", "Next page", show=False, tooltip="Next page (or move past the last row)"
        ),
        Binding("left_square_bracket", "page(-1)", "Previous page", show=False, tooltip="Previous page"),
        Binding("enter", "open_detail", "Detail", show=False, tooltip="Open the memory with its audit history"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.filter = ListFilter()
        self.page: ListPage | None = None
        self.marked: set[int] = set()
        self.undo_stack: list[StatusChange] = []
        self._rows: dict[str, Memory] = {}
        self._columns: list[Column] = []

    # ----------------------------------------------------------------- layout
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (150, "-wide")]

    def compose_body(self) -> ComposeResult:
        yield ChipBar(id="memories-filters")
        yield Input(id="memories-find", compact=True)
        with Container(id="memories-body"):
            yield PagedTable(id="memories-table")
            yield MemoryDetail("Highlight a memory to see it in full.", id="memories-detail")

    def on_mount(self) -> None:
        self._setup_columns()
        find = self.query_one("#memories-find", Input)
        find.display = False
        find.cursor_blink = self.mneme.cursor_blink
        self.query_one("#memories-table", PagedTable).focus()
        self._show_filters()
        self.reload("mount")

    def _setup_columns(self) -> None:
        """The columns for the current sort and width (``list_columns``)."""
        table = self.query_one("#memories-table", PagedTable)
        columns = list_columns(self.filter, table.fit_width)
        if columns == self._columns:
            return
        self._columns = columns
        table.clear(columns=True)
        table.setup_columns(columns)

    @on(WidthChanged, "#memories-table")
    def _width_changed(self) -> None:
        columns = self._columns
        self._setup_columns()
        if columns != self._columns and self.page is not None:
            self._show_page(self.page, self.query_one("#memories-table", PagedTable).cursor_key, None, False)

    # ------------------------------------------------------------------- data
    def reload(
        self, reason: str = "", *, keep: str | None = None, fallback_row: int | None = None, at_end: bool = False
    ) -> None:
        table = self.query_one("#memories-table", PagedTable)
        if keep is None and reason != "filter":
            keep = table.cursor_key
        if fallback_row is None and reason != "filter":
            fallback_row = table.cursor_row
        self._fetch_page(keep, fallback_row, at_end)

    def _fetch_page(self, keep: str | None, fallback_row: int | None, at_end: bool) -> None:
        wanted = self.filter
        self.fetch_in_worker(
            lambda: self._load_page(wanted), lambda page: self._show_page(page, keep, fallback_row, at_end)
        )

    def _load_page(self, wanted: ListFilter) -> ListPage:
        """One page of the list ``wanted`` names, with the status counts (in a worker thread)."""
        with self.ctx.session() as store:
            return load_page(store, self.ctx.repo, wanted)

    def _show_page(self, page: ListPage, keep: str | None, fallback_row: int | None, at_end: bool) -> None:
        self.page = page
        self.filter = page.filter
        now = config.now()
        table = self.query_one("#memories-table", PagedTable)
        self._rows = {str(m.id): m for m in page.memories}
        rows = [
            (
                str(m.id),
                memory_cells(m, now, self._columns, page.filter.order, self._id_cell(m.id), page.legion_ids.get(m.id)),
            )
            for m in page.memories
        ]
        if at_end:
            fallback_row, keep = len(rows) - 1, None
        table.show_rows(rows, keep=keep, fallback_row=fallback_row if fallback_row is not None else 0)
        table.has_next = page.filter.offset + len(page.memories) < page.total
        table.has_previous = page.filter.offset > 0
        self._show_filters()
        self._show_detail()

    @on(DataTable.RowHighlighted, "#memories-table")
    def _show_detail(self) -> None:
        detail = self.query_one("#memories-detail", MemoryDetail)
        memory = self._cursor_memory()
        if memory is None:
            detail.clear("No memory here: change the filters above.")
        else:
            detail.show(memory_text(memory, config.now()), memory.id)

    def _id_cell(self, memory_id: int) -> Text:
        """The id, right-aligned, with a ● in front when the memory is marked and a PIN_MARK when pinned."""
        out = Text(justify="right", no_wrap=True, end="")
        if memory_id in self.marked:
            out.append("● ", style="bold yellow")
        if self.page is not None and memory_id in self.page.pinned:
            out.append(f"{PIN_MARK} ", style=PIN_STYLE)
        out.append(str(memory_id), style="bold yellow" if memory_id in self.marked else "dim")
        return out

    def _show_status(self, memory_id: int, status: str) -> None:
        """Show a row's new status at once: in its status cell, or, when that column was dropped for width,
        as the id struck through (tombstoned) or plain again."""
        table = self.query_one("#memories-table", PagedTable)
        if "status" in table.column_keys:
            table.set_cell(str(memory_id), "status", status_cell(status))
        else:
            shown = self._id_cell(memory_id)
            shown.stylize(STATUS_STYLES.get(status, ""))
            table.set_cell(str(memory_id), "id", shown)

    def _show_filters(self) -> None:
        page = self.page
        counts = page.counts if page is not None else {}
        wanted = self.filter
        status_chips: list[Chip | str] = [
            Chip(
                f"{status} {counts.get(status, 0):,}" if page else status,
                active=wanted.status == status,
                action=f"screen.set_status({status!r})",
            )
            for status in STATUS_FILTERS
        ]
        scope = scope_label(
            {THIS_REPO: self.ctx.repo, ALL_REPOS: None}.get(wanted.repo, wanted.repo),
            with_global=wanted.repo == THIS_REPO,
        )
        if page is None:
            position = "loading…"
        elif page.total == 0:
            position = "no rows"
        else:
            first = page.filter.offset + 1
            last = page.filter.offset + len(page.memories)
            position = f"rows {first:,}–{last:,} of {page.total:,}"
        extra = f"  {len(self.marked)} marked" if self.marked else ""
        self.query_one("#memories-filters", ChipBar).set_chips(
            [
                *status_chips,
                "\n",
                Chip(scope, action="screen.pick_repo", prefix="repo"),
                Chip(wanted.kind or "any", action="screen.pick_kind", prefix="kind"),
                Chip(wanted.order, action="screen.cycle_order", prefix="sort"),
                *([Chip(one_line(wanted.text, 30), action="screen.find_text", prefix="text")] if wanted.text else []),
                f"  {position}{extra}",
            ]
        )

    def _filter_changed(self, **changes) -> None:
        self.filter = replace(self.filter, offset=0, **changes)
        self._setup_columns()  # the sort and the filters decide the columns (the reload below fills them)
        self._show_filters()
        self.reload("filter", fallback_row=0)

    # ---------------------------------------------------------------- filters
    def action_set_status(self, status: str) -> None:
        self._filter_changed(status=status)

    def action_cycle_status(self) -> None:
        position = STATUS_FILTERS.index(self.filter.status)
        self._filter_changed(status=STATUS_FILTERS[(position + 1) % len(STATUS_FILTERS)])

    def action_pick_repo(self) -> None:
        repos = self.page.repos if self.page is not None else ()
        choices = [(THIS_REPO, scope_label(self.ctx.repo)), (ALL_REPOS, "all repos")]
        choices += [(repo, one_line(repo)) for repo in sorted({config.GLOBAL_REPO, *repos})]

        def chosen(value: str | None) -> None:
            if value is not None:
                self._filter_changed(repo=value)

        self.app.push_screen(ChoiceScreen("Repo filter", choices, self.filter.repo), chosen)

    def action_cycle_order(self) -> None:
        position = LIST_ORDERS.index(self.filter.order)
        self._filter_changed(order=LIST_ORDERS[(position + 1) % len(LIST_ORDERS)])

    @on(DataTable.HeaderSelected, "#memories-table")
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        column = str(event.column_key.value)
        if column == "age":
            self._filter_changed(order="oldest" if self.filter.order == "newest" else "newest")
        elif column in HEADER_ORDERS:
            self._filter_changed(order=HEADER_ORDERS[column])

    def action_pick_kind(self) -> None:
        counts = self.page.kind_counts if self.page is not None else {}
        choices = [("", f"any kind  {sum(counts.values()):,}")]
        choices += [(kind, f"{kind}  {counts.get(kind, 0):,}") for kind in K.ALL_KINDS]

        def chosen(value: str | None) -> None:
            if value is not None:
                self._filter_changed(kind=value or None)

        self.app.push_screen(ChoiceScreen("Kind filter", choices, self.filter.kind or ""), chosen)

    def set_kind(self, kind: str | None) -> None:
        self._filter_changed(kind=kind)

    # ------------------------------------------------------ text filter, go to id
    def action_find_text(self) -> None:
        self._ask("find", "Words in the text or topic (enter filters, empty clears, esc cancels)", self.filter.text)

    def action_go_to_id(self) -> None:
        self._ask("goto", "Memory id to open (enter opens it, esc cancels)", "")

    def _ask(self, purpose: str, placeholder: str, value: str) -> None:
        find = self.query_one("#memories-find", Input)
        find.placeholder = placeholder
        find.value = value
        find.purpose = purpose  # type: ignore[attr-defined]
        find.display = True
        find.focus()

    def _close_find(self) -> None:
        find = self.query_one("#memories-find", Input)
        find.display = False
        self.query_one("#memories-table", PagedTable).focus()

    @on(Input.Submitted, "#memories-find")
    def _find_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        purpose = getattr(event.input, "purpose", "find")
        self._close_find()
        if purpose == "find":
            self._filter_changed(text=event.value.strip())
            return
        raw = event.value.strip().lstrip("#")
        if not raw.isdigit():
            self.mneme.say(f"Not a memory id: {one_line(event.value, 40)!r} (type a number such as 42).", "warning")
            return
        wanted = int(raw)
        self.fetch_in_worker(lambda: self._exists(wanted), lambda found: self._open_found(wanted, found))

    def _exists(self, memory_id: int) -> bool:
        with self.ctx.session() as store:
            return memory_id in store.get_many([memory_id])

    def _open_found(self, memory_id: int, found: bool) -> None:
        if found:
            self.app.push_screen(MemoryScreen(memory_id))
        else:
            self.mneme.say(f"No memory #{memory_id} in this store.", "warning")

    def key_escape(self) -> None:
        if self.query_one("#memories-find", Input).has_focus:
            self._close_find()

    # ----------------------------------------------------------------- paging
    def action_page(self, step: int) -> None:
        page = self.page
        if page is None:
            return
        offset = page.filter.offset + step * PAGE_SIZE
        if offset < 0 or (step > 0 and offset >= page.total):
            return
        self.filter = replace(self.filter, offset=offset)
        self.reload("page", keep=None, fallback_row=0, at_end=False)

    @on(PagedTable.PageRequest, "#memories-table")
    def _page_request(self, event: PagedTable.PageRequest) -> None:
        event.stop()
        page = self.page
        if page is None:
            return
        offset = page.filter.offset + event.step * PAGE_SIZE
        if offset < 0 or offset >= page.total:
            return
        self.filter = replace(self.filter, offset=offset)
        self._fetch_page(None, 0, event.step < 0)

    # ---------------------------------------------------------- mark / detail
    def _cursor_memory(self) -> Memory | None:
        key = self.query_one("#memories-table", PagedTable).cursor_key
        return self._rows.get(key) if key is not None else None

    def action_mark(self) -> None:
        memory = self._cursor_memory()
        if memory is None:
            return
        self.marked ^= {memory.id}
        table = self.query_one("#memories-table", PagedTable)
        table.set_cell(str(memory.id), "id", self._id_cell(memory.id))
        table.action_cursor_down()
        self._show_filters()

    def action_toggle_pin(self) -> None:
        """Pin the highlighted memory, or unpin it when it is pinned (Store.pin / Store.unpin, audited)."""
        memory, page = self._cursor_memory(), self.page
        if memory is None or page is None:
            return
        toggle_pin(
            self,
            memory.id,
            unpin=memory.id in page.pinned,
            then=lambda: self.reload("pin"),
            failed=lambda message: self.mneme.say(message, "error"),
        )

    @on(DataTable.RowSelected, "#memories-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_detail()

    def action_open_detail(self) -> None:
        memory = self._cursor_memory()
        if memory is not None:
            self.app.push_screen(MemoryScreen(memory.id))

    # ------------------------------------------------------- dismiss and undo
    def action_dismiss_selected(self) -> None:
        ids = sorted(self.marked) or ([m.id] if (m := self._cursor_memory()) else [])
        if not ids:
            return
        for memory_id in ids:  # show it at once; the write follows in a worker
            memory = self._rows.get(str(memory_id))
            if memory is not None and memory.status in (K.ACTIVE, K.SUPERSEDED):
                self._show_status(memory_id, K.TOMBSTONED)
        self.write_status(ids, None)

    def action_undo(self) -> None:
        if not self.undo_stack:
            self.mneme.say("Nothing to undo.")
            return
        change = self.undo_stack.pop()
        for memory_id, previous in change.changed:
            if str(memory_id) in self._rows:
                self._show_status(memory_id, previous)
        self.write_status([], change)

    def write_status(self, ids: list[int], undo: StatusChange | None) -> None:
        """Dismiss ``ids``, or (``undo``) restore what an earlier dismissal changed."""
        if undo is None:
            self.change_status(
                lambda store: store.dismiss(ids, reason=DISMISS_REASON), self._dismissed, rollback=lambda: None
            )
        else:
            self.change_status(
                lambda store: store.undo(undo, reason=UNDO_REASON),
                lambda change: self._restored(undo),
                rollback=lambda: self.undo_stack.append(undo),
            )

    def _dismissed(self, change: StatusChange) -> None:
        ids = change.ids
        self.marked.clear()
        if ids:
            self.undo_stack.append(change)
            self.mneme.say(f"Dismissed {self._describe(ids)} — press u to undo.")
        else:
            self.mneme.say("Nothing to dismiss: already tombstoned.")
        self.reload("dismiss")

    def _restored(self, undo: StatusChange) -> None:
        restored = [memory_id for memory_id, _ in undo.changed]
        self.mneme.say(f"Restored {self._describe(restored)}.")
        self.reload("undo", keep=str(restored[0]) if restored else None)

    def _describe(self, ids: list[int]) -> str:
        if len(ids) == 1:
            memory = self._rows.get(str(ids[0]))
            topic = f" ({one_line(memory.topic, 40)})" if memory is not None else ""
            return f"#{ids[0]}{topic}"
        return f"{len(ids)} memories"
