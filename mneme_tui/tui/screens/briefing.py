"""Briefing: what an agent is told at session start — the Legion briefing, agent and archetype scores,
success over time, preference signals, totals, the prune suggestion and Claude Code's MEMORY.md.

Without Legion files it says so in one calm line and shows the store's own numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Sparkline, Static

from mneme_tui import config, display
from mneme_tui.legion.markdown.legion_records import OutcomeRecord
from mneme_tui.legion.skill.briefing_report import SIGNALS, SUCCESS_WEEKS, BriefingReport, WeekSuccess, briefing_report
from mneme_tui.legion.skill.scoring import ArchetypeScore
from mneme_tui.legion.skill.session_briefing import AgentSummary
from mneme_tui.memory import kinds as K
from mneme_tui.tui.context import AppContext
from mneme_tui.tui.screens.base import ModeScreen
from mneme_tui.tui.text import literal_text
from mneme_tui.tui.widgets.charts import bar_chart
from mneme_tui.tui.widgets.paged_table import PagedTable
from mneme_tui.tui.widgets.score_bars import bar

MAX_MEMORY_SCORE = 5.0


@dataclass
class BriefingData:
    """Everything the screen shows, fetched in one worker: the store's numbers and the Legion picture
    (None without a Legion folder)."""

    kind_status: dict[str, dict[str, int]] = field(default_factory=dict)
    status_totals: dict[str, int] = field(default_factory=dict)  # of the current project's memories
    repo: str = ""
    legion_dir: str = ""
    legion: BriefingReport | None = None

    @property
    def legion_present(self) -> bool:
        return self.legion is not None and self.legion.present


def load_briefing(ctx: AppContext) -> BriefingData:
    """Read the store's numbers and (when present) the Legion folder: thread-safe, no Textual."""
    with ctx.session() as store:
        data = BriefingData(
            kind_status=store.kind_status_counts(), status_totals=store.status_counts(repo_id=ctx.repo), repo=ctx.repo
        )
    legion = ctx.legion()
    if legion is not None:
        data.legion_dir = str(ctx.legion_dir)
        data.legion = briefing_report(legion)
    return data


INTERNAL_FIELDS = frozenset({"key", "raw", "extra", "occurrence", "layout", "line"})
"""Record fields that say where the parser found a record, not what it says: not shown to people."""


class RecordScreen(ModalScreen[None]):
    """One Legion record with every column, shown literally (``esc`` or ``enter`` closes it)."""

    BINDINGS = [Binding("escape,enter,q", "close", "Close")]

    def __init__(self, record: OutcomeRecord) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        out = Text(end="")
        for name, value in self.record.to_json().items():
            if value in (None, "", []) or name in INTERNAL_FIELDS:
                continue
            out.append(f"{name.replace('_', ' '):<15}", style="bold dim")
            out.append(literal_text(", ".join(value) if isinstance(value, list) else value))
            out.append("\n")
        with Vertical(id="record-dialog", classes="dialog"):
            yield Static(literal_text(f"{self.record.id} · {self.record.kind}", "bold"), classes="dialog-title")
            yield Static(out, id="record-body")

    def action_close(self) -> None:
        self.dismiss(None)


