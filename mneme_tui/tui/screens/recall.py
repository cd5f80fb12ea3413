"""Recall: search-as-you-type over a ranking profile (bm25 by default), with a detail pane that explains each score."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from time import perf_counter

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.timer import Timer
from textual.widgets import Input

from mneme_tui import config
from mneme_tui.memory import kinds as K
from mneme_tui.memory.ranking import PROFILES
from mneme_tui.memory.records import Memory, ScoredMemory, StatusChange
from mneme_tui.tui.highlight import highlight
from mneme_tui.tui.repo_scope import scope_label
from mneme_tui.tui.screens.base import DISMISS_REASON, UNDO_REASON, ModeScreen, Undo
from mneme_tui.tui.screens.dialogs import ChoiceScreen
from mneme_tui.tui.text import one_line
from mneme_tui.tui.widgets.chips import Chip, ChipBar
from mneme_tui.tui.widgets.memory_detail import MemoryDetail, memory_text
from mneme_tui.tui.widgets.results_table import RECALL_COLUMNS, ResultsTable, recall_cells

LIMITS = (5, 10, 20, 50)
QUERY_HINT = "Type to search memories…   esc: keys · ?: help"
"""The empty query box says how to reach the keys: while it has focus, letters and digits are the query."""
DEBOUNCE_SECONDS = 0.02


@dataclass(frozen=True)
class SearchRequest:
    query: str
    cross_repo: bool
    kind: str | None
    limit: int
    profile: str


@dataclass(frozen=True)
class SearchResult:
    request: SearchRequest
    items: tuple[ScoredMemory | Memory, ...]
    seconds: float
    keep_cursor: bool = False
    legion_ids: dict[int, str] = field(default_factory=dict)


class RecallScreen(ModeScreen):
    MODE_NAME = "recall"
    MODE_KEY = "1"
    MODE_TITLE = "Recall"
    MODE_DESCRIPTION = "Search memories, best match first"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (150, "-wide")]  # below 150 the list keeps the full width
    HELP = (
        "Type to search (? in the empty query opens this help); the profile chip names the ranking (^o "
        "switches). The match column is the score without its age factor; the detail pane explains each score. "
        "esc moves to the results; there, letters type into the query and 1-6, s, n, d, u, q, ? act."
    )
    BINDINGS = [
        Binding("ctrl+g", "toggle_cross_repo", "All repos", tooltip="Search every repo (-A) or this repo plus global"),
        Binding("ctrl+t", "pick_kind", "Kind", tooltip="Filter results by kind"),
        Binding("ctrl+l", "cycle_limit", "Limit", tooltip="How many results: 5, 10, 20 or 50"),
        Binding("ctrl+o", "cycle_profile", "Profile", tooltip="Cycle the ranking profile"),
        Binding("d", "dismiss_result", "Dismiss", tooltip="Dismiss (tombstone) the highlighted result"),
        Binding("slash", "focus_query", "Search", show=False, tooltip="Back to the query, cursor at its end"),
        Binding("escape", "leave_query", "Results", show=False, tooltip="From the query: move into the results"),
        Binding(
            "down", "focus_results", "Results", show=False, tooltip="From the query: move into the results (enter too)"
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.request = SearchRequest(query="", cross_repo=False, kind=None, limit=10, profile="spec")
        self.shown_generation = -1
        self.last_result: SearchResult | None = None
        self._items: dict[str, ScoredMemory | Memory] = {}
        self._debounce: Timer | None = None
        self._searching = False
        self._pending = False
        self._last_key = 0.0

    @property
    def search_pending(self) -> bool:
        """True while a search runs, waits for its debounce, or waits for the one before it to end."""
        return self._searching or self._pending or self._debounce is not None

    # ----------------------------------------------------------------- layout
    def compose_body(self) -> ComposeResult:
        with Vertical(id="recall-top"):
            yield Input(placeholder=QUERY_HINT, id="query", compact=True, select_on_focus=False)
            yield ChipBar(id="recall-options")
        with Container(id="recall-body"):
            yield ResultsTable(id="results")
            yield MemoryDetail("Select a result to see it in full.", id="recall-detail")

    def on_mount(self) -> None:
        profile = self.ctx.profile if self.ctx.profile in PROFILES else next(iter(PROFILES))
        self.request = replace(self.request, profile=profile)
        table = self.query_one("#results", ResultsTable)
        table.setup_columns(RECALL_COLUMNS)
        self._show_options()
        query = self.query_one("#query", Input)
        query.cursor_blink = self.mneme.cursor_blink
        query.focus()
        self._search_now()

    # ----------------------------------------------------------------- search
    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        """Debounce: the first key after a pause searches at once; keys typed while a search runs (or
        within ``DEBOUNCE_SECONDS`` of the last one) are coalesced into one search for the latest text.
        A ``?`` typed into the empty box opens the help instead (a newcomer's first key)."""
        if event.value == "?" and not self.request.query:
            event.input.value = ""
            self.mneme.action_help()
            return
        self.request = replace(self.request, query=event.value)
        self.generation += 1
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        if self._searching:
            self._pending = True
        elif perf_counter() - self._last_key < DEBOUNCE_SECONDS:
            self._debounce = self.set_timer(DEBOUNCE_SECONDS, self._search_now)
        else:
            self._search_now()
        self._last_key = perf_counter()

    @on(Input.Submitted, "#query")
    def _query_submitted(self) -> None:
        self.query_one("#results", ResultsTable).focus()

    def _search_now(self, *, keep_cursor: bool = False) -> None:
        self._debounce = None
        self._pending = False
        self._searching = True
        request = self.request
        self.fetch_in_worker(
            lambda: self._search(request, keep_cursor), self._show_result, finished=self._search_finished
        )

    def _search_finished(self) -> None:
        """A search ended (shown, dropped as stale, or failed): run the coalesced one, if any."""
        self._searching = False
        if self._pending:
            self._search_now(keep_cursor=False)

    def reload(self, reason: str = "") -> None:
        self._search_now(keep_cursor=True)

    def _search(self, request: SearchRequest, keep_cursor: bool) -> SearchResult:
        """Rank (or, without a query, list) in a worker thread."""
        started = perf_counter()
        ctx = self.ctx
        with ctx.session() as store:
            items: tuple[ScoredMemory | Memory, ...]
            if request.query.strip():
                items = tuple(
                    store.recall(
                        request.query,
                        repo=ctx.repo,
                        cross_repo=request.cross_repo,
                        kind=request.kind,
                        limit=request.limit,
                        profile=request.profile,
                    )
                )
            else:
                items = tuple(
                    store.list(
                        status=K.ACTIVE,
                        repo_id=None if request.cross_repo else ctx.repo,
                        include_global=not request.cross_repo,
                        kind=request.kind,
                        limit=request.limit,
                    )
                )
            legion_ids = store.legion_ids(
                [item.memory.id if isinstance(item, ScoredMemory) else item.id for item in items]
            )
        return SearchResult(request, items, perf_counter() - started, keep_cursor, legion_ids)

    def _show_result(self, result: SearchResult) -> None:
        table = self.query_one("#results", ResultsTable)
        keep = table.cursor_key if result.keep_cursor else None
        self._items = {}
        rows = []
        now = config.now()
        request = result.request
        for item in result.items:
            memory = item.memory if isinstance(item, ScoredMemory) else item
            key = str(memory.id)
            self._items[key] = item
            rows.append(
                (
                    key,
                    recall_cells(
                        item,
                        now,
                        query=request.query,
                        profile=request.profile,
                        legion_id=result.legion_ids.get(memory.id),
                    ),
                )
            )
        table.show_rows(rows, keep=keep, fallback_row=0 if keep is None else None)
        first = self.last_result is None
        self.shown_generation = self.generation
        self.last_result = result
        self._show_options()
        self._show_detail()
        if first:
            self.mneme.first_results_shown()

    # ----------------------------------------------------------------- detail
    @on(ResultsTable.Highlighted, "#results")
    def _row_highlighted(self) -> None:
        self._show_detail()

    @on(ResultsTable.Selected, "#results")
    def _row_selected(self, event: ResultsTable.Selected) -> None:
        from mneme_tui.tui.screens.memory_screen import MemoryScreen

        if event.key is not None:
            self.app.push_screen(MemoryScreen(int(event.key)))

    def _show_detail(self) -> None:
        detail = self.query_one("#recall-detail", MemoryDetail)
        key = self.query_one("#results", ResultsTable).cursor_key
        item = self._items.get(key) if key is not None else None
        if item is None:
            detail.clear(self._empty_message())
            return
        if isinstance(item, ScoredMemory):
            query = self.last_result.request.query if self.last_result is not None else ""
            body = highlight(memory_text(item.memory, config.now(), scored=item), query, item.profile)
            detail.show(body, item.memory.id, legend_profile=item.profile)
        else:
            detail.show(memory_text(item, config.now()), item.id)

    def _empty_message(self) -> str:
        if self.last_result is None:
            return "Searching…"
        if self.request.query.strip():
            if self.request.cross_repo:
                return "No memory in any repo matches this query. Try other words, another kind or ^o profile."
            return "No memory matches this query in this scope. Try ^g for all repos, or another kind."
        return "No memories yet in this scope. Save one with `mneme save`, or open the demo: `mneme --demo`."

    # ---------------------------------------------------------------- options
    def _show_options(self) -> None:
        request = self.request
        scope = "all repos" if request.cross_repo else scope_label(self.ctx.repo)
        if self.last_result is None:
            summary = "searching…"
        elif self.last_result.request.query.strip():
            count = len(self.last_result.items)
            summary = f"{count} result{'s' if count != 1 else ''}"
        elif self.last_result.items:
            summary = f"newest {len(self.last_result.items)} (type to search)"
        else:
            summary = "no memories in this scope"
        self.query_one("#recall-options", ChipBar).set_chips(
            [
                Chip(scope, action="screen.toggle_cross_repo", prefix="scope"),
                Chip(request.kind or "any", action="screen.pick_kind", prefix="kind"),
                Chip(str(request.limit), action="screen.cycle_limit", prefix="limit"),
                Chip(request.profile, action="screen.cycle_profile", prefix="profile"),
                f"  {summary}",
            ]
        )

    def _changed_options(self, **changes) -> None:
        self.request = replace(self.request, **changes)
        self._show_options()
        self._search_now()

    def action_toggle_cross_repo(self) -> None:
        self._changed_options(cross_repo=not self.request.cross_repo)

    def action_cycle_limit(self) -> None:
        position = LIMITS.index(self.request.limit) if self.request.limit in LIMITS else -1
        self._changed_options(limit=LIMITS[(position + 1) % len(LIMITS)])

    def action_cycle_profile(self) -> None:
        names = list(PROFILES)
        position = names.index(self.request.profile) if self.request.profile in names else -1
        self._changed_options(profile=names[(position + 1) % len(names)])

    def action_pick_kind(self) -> None:
        choices = [("", "any kind")] + [(kind, kind) for kind in K.ALL_KINDS]

        def chosen(value: str | None) -> None:
            if value is not None:
                self._changed_options(kind=value or None)

        self.app.push_screen(ChoiceScreen("Kind filter", choices, self.request.kind or ""), chosen)

    def set_kind(self, kind: str | None) -> None:
        self._changed_options(kind=kind)

    # ------------------------------------------------------------------ focus
    # The rule: ``esc`` only ever leaves the query box. While the results have focus, a key with a
    # binding does its action (1-6 modes, s sync, n new, d dismiss, u undo, / query, ? help, q quit);
    # every other printable key, and a paste, goes into the query (appended, cursor at the end), so
    # nothing typed is lost and no mode key ends up in the query.
    def action_focus_query(self) -> None:
        query = self.query_one("#query", Input)
        query.cursor_position = len(query.value)
        self.set_focus(query)

    def action_focus_results(self) -> None:
        self.set_focus(self.query_one("#results", ResultsTable))

    def action_leave_query(self) -> None:
        if self.query_one("#query", Input).has_focus:
            self.action_focus_results()

    def on_key(self, event: events.Key) -> None:
        """With the results focused, a printable key that no binding claims types into the query."""
        if event.character is None or not event.is_printable or event.key in self.active_bindings:
            return
        if self._type_into_query(event.character):
            event.stop()
            event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        """A paste while the results have focus goes into the query (its first line, as the Input does)."""
        lines = event.text.splitlines()
        if lines and self._type_into_query(lines[0]):
            event.stop()

    def _type_into_query(self, text: str) -> bool:
        """Append ``text`` to the query and focus it at once (so the next keys go there too); False when
        the query already has focus (it handles its keys itself)."""
        query = self.query_one("#query", Input)
        if query.has_focus:
            return False
        query.cursor_position = len(query.value)
        query.insert_text_at_cursor(text)
        self.set_focus(query)
        return True

    # ------------------------------------------------------------ dismiss, undo
    def action_dismiss_result(self) -> None:
        """Dismiss the highlighted result; it leaves the list and ``u`` (the app's undo) brings it back."""
        key = self.query_one("#results", ResultsTable).cursor_key
        item = self._items.get(key) if key is not None else None
        if item is None:
            self.mneme.say("No result to dismiss.")
            return
        memory = item.memory if isinstance(item, ScoredMemory) else item

        def dismissed(change: StatusChange) -> None:
            self.mneme.undo_stack.append(
                Undo(lambda store: store.undo(change, reason=UNDO_REASON), f"Restored #{memory.id}", memory.id)
            )
            self.mneme.say(f"Dismissed #{memory.id} ({one_line(memory.topic, 40)}) — press u to undo.")
            self.reload("dismiss")

        self.change_status(
            lambda store: store.dismiss([memory.id], reason=DISMISS_REASON), dismissed, rollback=lambda: None
        )
