"""The new-memory form (``n`` from any screen): content, topic, an advisory kind and the repo."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from mneme_tui.errors import ERR_SECRET
from mneme_tui.memory import kinds as K
from mneme_tui.memory import secrets
from mneme_tui.memory.records import TUI, Memory
from mneme_tui.tui.keymap import with_ids
from mneme_tui.tui.screens.base import write_in_worker
from mneme_tui.tui.text import literal_text
from mneme_tui.tui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from mneme_tui.memory.curation.same_text import TextMatch
    from mneme_tui.tui.app import MnemeApp


class NewMemoryScreen(ModalScreen[Memory | None]):
    """Save an advisory memory. The store validates it: an error shows in the form and nothing is saved.
    Dismisses with the saved memory, or None when cancelled."""

    BINDINGS = with_ids(
        "new_memory",
        [
            Binding("ctrl+s", "save", "Save", priority=True, tooltip="Save the memory"),
            Binding("escape", "cancel", "Cancel", tooltip="Close the form without saving"),
            Binding(
                "ctrl+r",
                "save(True)",
                "Save redacted",
                priority=True,
                show=False,
                tooltip="Save with each secret found replaced by [REDACTED:<type>]",
            ),
            Binding(
                "ctrl+a",
                "select_all",
                "Select all",
                show=False,
                priority=True,
                tooltip="Select all the text of the focused field (home goes to the line start)",
            ),
        ],
    )

    def __init__(self, repo: str) -> None:
        super().__init__()
        self.repo = repo
        self.saving = False
        self.known_repos: tuple[str, ...] = ()

    @property
    def mneme(self) -> MnemeApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Vertical(id="new-memory-dialog", classes="dialog"):
            yield Static(Text("New memory", style="bold"), classes="dialog-title")
            yield Label("Content")
            yield TextArea(id="new-content", soft_wrap=True)
            with Horizontal(id="new-fields"):
                with Vertical():
                    yield Label("Topic")
                    yield Input(placeholder="General", id="new-topic", compact=True)
                with Vertical():
                    yield Label("Kind")
                    yield Select(
                        [(kind, kind) for kind in K.ADVISORY_KINDS],
                        value="reflection",
                        allow_blank=False,
                        id="new-kind",
                        compact=True,
                    )
                with Vertical():
                    yield Label("Repo")
                    yield Input(value=self.repo, id="new-repo", compact=True)
            yield Static(id="new-repo-note")
            yield Static(id="new-error")
            with Horizontal(id="new-buttons"):
                yield Button(Text("Save (ctrl+s)"), id="new-save", variant="primary")
                yield Button(Text("Cancel (esc)"), id="new-cancel")
        yield KeyFooter()

    def on_mount(self) -> None:
        area = self.query_one("#new-content", TextArea)
        area.cursor_blink = self.mneme.cursor_blink
        for field in self.query(Input):
            field.cursor_blink = self.mneme.cursor_blink
        area.focus()
        self._load_repos()

    @work(thread=True, group="new-memory-repos", exit_on_error=False)
    def _load_repos(self) -> None:
        """The repos the store knows, for the repo field's suggestions and its "new repo" note."""
        with self.mneme.ctx.session() as store:
            repos = tuple(store.repos())
        self.app.call_from_thread(self._show_repos, repos)

    def _show_repos(self, repos: tuple[str, ...]) -> None:
        self.known_repos = tuple(dict.fromkeys([self.repo, *repos]))
        self.query_one("#new-repo", Input).suggester = SuggestFromList(self.known_repos, case_sensitive=True)
        self._note_repo()

    @on(Input.Changed, "#new-repo")
    def _note_repo(self) -> None:
        """Say when the repo typed is one no memory has yet (a save creates it), and which ones exist."""
        repo = self.query_one("#new-repo", Input).value.strip() or self.repo
        note = Text("")
        if self.known_repos and repo not in self.known_repos:
            note = literal_text(
                f"new repo {repo!r}: saving creates it (known: {', '.join(self.known_repos[:6])}"
                f"{', …' if len(self.known_repos) > 6 else ''}; → completes)",
                "yellow",
            )
        shown = self.query_one("#new-repo-note", Static)
        shown.update(note)
        shown.display = bool(note.plain)

    @on(TextArea.Changed)
    @on(Input.Changed)
    def _clear_error(self) -> None:
        """An error about what was typed goes as soon as the person changes it."""
        self.query_one("#new-error", Static).update("")

    def action_select_all(self) -> None:
        focused = self.focused
        if isinstance(focused, TextArea | Input):
            focused.select_all()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "new-save":
            self.action_save()
        else:
            self.action_cancel()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_save(self, redact: bool = False) -> None:
        """Save in a worker; the store checks the fields (empty content, kind, length, repo) and refuses a
        secret (ERR_SECRET) unless ``redact``."""
        if self.saving:
            return
        content = self.query_one("#new-content", TextArea).text
        topic = self.query_one("#new-topic", Input).value.strip() or "General"
        kind = str(self.query_one("#new-kind", Select).value)
        repo = self.query_one("#new-repo", Input).value.strip() or self.repo
        self.saving = True
        policy = secrets.REDACT if redact else None
        write_in_worker(
            self,
            lambda store: store.save_checked(
                content, kind=kind, topic=topic, repo_id=repo, source=TUI, secrets_policy=policy
            ),
            self._saved,
            self._failed,
            group="new-memory",
        )

    def _saved(self, saved: tuple[Memory, TextMatch]) -> None:
        """Close with the new memory; a text that is already a memory stored nothing: say so in the form."""
        memory, match = saved
        self.saving = False
        if match.duplicate_of is not None:
            self.query_one("#new-error", Static).update(literal_text(match.notice(), "bold red"))
            return
        if self.known_repos and memory.repo_id not in self.known_repos:
            self.mneme.say(f"Created the new repo {memory.repo_id!r} with #{memory.id}.")
        self.dismiss(memory)

    def _failed(self, message: str) -> None:
        self.saving = False
        hint = " (here: ctrl+r saves it redacted)" if message.startswith(ERR_SECRET) else ""
        self.query_one("#new-error", Static).update(literal_text(f"Not saved: {message}{hint}", "bold red"))
