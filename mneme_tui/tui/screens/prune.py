"""Prune preview: the Legion prune plan (candidates and kept records, with reasons and the settings in
force); ``a`` confirms in a modal and applies it, then shows what happened and refreshes every screen.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from mneme_tui.errors import MnemeError
from mneme_tui.legion.markdown.planning import MemorySettings
from mneme_tui.legion.skill.prune import PrunePlan, PruneResult
from mneme_tui.tui.context import AppContext
from mneme_tui.tui.screens.base import ModeScreen
from mneme_tui.tui.screens.dialogs import ConfirmScreen
from mneme_tui.tui.text import cell, literal_text


@dataclass
class PruneData:
    present: bool
    legion_dir: str
    plan: PrunePlan | None = None
    settings: MemorySettings | None = None


def os_error_message(exc: OSError) -> str:
    """A failed prune write as something to act on: the path, what went wrong and what to do."""
    where = f"{exc.filename}: " if exc.filename else ""
    return (
        f"{where}{exc.strerror or exc}. Make it a writable file (or remove it if it is a stray folder), "
        "then press a again."
    )


def load_plan(ctx: AppContext) -> PruneData:
    legion = ctx.legion()
    if legion is None:
        return PruneData(False, "")
    if ctx.legion_dir is None or not (ctx.legion_dir / "OUTCOMES.md").is_file():
        return PruneData(False, str(ctx.legion_dir))
    return PruneData(True, str(ctx.legion_dir), legion.prune_plan(), legion.settings)


class PruneScreen(ModeScreen):
    MODE_NAME = "prune"
    MODE_KEY = "4"
    MODE_TITLE = "Prune"
    MODE_DESCRIPTION = "Preview and apply the Legion outcome prune"
    HELP = "Old, low-importance outcomes move from OUTCOMES.md to ARCHIVE.md; nothing is deleted."
    BINDINGS = [
        Binding("a", "apply", "Apply prune", tooltip="Confirm, then move the candidates to ARCHIVE.md"),
        Binding("r", "refresh", "Refresh", tooltip="Compute the plan again"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.data: PruneData | None = None
        self.last_result: PruneResult | None = None
        self.applying = False

    def compose_body(self) -> ComposeResult:
        yield Static(Text("Loading…", style="dim"), id="prune-settings")
        yield Static(id="prune-result")  # hidden until an apply
        with Vertical(id="prune-tables"):
            yield Static(id="candidates-title", classes="table-title")
            yield DataTable(id="prune-candidates", cursor_type="row")
            yield Static(id="kept-title", classes="table-title")
            yield DataTable(id="prune-kept", cursor_type="row")

    def on_mount(self) -> None:
        self.query_one("#prune-result").display = False
        for table_id in ("#prune-candidates", "#prune-kept"):
            table = self.query_one(table_id, DataTable)
            table.add_column("id", key="id", width=5)
            table.add_column("age", key="age", width=4)
            table.add_column("imp", key="imp", width=3)
            table.add_column("ph", key="phase", width=2)
            table.add_column("why", key="why", width=19)
            table.add_column("agent", key="agent", width=14)
            table.add_column("summary", key="summary")
        self.reload("mount")

    def action_refresh(self) -> None:
        self.reload("key")

    def reload(self, reason: str = "") -> None:
        self.fetch_in_worker(lambda: load_plan(self.ctx), self._show)

    # ----------------------------------------------------------------- render
    def _show(self, data: PruneData) -> None:
        self.data = data
        self.query_one("#prune-tables").display = data.present
        settings_line = self.query_one("#prune-settings", Static)
        plan, settings = data.plan, data.settings
        if plan is None or settings is None:
            where = f" ({data.legion_dir})" if data.legion_dir else ""
            settings_line.update(Text(f"No Legion OUTCOMES.md for this project{where}: nothing to prune.", style="dim"))
            return
        out = Text(end="")
        out.append("settings  ", style="dim")
        out.append(
            f"prune_age_days {plan.prune_age_days} · prune_threshold {settings.prune_threshold} · "
            f"auto_prune {'on' if settings.auto_prune else 'off'}"
        )
        out.append("\n")
        out.append("state     ", style="dim")
        phase = plan.current_phase if plan.current_phase is not None else "unknown"
        out.append(f"current phase {phase} · as of {plan.as_of} · {plan.total_records} outcomes")
        if plan.total_records > settings.prune_threshold:
            out.append(" · over threshold", style="bold yellow")
        for warning in plan.warnings:
            out.append("\n")
            out.append(literal_text(warning, "yellow"))
        settings_line.update(out)
        reasons = Counter(entry.reason for entry in plan.kept)
        kept_summary = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items(), key=lambda i: (-i[1], i[0])))
        candidates_title = Text(f"Archive candidates ({len(plan.candidates)})", style="bold")
        if plan.candidates:
            candidates_title.append("  → ARCHIVE.md · press a to apply", style="dim")
        else:
            candidates_title.append("  " + plan.message, style="dim")
        self.query_one("#candidates-title", Static).update(candidates_title)
        kept_title = Text(f"Kept ({len(plan.kept)})", style="bold")
        if kept_summary:
            kept_title.append(f"  {kept_summary}", style="dim")
        self.query_one("#kept-title", Static).update(kept_title)
        self.query_one("#prune-candidates", DataTable).display = bool(plan.candidates)
        self._fill(self.query_one("#prune-candidates", DataTable), plan.candidates)
        self._fill(self.query_one("#prune-kept", DataTable), plan.kept)
        focused = self.focused
        if focused is None or not focused.display:
            target = "#prune-candidates" if plan.candidates else "#prune-kept"
            self.query_one(target, DataTable).focus()

    def _fill(self, table: DataTable, entries) -> None:
        previous = table.cursor_row
        keys = [f"{e.record.key}" for e in entries]
        rows = []
        reason_styles = {
            "high importance": "magenta",
            "current phase": "cyan",
            "recent": "green",
            "undated": "yellow",
            "old, low importance": "red",
        }
        for entry in entries:
            r = entry.record
            age = "?" if entry.days_old is None else f"{entry.days_old}d"
            rows.append(
                [
                    cell(r.id or "—"),
                    Text(age, justify="right", style="dim"),
                    Text(str(r.importance), justify="right"),
                    cell(r.phase),
                    cell(entry.reason, reason_styles.get(entry.reason, "")),
                    cell(r.agent),
                    cell(r.summary, width=200),
                ]
            )
        with self.app.batch_update():
            table.clear()
            for key, row in zip(keys, rows):
                table.add_row(*row, key=key)
            if rows:
                table.move_cursor(row=min(previous, len(rows) - 1), animate=False)

    # ------------------------------------------------------------------ apply
    def action_apply(self) -> None:
        data = self.data
        if data is None or data.plan is None:
            self.mneme.say("Nothing to prune: this project has no Legion OUTCOMES.md.")
            return
        if self.applying:
            return
        plan = data.plan
        if not plan.candidates:
            self.mneme.say(plan.message)
            return
        reasons = Counter(entry.reason for entry in plan.kept)
        body = Text(end="")
        plural = "s" if len(plan.candidates) != 1 else ""
        body.append(f"Move {len(plan.candidates)} outcome record{plural} ", style="bold")
        body.append(f"older than {plan.prune_age_days} days with importance ≤ 3 from OUTCOMES.md to ARCHIVE.md?\n\n")
        ids = ", ".join(e.record.id or "—" for e in plan.candidates[:12])
        more = f" and {len(plan.candidates) - 12} more" if len(plan.candidates) > 12 else ""
        body.append(literal_text(ids + more, "dim"))
        body.append(f"\n\n{len(plan.kept)} stay: " + ", ".join(f"{n} {r}" for r, n in sorted(reasons.items())) + ".\n")
        body.append("Nothing is deleted; if a write fails both files are put back.\n", style="italic")
        body.append(
            "This is final here: mneme cannot undo a prune. To bring a record back, move its row from "
            "ARCHIVE.md to OUTCOMES.md by hand.",
            style="bold",
        )

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.applying = True
                self.apply_plan(plan)

        self.app.push_screen(ConfirmScreen("Apply prune", body, confirm_label="Archive"), answered)

    @work(thread=True, exclusive=True, group="prune-apply", exit_on_error=False)
    def apply_plan(self, plan: PrunePlan) -> None:
        try:
            legion = self.ctx.legion()
            result = legion.apply_prune(plan)
        except MnemeError as exc:
            self.app.call_from_thread(self._applied, None, str(exc))
            return
        except OSError as exc:
            self.app.call_from_thread(self._applied, None, os_error_message(exc))
            return
        self.app.call_from_thread(self._applied, result, "")

    def _applied(self, result: PruneResult | None, error: str) -> None:
        self.applying = False
        self.mneme.own_write(legion=True)
        self.last_result = result
        panel = self.query_one("#prune-result", Static)
        panel.display = True
        if result is None or not result.ok:
            message = error or (result.message if result is not None else "the prune failed")
            out = Text("Prune failed: ", style="bold red")
            out.append(literal_text(message))
            out.append("\nOUTCOMES.md and ARCHIVE.md are as they were before the prune.", style="dim")
            if result is not None and result.records_text:
                out.append("\nRecords that would have been archived:\n", style="dim")
                lines = result.records_text.splitlines()
                shown = "\n".join(lines[:8]) + (f"\n… {len(lines) - 8} more lines" if len(lines) > 8 else "")
                out.append(literal_text(shown, "dim"))
            panel.update(out)
            panel.set_class(True, "-error")
            self.mneme.say(f"Prune failed: {message}", "error")
        else:
            out = Text("Pruned: ", style="bold green")
            out.append(
                f"{result.archived} archived · {result.remaining} remaining · preserved "
                f"{result.preserved_high_importance} high-importance, {result.preserved_current_phase} "
                f"current-phase · archive total {result.archive_total}"
            )
            panel.update(out)
            panel.set_class(False, "-error")
            self.mneme.say(f"Archived {result.archived} records to ARCHIVE.md.")
        self.reload("applied")
        self.mneme.data_changed(source=self, what="prune")