class BriefingScreen(ModeScreen):
    MODE_NAME = "briefing"
    MODE_KEY = "3"
    MODE_TITLE = "Briefing"
    MODE_DESCRIPTION = "What an agent is told: Legion briefing and agent scores"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    HELP = "The Legion session briefing and agent performance; the store's numbers when there is no Legion."
    BINDINGS = [Binding("r", "refresh", "Refresh", tooltip="Read the Legion files and the store again")]

    def __init__(self) -> None:
        super().__init__()
        self.data: BriefingData | None = None
        self._recent: dict[str, OutcomeRecord] = {}
        self._table_focused = False

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="briefing-body"):
            yield Static(Text("Loading…", style="dim"), id="briefing-summary")
            yield Static(id="briefing-suggestion")
            with Vertical(id="panel-recent", classes="panel"):
                yield Static(
                    Text("Recent outcomes, newest first (enter or click opens one)", style="bold"),
                    classes="panel-title",
                )
                yield Static(id="body-recent", classes="panel-body")
                yield PagedTable(id="recent-table")
            with Container(id="briefing-columns"):
                with Vertical(id="briefing-left", classes="column"):
                    yield self._panel("top", "Top agents")
                    yield self._panel("scores", "Agent scores (memory score, 0–5)")
                    yield self._panel("archetypes", "Archetype scores by task type")
                with Vertical(id="briefing-right", classes="column"):
                    with Vertical(id="panel-trend", classes="panel"):
                        yield Static(Text("Success over time", style="bold"), classes="panel-title")
                        yield Sparkline([], id="trend-sparkline")
                        yield Static(id="body-trend", classes="panel-body")
                    yield self._panel("preferences", "Preference signals")
                    yield self._panel("claude", "Claude Code MEMORY.md")
                    yield self._panel("store", "Store: memories by kind and status")

    def _panel(self, name: str, title: str) -> Vertical:
        return Vertical(
            Static(Text(title, style="bold"), classes="panel-title"),
            Static(id=f"body-{name}", classes="panel-body"),
            id=f"panel-{name}",
            classes="panel",
        )

    def on_mount(self) -> None:
        self.query_one("#recent-table", PagedTable).setup_columns(
            [
                ("id", "id", None),
                ("date", "date", 10),
                ("outcome", "outcome", 7),
                ("imp", "imp", 3),
                ("summary", "summary", None),
                ("agent", "agent", None),
            ]
        )
        self.reload("mount")

    def action_refresh(self) -> None:
        self.reload("key")

    def reload(self, reason: str = "") -> None:
        self.fetch_in_worker(lambda: load_briefing(self.ctx), self._show)

    # ---------------------------------------------------------------- render
    def _body(self, name: str) -> Static:
        return self.query_one(f"#body-{name}", Static)

    def _show(self, data: BriefingData) -> None:
        self.data = data
        legion_panels = ("recent", "top", "scores", "archetypes", "trend", "preferences", "claude")
        for name in legion_panels:
            self.query_one(f"#panel-{name}").display = data.legion_present
        self.query_one("#briefing-summary", Static).update(self._summary(data))
        suggestion = self._suggestion(data)
        self.query_one("#briefing-suggestion", Static).update(suggestion)
        self.query_one("#briefing-suggestion", Static).display = bool(suggestion.plain)
        self._body("store").update(self._store_table(data))
        report = data.legion
        if report is None or not report.present:
            return
        briefing = report.briefing
        self._show_recent(report.recent_outcomes_by_date)
        self._body("top").update(self._top_table(briefing.top_agents))
        scores = [(s.agent_id, s.memory_score) for s in report.agent_scores]
        self._body("scores").update(
            bar_chart(scores, maximum=MAX_MEMORY_SCORE, width=16, label_width=24)
            if scores
            else Text("No agent has 2 or more recent outcomes yet.", style="dim")
        )
        self._body("archetypes").update(self._archetype_table(report.archetypes))
        rates = [week.success_rate for week in report.weeks_with_data if week.success_rate is not None]
        sparkline = self.query_one("#trend-sparkline", Sparkline)
        sparkline.display = len(rates) >= 2  # one point (or none) is no trend: a full-width bar would mislead
        sparkline.data = rates
        self._body("trend").update(self._trend_text(report.weeks_with_data))
        self._body("preferences").update(self._preferences_text(report))
        claude = briefing.claude_memory
        self.query_one("#panel-claude").display = bool(claude)
        self._body("claude").update(literal_text(claude, "italic") if claude else Text(""))

    def _summary(self, data: BriefingData) -> Text:
        totals = data.status_totals
        store_line = (
            f"store, {display.one_line(data.repo)}: {totals.get(K.ACTIVE, 0):,} active · "
            f"{totals.get(K.SUPERSEDED, 0):,} superseded · "
            f"{totals.get(K.TOMBSTONED, 0):,} tombstoned · {totals.get('all', 0):,} in all"
        )
        out = Text(end="")
        report = data.legion
        if report is None or not report.present:
            out.append("No Legion memory for this project — showing the store's own numbers.\n", style="dim")
            out.append(store_line)
            return out
        count = report.files
        out.append("Legion ", style="bold")
        out.append(literal_text(data.legion_dir, "dim"))
        out.append(f"  as of {config.now():%Y-%m-%d}\n", style="dim")
        parts = [
            f"{count.get('OUTCOMES.md', 0)} outcomes",
            f"{count.get('PATTERNS.md', 0)} patterns",
            f"{count.get('ERRORS.md', 0)} errors",
            f"{count.get('PREFERENCES.md', 0)} preferences",
        ]
        if "ARCHIVE.md" in count:
            parts.append(f"{count['ARCHIVE.md']} archived")
        out.append(" · ".join(parts) + "\n")
        out.append(store_line, style="dim")
        for warning in report.warnings:
            out.append("\n")
            out.append(literal_text(warning, "yellow"))
        return out

    def _suggestion(self, data: BriefingData) -> Text:
        report = data.legion
        if report is None or not report.present:
            return Text("")
        if report.briefing.note:
            return literal_text(report.briefing.note, "bold yellow")
        if report.over_prune_threshold:
            return Text(
                f"OUTCOMES.md has {report.briefing.total_records} records, over the prune threshold of "
                f"{report.prune_threshold}: press 4 to preview a prune.",
                style="bold yellow",
            )
        return Text("")

    @staticmethod
    def _table(*columns: tuple[str, str] | tuple[str, str, int], expand: bool = True) -> Table:
        """A borderless table; a third item fixes a column's width (the others share what is left)."""
        table = Table(box=None, show_edge=False, pad_edge=False, expand=expand, header_style="bold dim")
        for name, justify, *width in columns:
            fixed = width[0] if width else None
            table.add_column(
                name,
                justify=justify,  # type: ignore[arg-type]
                overflow="ellipsis",
                no_wrap=True,
                width=fixed,
                min_width=fixed,
                ratio=None if fixed else 1,
            )
        return table

    def _show_recent(self, records: list[OutcomeRecord]) -> None:
        table = self.query_one("#recent-table", PagedTable)
        table.display = bool(records)
        self._body("recent").display = not records
        self._body("recent").update(Text("No recent outcomes above the decay floor.", style="dim"))
        self._recent = {str(index): record for index, record in enumerate(records)}
        styles = {"success": "green", "partial": "yellow", "failed": "red"}
        table.show_rows(
            [
                (
                    key,
                    [
                        literal_text(r.id),
                        literal_text(r.date, "dim"),
                        literal_text(r.outcome, styles.get(r.outcome, "")),
                        Text(str(r.importance), justify="right"),
                        literal_text(display.one_line(r.summary)),
                        literal_text(r.agent, "dim"),
                    ],
                )
                for key, r in self._recent.items()
            ]
        )
        if records and not self._table_focused:  # the first time: enter opens the highlighted outcome at once
            self._table_focused = True
            table.focus(scroll_visible=False)  # the summary above stays in view (and the layout deterministic)

    @on(DataTable.RowSelected, "#recent-table")
    def _open_outcome(self, event: DataTable.RowSelected) -> None:
        event.stop()
        record = self._recent.get(str(event.row_key.value))
        if record is not None:
            self.app.push_screen(RecordScreen(record))

    def _top_table(self, agents: list[AgentSummary]) -> Table | Text:
        if not agents:
            return Text("No agents yet.", style="dim")
        table = self._table(("agent", "left"), ("tasks", "right", 5), ("success", "right", 7), ("avg imp", "right", 7))
        for a in agents:
            table.add_row(
                literal_text(a.agent_id),
                Text(str(a.total_tasks)),
                Text(f"{a.success_rate:.0%}"),
                Text(f"{a.avg_importance:.1f}"),
            )
        return table

    def _archetype_table(self, archetypes: list[ArchetypeScore]) -> Table | Text:
        if not archetypes:
            return Text("No task types with recent outcomes.", style="dim")
        table = self._table(
            ("task type", "left", 14),
            ("n", "right", 3),
            ("success", "left", 13),
            ("imp", "right", 3),
            ("top agent", "left"),
        )
        for a in archetypes:
            rate = Text(f"{a.success_rate:>4.0%} ", style="bold")
            rate.append(bar(a.success_rate, 8), style="green on #303030")
            table.add_row(
                literal_text(a.task_type),
                Text(str(a.total_outcomes)),
                rate,
                Text(f"{a.avg_importance:.1f}"),
                literal_text(a.top_agent or "—", "dim" if not a.top_agent else ""),
            )
        return table

    def _trend_text(self, weeks: list[WeekSuccess]) -> Text:
        with_data = [week for week in weeks if week.success_rate is not None]
        if not with_data:
            return Text(f"No outcomes in the last {SUCCESS_WEEKS} weeks.", style="dim")
        first, last = weeks[0].start, weeks[-1].start
        total = sum(week.outcomes for week in weeks)
        latest = with_data[-1]
        out = Text(f"success rate per week, {first:%b %d} – {last:%b %d} ({total} outcomes); ", style="dim")
        out.append(
            f"latest {latest.success_rate:.0%} ({latest.outcomes} outcome{'s' if latest.outcomes != 1 else ''})",
            style="bold",
        )
        return out

    def _preferences_text(self, report: BriefingReport) -> Text:
        latest = report.latest_preference
        if latest is None:
            return Text("No preference signals recorded.", style="dim")
        out = Text(end="")
        styles = {"positive": "green", "corrective": "yellow", "negative": "red"}
        for signal in SIGNALS:
            out.append(f"{signal} {report.signals[signal]}", style=styles[signal])
            out.append("   ")
        out.append("\n")
        out.append(f"{'agent':<30} {'pos':>4} {'corr':>5} {'neg':>4}\n", style="bold dim")
        for signals in report.agent_signals:
            agent = signals.agent
            out.append(literal_text(f"{agent if len(agent) <= 30 else agent[:29] + '…':<30}"))
            out.append(f" {signals.positive:>4} {signals.corrective:>5} {signals.negative:>4}\n")
        out.append("latest: ", style="dim")
        out.append(literal_text(f"{latest.date} {display.one_line(latest.one_line())}"))
        for note in report.preference_notes:
            out.append("\n")
            out.append(literal_text(note, "italic"))
        return out

    def _store_table(self, data: BriefingData) -> Table | Text:
        if not data.kind_status:
            return Text("The store is empty.", style="dim")
        table = self._table(
            ("kind", "left", 12), *[(s, "right", 10) for s in K.STATUSES], ("all", "right", 7), expand=False
        )
        ordered = [k for k in K.ALL_KINDS if k in data.kind_status] + sorted(set(data.kind_status) - set(K.ALL_KINDS))
        for kind in ordered:
            row = data.kind_status[kind]
            table.add_row(
                literal_text(kind),
                *[Text(f"{row.get(s, 0):,}") for s in K.STATUSES],
                Text(f"{sum(row.values()):,}", style="bold"),
            )
        return table
