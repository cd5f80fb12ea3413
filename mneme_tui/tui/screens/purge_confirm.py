"""The purge confirmation (``P`` in a memory's detail): names the memory and asks for the word ``purge``."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from mneme_tui.memory.records import Memory

CONFIRM_WORD = "purge"


class PurgeConfirmScreen(ModalScreen[bool]):
    """Confirm a purge by typing ``purge`` and enter; escape (or any other word) cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, memory: Memory) -> None:
        super().__init__()
        self.memory = memory

    def compose(self) -> ComposeResult:
        memory = self.memory
        with Vertical(id="purge-dialog", classes="dialog"):
            yield Static(Text(f"Purge memory #{memory.id}?", style="bold"), classes="dialog-title")
            yield Static(
                Text(
                    f"#{memory.id} ({memory.kind}, {memory.status}, repo {memory.repo_id}) loses its text for good: "
                    "the database, its write-ahead log, the index snapshot and the caches keep no byte of it. The row "
                    "stays, tombstoned, with an audit entry holding the text's SHA-256. This cannot be undone.\n\n"
                    f"Type {CONFIRM_WORD} and press enter to purge it; escape cancels."
                ),
                id="purge-body",
            )
            yield Input(placeholder=CONFIRM_WORD, id="purge-word", compact=True)

    def on_mount(self) -> None:
        self.query_one("#purge-word", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() == CONFIRM_WORD)

    def action_cancel(self) -> None:
        self.dismiss(False)
