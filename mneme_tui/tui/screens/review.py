"""Review: what the store proposes to merge, supersede, re-check or dismiss, best first; a person decides.

The list is ``memory.curation.proposals.open_proposals`` (duplicate, conflict, stale, cold). The highlighted
proposal's evidence, suggested action and memories are shown literally in the detail pane. ``a`` accepts
(``review.decide_many``: the store's audited supersede or dismiss, reason ``review: …``), ``x`` rejects
(never proposed again while its memories are unchanged). ``space`` marks proposals; ``a``/``x`` then decide
all the marked ones, in one transaction, after a confirmation. ``u`` undoes this screen's last decision
(``review.undo``: an accept's status changes are put back, a rejection is forgotten).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.widgets import DataTable, Static

from mneme_tui import config
from mneme_tui.memory.curation.proposals import Proposal, open_proposals
from mneme_tui.memory.curation.review import Decision, decide_many
from mneme_tui.memory.curation.review import undo as undo_decision
from mneme_tui.memory.records import Memory
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.base import ModeScreen, write_in_worker
from mneme_tui.tui.screens.dialogs import ConfirmScreen
from mneme_tui.tui.screens.memory_screen import MemoryScreen
from mneme_tui.tui.text import KIND_STYLES, STATUS_STYLES, cell, literal_text, one_line
from mneme_tui.tui.widgets.chips import Chip, ChipBar
from mneme_tui.tui.widgets.paged_table import PagedTable

SHOWN_LIMIT = 500
"""The most proposals listed at once (deciding some brings the next ones in)."""
CONFIRM_LISTED = 8
"""The most marked proposals a bulk confirmation names one by one."""
EMPTY_MESSAGE = (
    "No open proposals: nothing to merge, re-check or retire here. A rejected proposal stays "
    "rejected while its memories are unchanged; r shows every repo."
)
KIND_CELL_STYLES = {"duplicate": "bold yellow", "conflict": "bold red", "stale": "bold blue", "cold": "cyan"}
VERBS = {"accept": ("Accept", "Accepted"), "reject": ("Reject", "Rejected")}


@dataclass(frozen=True)
class ProposalList:
    """What the screen shows: the open proposals (at most SHOWN_LIMIT of ``total``) and their memories."""

    all_repos: bool
    proposals: tuple[Proposal, ...]
    total: int
    memories: dict[int, Memory]


@dataclass(frozen=True)
class Outcome:
    """One ``a`` or ``x``: the decision and the proposals it was made on (``u`` undoes them together)."""

    decision: str
    decisions: tuple[Decision, ...]


class ReviewScreen(ModeScreen):
    MODE_NAME = "review"
    MODE_KEY = "6"
    MODE_TITLE = "Review"
    MODE_DESCRIPTION = "Proposals to merge, supersede, re-check or dismiss"
    HELP = (
        "The store proposes, you decide: a accepts the suggested action (audited, undoable), x rejects it "
        "for good; space marks proposals for one decision, u undoes the last one."
    )
    BINDINGS = [
        Binding(
            "a",
            "decide('accept')",
            "Accept",
            tooltip="Accept the highlighted proposal (or, after a confirmation, the marked ones): run its action",
        ),
        Binding(
            "x",
            "decide('reject')",
            "Reject",
            tooltip="Reject the highlighted (or marked) proposal: not proposed again while its memories are unchanged",
        ),
        Binding("space", "mark", "Mark", tooltip="Mark or unmark the highlighted proposal for a bulk decision"),
        Binding("u", "undo", "Undo", tooltip="Undo the last decision made here (an accept's changes are put back)"),
        Binding("r", "toggle_scope", "Repo scope", tooltip="This repo or all repos"),
        Binding(
            "enter",
            "open_detail",
            "Memory",
            show=False,
            tooltip="Open the highlighted proposal's first memory with its audit history",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.all_repos = False
        self.shown: ProposalList | None = None
        self.marked: set[str] = set()
        self.undo_stack: list[tuple[Decision, ...]] = []
        self._rows: dict[str, Proposal] = {}

    # ----------------------------------------------------------------- layout
    def compose_body(self) -> ComposeResult:
        yield ChipBar(id="review-filters")
        yield Static(Text(EMPTY_MESSAGE), id="review-empty", classes="calm")
        with Container(id="review-body"):
            yield PagedTable(id="review-table")
            with VerticalScroll(id="review-detail"):
                yield Static(id="review-facts")

    def on_mount(self) -> None:
        table = self.query_one("#review-table", PagedTable)
        table.setup_columns(
            [
                ("kind", "kind", 11),
                ("action", "action", 9),
                ("score", "score", 5),
                ("memories", "memories", 18),
                ("reason", "reason", None),
            ]
        )
        self.query_one("#review-empty").display = False
        table.focus()
        self._show_filters()
        self.reload("mount")

    # ------------------------------------------------------------------- data
    def reload(self, reason: str = "") -> None:
        """Fetch the open proposals again; the cursor stays on the same proposal (or the same row)."""
        table = self.query_one("#review-table", PagedTable)
        keep, row = (None, 0) if reason == "scope" else (table.cursor_key, table.cursor_row)
        all_repos = self.all_repos
        self.fetch_in_worker(lambda: self._load(all_repos), lambda shown: self._show(shown, keep, row))

    def _scope(self, all_repos: bool) -> tuple[str | None, Path | None]:
        """The repo to review (None: every repo) and the git work tree the stale kind reads: the project's
        (the Legion folder's, else the current folder's) when the active repo is named after it."""
        root = config.find_git_root(self.ctx.legion_dir)
        if root is not None and root.name != self.ctx.repo:
            root = None  # another repository's work tree: its files say nothing about this repo's memories
        return (None if all_repos else self.ctx.repo), root

    def _load(self, all_repos: bool) -> ProposalList:
        """The open proposals and the memories they name, in a worker thread."""
        repo, root = self._scope(all_repos)
        with self.ctx.session() as store:
            found = open_proposals(store, repo, root=root)
            shown = tuple(found[:SHOWN_LIMIT])
            memories = store.get_many(sorted({i for proposal in shown for i in proposal.memory_ids}))
        return ProposalList(all_repos, shown, len(found), memories)

    def _show(self, shown: ProposalList, keep: str | None, fallback_row: int | None) -> None:
        self.shown = shown
        self._rows = {proposal.id: proposal for proposal in shown.proposals}
        self.marked &= set(self._rows)
        table = self.query_one("#review-table", PagedTable)
        table.show_rows([(key, self._cells(p)) for key, p in self._rows.items()], keep=keep, fallback_row=fallback_row)
        empty = not shown.proposals
        self.query_one("#review-empty").display = empty
        self.query_one("#review-body").display = not empty
        if not empty and self.focused is None:  # the table was hidden while the list was empty
            table.focus()
        self._show_filters()
        self._show_detail()

    def _cells(self, proposal: Proposal) -> list[Text]:
        return [
            self._kind_cell(proposal),
            cell(proposal.action, "bold"),
            Text(f"{proposal.score:.2f}", justify="right", no_wrap=True, end=""),
            cell(_ids(proposal.memory_ids), "dim"),
            cell(proposal.reason),
        ]

    def _kind_cell(self, proposal: Proposal) -> Text:
        """The kind, with a ● in front when the proposal is marked."""
        out = Text(no_wrap=True, end="")
        if proposal.id in self.marked:
            out.append("● ", style="bold yellow")
        out.append(proposal.kind, style=KIND_CELL_STYLES.get(proposal.kind, ""))
        return out

    def _show_filters(self) -> None:
        scope = "all repos" if self.all_repos else one_line(self.ctx.repo)
        shown = self.shown
        if shown is None:
            summary = "loading…"
        elif not shown.total:
            summary = "no open proposals"
        else:
            counts: dict[str, int] = {}
            for proposal in shown.proposals:
                counts[proposal.kind] = counts.get(proposal.kind, 0) + 1
            listed = (
                f"{len(shown.proposals):,} of {shown.total:,}"
                if shown.total > len(shown.proposals)
                else (f"{shown.total:,}")
            )
            summary = f"{listed} open: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())
        marked = f"  {len(self.marked)} marked" if self.marked else ""
        self.query_one("#review-filters", ChipBar).set_chips(
            [Chip(scope, action="screen.toggle_scope", prefix="scope"), f"  {summary}{marked}"]
        )

    # ----------------------------------------------------------------- detail
    @on(DataTable.RowHighlighted, "#review-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail()

    def _cursor_proposal(self) -> Proposal | None:
        key = self.query_one("#review-table", PagedTable).cursor_key
        return self._rows.get(key) if key is not None else None

    def _show_detail(self) -> None:
        proposal = self._cursor_proposal()
        facts = self.query_one("#review-facts", Static)
        if proposal is None or self.shown is None:
            facts.update(Text("No proposal selected.", style="dim"))
            return
        facts.update(proposal_text(proposal, self.shown.memories))

    @on(DataTable.RowSelected, "#review-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_detail()

    def action_open_detail(self) -> None:
        proposal = self._cursor_proposal()
        if proposal is not None:
            self.app.push_screen(MemoryScreen(proposal.keep_id or proposal.memory_ids[0]))

    # ------------------------------------------------------------------ keys
    def action_toggle_scope(self) -> None:
        self.all_repos = not self.all_repos
        self.shown = None
        self.marked.clear()
        self._show_filters()
        self.reload("scope")

    def action_mark(self) -> None:
        proposal = self._cursor_proposal()
        if proposal is None:
            return
        self.marked ^= {proposal.id}
        table = self.query_one("#review-table", PagedTable)
        table.set_cell(proposal.id, "kind", self._kind_cell(proposal))
        table.action_cursor_down()
        self._show_filters()

    def action_decide(self, decision: str) -> None:
        """Decide the highlighted proposal at once, or the marked ones after a confirmation."""
        marked = [key for key in self._rows if key in self.marked]
        if not marked:
            proposal = self._cursor_proposal()
            if proposal is not None:
                self._write_decisions([proposal.id], decision)
            return
        verb = VERBS[decision][0]
        title = f"{verb} {len(marked)} marked proposal{'s' * (len(marked) != 1)}?"

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._write_decisions(marked, decision)

        self.app.push_screen(ConfirmScreen(title, self._confirm_body(marked, decision), confirm_label=verb), answered)

    def _confirm_body(self, keys: list[str], decision: str) -> Text:
        body = Text(end="")
        for key in keys[:CONFIRM_LISTED]:
            proposal = self._rows[key]
            body.append(f"{proposal.kind:<10}", style=KIND_CELL_STYLES.get(proposal.kind, ""))
            body.append(f"{proposal.action:<10}{_ids(proposal.memory_ids)}\n")
        if len(keys) > CONFIRM_LISTED:
            body.append(f"… and {len(keys) - CONFIRM_LISTED} more\n", style="dim")
        body.append(
            "\nAccepting runs each suggested action (audited; u undoes)."
            if decision == "accept"
            else "\nRejected proposals are not proposed again while their memories are unchanged.",
            style="dim",
        )
        return body

    def _write_decisions(self, keys: list[str], decision: str) -> None:
        table = self.query_one("#review-table", PagedTable)
        for key in keys:  # show it at once; the write follows in a worker
            table.set_cell(key, "action", Text(f"{decision}ing", style="italic dim", end=""))
        repo, root = self._scope(self.all_repos)

        def write(store: Store) -> Outcome:
            return Outcome(decision, tuple(decide_many(store, keys, decision, repo=repo, root=root)))

        write_in_worker(self, write, self._decided, self._failed, group="review-write")

    def _decided(self, outcome: Outcome) -> None:
        self.marked.clear()
        self.undo_stack.append(outcome.decisions)
        changed = sorted({i for d in outcome.decisions for i in d.change.ids})
        count = len(outcome.decisions)
        what = f"{VERBS[outcome.decision][1]} {count} proposal{'s' * (count != 1)}"
        effect = f": {len(changed)} memor{'ies' if len(changed) != 1 else 'y'} changed" if changed else ""
        self.mneme.say(f"{what}{effect} — press u to undo.")
        self.reload("decided")

    def _failed(self, message: str) -> None:
        self.mneme.say(message, "error")
        self.reload("failed")

    def action_undo(self) -> None:
        if not self.undo_stack:
            self.mneme.say("Nothing to undo.")
            return
        batch = self.undo_stack.pop()

        def write(store: Store) -> list[Decision]:
            return [undo_decision(store, decision.record.proposal_id) for decision in reversed(batch)]

        def done(undone: list[Decision]) -> None:
            restored = sorted({i for d in undone for i in d.change.ids})
            count = len(undone)
            effect = f"; restored {_ids(restored)}" if restored else ""
            self.mneme.say(f"Undid {count} decision{'s' * (count != 1)}{effect}.")
            self.reload("undo")

        def failed(message: str) -> None:
            self.undo_stack.append(batch)
            self._failed(f"Undo failed: {message}")

        write_in_worker(self, write, done, failed, group="review-write")


def suggested_action(proposal: Proposal) -> str:
    """What accepting the proposal does, in words."""
    rest = [i for i in proposal.memory_ids if i != proposal.keep_id]
    others = _ids(rest)
    if proposal.action == "merge" and proposal.keep_id is not None:
        return f"merge: keep #{proposal.keep_id}; {others} {'becomes' if len(rest) == 1 else 'become'} superseded by it"
    if proposal.action == "supersede" and proposal.keep_id is not None:
        return f"supersede: #{proposal.keep_id} supersedes {others}; or reject to keep both"
    if proposal.action == "recheck":
        return f"re-check the code it names: accept dismisses {others}, reject keeps it"
    return f"{proposal.action}: accept dismisses {others}, reject keeps it"


def proposal_text(proposal: Proposal, memories: dict[int, Memory]) -> Text:
    """A proposal's kind, evidence, suggested action and memories, as literal Text."""
    out = Text(end="")
    out.append(proposal.kind, style=KIND_CELL_STYLES.get(proposal.kind, "bold"))
    out.append(f"  score {proposal.score:.2f}  proposal {proposal.id}", style="dim")
    if proposal.repo_id:
        out.append(f"  repo {one_line(proposal.repo_id, 30)}", style="dim")
    out.append("\n")
    _field(out, "evidence", literal_text(proposal.reason, "italic"))
    _field(out, "action", literal_text(suggested_action(proposal), "bold"))
    for memory_id in proposal.memory_ids:
        memory = memories.get(memory_id)
        out.append("\n")
        out.append(f"#{memory_id}", style="bold")
        if memory_id == proposal.keep_id:
            out.append("  keep", style="bold green")
        if memory is None:
            out.append("  (no longer in the store)\n", style="dim")
            continue
        out.append("  ")
        out.append(literal_text(memory.kind, KIND_STYLES.get(memory.kind, "")))
        out.append("  ")
        out.append(literal_text(memory.status, STATUS_STYLES.get(memory.status, "")))
        out.append(f"  {memory.created_at:%Y-%m-%d}  read {memory.access_count}×  ", style="dim")
        out.append(literal_text(one_line(memory.topic, 40), "bold"))
        out.append("\n")
        out.append(literal_text(memory.content.rstrip("\n")))
        out.append("\n")
    return out


def _field(out: Text, name: str, value: Text) -> None:
    out.append(f"{name:<9}", style="dim")
    out.append(value)
    out.append("\n")


def _ids(ids) -> str:
    return " ".join(f"#{i}" for i in ids)
