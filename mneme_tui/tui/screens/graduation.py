"""Graduation: pitfalls that recur (or are read) often enough to be codified as a policy rule.

The list comes from ``memory.learning.graduation.graduation_candidates`` (one row per pitfall group:
the pitfalls sharing a repo, gate and directory scope). The highlighted candidate's reason and its
ready-to-paste rule text are shown literally in the detail pane; ``c`` also copies the rule text to the
clipboard (OSC 52, which some terminals ignore — hence the pane). Once the rule is codified, ``d``
dismisses the whole group (every related pitfall, not just the one shown): that is what makes the
candidate go away. ``u`` restores exactly the memories that dismissal changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.widgets import DataTable, Static

from mneme_tui.memory.learning.graduation import MIN_ACCESS, MIN_RECURRENCE, GraduationCandidate, graduation_candidates
from mneme_tui.memory.records import StatusChange
from mneme_tui.tui.screens.base import ModeScreen
from mneme_tui.tui.screens.memory_screen import MemoryScreen
from mneme_tui.tui.text import KIND_STYLES, cell, literal_text, one_line
from mneme_tui.tui.widgets.chips import Chip, ChipBar
from mneme_tui.tui.widgets.paged_table import PagedTable

DISMISS_REASON = "codified as a rule (graduation) in the TUI"
UNDO_REASON = "undo in the TUI"
RULE_LABELS = {"recurrence": "recur", "access_count": "access", "recurrence+access_count": "recur+acc"}
EMPTY_MESSAGE = (
    f"No candidates: a pitfall graduates when it recurs in ≥ {MIN_RECURRENCE} tasks in one scope, or when "
    f"≥ {MIN_ACCESS} tasks read a policy gate's pitfall. Pitfalls come from `mneme task sync`."
)


@dataclass(frozen=True)
class CandidateList:
    all_repos: bool
    candidates: tuple[GraduationCandidate, ...]


@dataclass(frozen=True)
class Dismissal:
    """One ``d``: what the store changed (restored exactly by ``u``) and for which candidate."""

    change: StatusChange
    memory_id: int
    gate: str


class GraduationScreen(ModeScreen):
    MODE_NAME = "graduation"
    MODE_KEY = "5"
    MODE_TITLE = "Graduation"
    MODE_DESCRIPTION = "Pitfalls ready to codify as policy rules"
    HELP = (
        f"Pitfalls to codify as policy: recurring in ≥ {MIN_RECURRENCE} tasks in a scope, or read by "
        f"≥ {MIN_ACCESS} tasks (policy gates). Copy the rule with c; once codified, d dismisses the group."
    )
    BINDINGS = [
        Binding("c", "copy_rule", "Copy rule", tooltip="Copy the highlighted candidate's rule text to the clipboard"),
        Binding(
            "d",
            "dismiss_group",
            "Dismiss group",
            tooltip="Once codified: dismiss (tombstone) every pitfall of the candidate's group",
        ),
        Binding("u", "undo", "Undo", tooltip="Undo the last dismissal (restores exactly what it changed)"),
        Binding("r", "toggle_scope", "Repo scope", tooltip="This repo (+global) or all repos"),
        Binding(
            "enter", "open_detail", "History", show=False, tooltip="Open the candidate's memory with its audit history"
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.all_repos = False
        self.shown: CandidateList | None = None
        self.undo_stack: list[Dismissal] = []
        self._rows: dict[str, GraduationCandidate] = {}

    # ----------------------------------------------------------------- layout
    def compose_body(self) -> ComposeResult:
        yield ChipBar(id="graduation-filters")
        yield Static(Text(EMPTY_MESSAGE), id="graduation-empty", classes="calm")
        with Container(id="graduation-body"):
            yield PagedTable(id="graduation-table")
            with VerticalScroll(id="graduation-detail"):
                yield Static(id="graduation-facts")
                yield Static(id="graduation-rule")

    def on_mount(self) -> None:
        table = self.query_one("#graduation-table", PagedTable)
        table.setup_columns(
            [
                ("id", "id", 5),
                ("gate", "gate", 20),
                ("scope", "scope", 14),
                ("rule", "rule", 9),
                ("rec", "rec", 3),
                ("acc", "acc", 3),
                ("repo", "repo", 9),
                ("tasks", "tasks", None),
            ]
        )
        self.query_one("#graduation-empty").display = False
        table.focus()
        self._show_filters()
        self.reload("mount")

    # ------------------------------------------------------------------- data
    def reload(self, reason: str = "", *, keep: str | None = None, fallback_row: int | None = None) -> None:
        """Fetch the candidates again; the cursor stays on the same candidate (or the same row)."""
        table = self.query_one("#graduation-table", PagedTable)
        if reason == "scope":  # another list: start at its top, as the Memories filters do
            keep, fallback_row = None, 0
        else:
            keep = keep if keep is not None else table.cursor_key
            fallback_row = fallback_row if fallback_row is not None else table.cursor_row
        all_repos = self.all_repos
        self.fetch_in_worker(lambda: self._load(all_repos), lambda shown: self._show(shown, keep, fallback_row))

    def _load(self, all_repos: bool) -> CandidateList:
        """The graduation candidates of this repo (or all repos), in a worker thread."""
        with self.ctx.session() as store:
            found = graduation_candidates(store, None if all_repos else self.ctx.repo)
        return CandidateList(all_repos, tuple(found))

    def _show(self, shown: CandidateList, keep: str | None, fallback_row: int | None) -> None:
        self.shown = shown
        self._rows = {str(c.memory.id): c for c in shown.candidates}
        table = self.query_one("#graduation-table", PagedTable)
        table.show_rows([(key, self._cells(c)) for key, c in self._rows.items()], keep=keep, fallback_row=fallback_row)
        empty = not shown.candidates
        self.query_one("#graduation-empty").display = empty
        self.query_one("#graduation-body").display = not empty
        if not empty and self.focused is None:  # the table was hidden while the list was empty
            table.focus()
        self._show_filters()
        self._show_detail()

    def _cells(self, candidate: GraduationCandidate) -> list[Text]:
        memory = candidate.memory
        return [
            Text(str(memory.id), style="dim", justify="right", no_wrap=True, end=""),
            cell(candidate.gate, "bold"),
            cell(candidate.scope, "cyan") if candidate.scope else Text("—", style="dim", end=""),
            cell(RULE_LABELS.get(candidate.rule, candidate.rule), "bold" if "+" in candidate.rule else ""),
            Text(str(candidate.recurrence), justify="right", no_wrap=True, end=""),
            Text(str(candidate.access_count), justify="right", no_wrap=True, end=""),
            cell(memory.repo_id, "dim"),
            cell(", ".join(candidate.tasks), "dim"),
        ]

    def _show_filters(self) -> None:
        scope = "all repos" if self.all_repos else f"{self.ctx.repo} +global"
        shown = self.shown
        if shown is None:
            summary = "loading…"
        else:
            count = len(shown.candidates)
            pitfalls = sum(len(c.related_ids) for c in shown.candidates)
            summary = (
                f"{count} candidate{'s' * (count != 1)} from {pitfalls} pitfall{'s' * (pitfalls != 1)}"
                if count
                else "no candidates"
            )
        self.query_one("#graduation-filters", ChipBar).set_chips(
            [Chip(scope, action="screen.toggle_scope", prefix="scope"), f"  {summary}"]
        )

    # ----------------------------------------------------------------- detail
    @on(DataTable.RowHighlighted, "#graduation-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail()

    def _cursor_candidate(self) -> GraduationCandidate | None:
        key = self.query_one("#graduation-table", PagedTable).cursor_key
        return self._rows.get(key) if key is not None else None

    def _show_detail(self) -> None:
        candidate = self._cursor_candidate()
        facts = self.query_one("#graduation-facts", Static)
        rule = self.query_one("#graduation-rule", Static)
        if candidate is None:
            facts.update(Text("No candidate selected.", style="dim"))
            rule.update("")
            return
        facts.update(candidate_text(candidate))
        shown = literal_text(candidate.rule_text().rstrip("\n"))
        shown.no_wrap = True  # YAML: a soft-wrapped comment line would no longer parse; scroll sideways instead
        rule.update(shown)

    @on(DataTable.RowSelected, "#graduation-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_detail()

    def action_open_detail(self) -> None:
        candidate = self._cursor_candidate()
        if candidate is not None:
            self.app.push_screen(MemoryScreen(candidate.memory.id))

    # ------------------------------------------------------------------ keys
    def action_toggle_scope(self) -> None:
        self.all_repos = not self.all_repos
        self.shown = None
        self._show_filters()
        self.reload("scope")

    def action_copy_rule(self) -> None:
        candidate = self._cursor_candidate()
        if candidate is None:
            self.mneme.say("No candidate to copy.")
            return
        self.app.copy_to_clipboard(candidate.rule_text())
        self.mneme.say(
            f"Rule for #{candidate.memory.id} ({one_line(candidate.gate, 40)}) copied — "
            "it is also in the detail pane, to select by hand."
        )

    def action_dismiss_group(self) -> None:
        candidate = self._cursor_candidate()
        if candidate is None:
            return
        table = self.query_one("#graduation-table", PagedTable)
        table.set_cell(str(candidate.memory.id), "rule", Text("dismissing", style="red strike", end=""))
        self.write_status(
            Dismissal(StatusChange(), candidate.memory.id, candidate.gate), list(candidate.related_ids), undo=False
        )

    def action_undo(self) -> None:
        if not self.undo_stack:
            self.mneme.say("Nothing to undo.")
            return
        self.write_status(self.undo_stack.pop(), [], undo=True)

    def write_status(self, dismissal: Dismissal, ids: list[int], *, undo: bool) -> None:
        """Dismiss ``ids`` (the candidate's group), or restore what ``dismissal.change`` changed."""

        def done(change: StatusChange) -> None:
            self._written(Dismissal(change, dismissal.memory_id, dismissal.gate), undo)

        if undo:
            self.change_status(
                lambda store: store.undo(dismissal.change, reason=UNDO_REASON),
                done,
                rollback=lambda: self.undo_stack.append(dismissal),
            )
        else:
            self.change_status(lambda store: store.dismiss(ids, reason=DISMISS_REASON), done, rollback=lambda: None)

    def _written(self, done: Dismissal, undo: bool) -> None:
        ids = done.change.ids
        gate = one_line(done.gate, 40)
        if undo:
            self.mneme.say(f"Restored {_ids(ids)} ({gate})." if ids else f"Nothing to restore: {gate} is already back.")
            self.reload("undo", keep=str(done.memory_id))
        else:
            if ids:
                self.undo_stack.append(done)
                what = f"the group's {len(ids)} pitfalls" if len(ids) > 1 else "its pitfall"
                self.mneme.say(f"Dismissed {gate} as codified: {what} {_ids(ids)} — press u to undo.")
            else:
                self.mneme.say("Nothing to dismiss: already tombstoned.")
            self.reload("dismiss")


def _ids(ids: list[int]) -> str:
    return ", ".join(f"#{i}" for i in ids)


def _field(out: Text, name: str, value: Text | str) -> None:
    out.append(f"{name:<9}", style="dim")
    out.append(value if isinstance(value, Text) else literal_text(value))
    out.append("\n")


def candidate_text(candidate: GraduationCandidate) -> Text:
    """The candidate's facts (reason, rule, scope, tasks, group) as literal Text, then the rule's heading."""
    memory = candidate.memory
    out = Text(end="")
    out.append(f"#{memory.id}", style="bold")
    out.append("  ")
    out.append(literal_text(memory.kind, KIND_STYLES.get(memory.kind, "") or "bold"))
    out.append("  ")
    out.append(literal_text(candidate.gate, "bold"))
    out.append(f"  {'structural' if candidate.structural else 'policy'} gate\n", style="dim")
    _field(out, "reason", literal_text(candidate.reason, "italic"))
    tasks = f"{candidate.recurrence} task{'s' * (candidate.recurrence != 1)}"
    _field(out, "rule", f"{candidate.rule} — {tasks}, read {candidate.access_count}×")
    _field(out, "scope", candidate.scope if candidate.scope else '— (topic has no "@ scope"; the rule uses ".")')
    _field(out, "repo", memory.repo_id)
    _field(out, "tasks", ", ".join(candidate.tasks))
    if candidate.accessed_by:
        _field(out, "read by", ", ".join(candidate.accessed_by))
    group = Text(_ids(list(candidate.related_ids)), end="")
    count = len(candidate.related_ids)
    dismisses = "it" if count == 1 else "both" if count == 2 else f"all {count}"
    group.append(f"  (d dismisses {dismisses} once codified)", style="dim")
    _field(out, "group", group)
    out.append("\n")
    out.append("Rule text", style="bold")
    out.append("  c copies it; or select it below by hand", style="dim")
    return out
