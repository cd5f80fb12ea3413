"""A memory in full with its audit history (opened with enter from the Memories list)."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from mneme_tui import config
from mneme_tui.errors import MnemeError
from mneme_tui.tui.widgets.memory_detail import MemoryDetail, memory_text
from mneme_tui.tui.widgets.footer import KeyFooter


class MemoryScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,enter", "close", "Close")]

    def __init__(self, memory_id: int) -> None:
        super().__init__()
        self.memory_id = memory_id

    def compose(self) -> ComposeResult:
        with Vertical(id="memory-dialog", classes="dialog"):
            yield Static(Text(f"Memory #{self.memory_id}", style="bold"), classes="dialog-title")
            yield MemoryDetail("Loading…", id="memory-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(MemoryDetail).focus()
        self.load()

    @work(thread=True, exclusive=True, group="memory-detail", exit_on_error=False)
    def load(self) -> None:
        ctx = self.app.ctx  # type: ignore[attr-defined]
        try:
            with ctx.session() as store:
                memory = store.get(self.memory_id)
                history = store.history(self.memory_id)
                tasks = store.task_ids_for(self.memory_id)
        except MnemeError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        body = memory_text(memory, config.now(), history=history, tasks=tasks)
        self.app.call_from_thread(self.query_one(MemoryDetail).show, body, memory.id)

    def _failed(self, message: str) -> None:
        self.query_one(MemoryDetail).clear(message)

    def action_close(self) -> None:
        self.dismiss(None)
