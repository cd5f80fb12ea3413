"""What every mode screen shares: header, mode bar, footer, and refreshing when the data changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual.app import ComposeResult
from textual.screen import Screen

from mneme_tui.errors import MnemeError
from mneme_tui.tui.widgets.footer import KeyFooter
from mneme_tui.tui.widgets.header import AppHeader, ModeBar

T = TypeVar("T")

if TYPE_CHECKING:
    from mneme_tui.tui.app import MnemeApp
    from mneme_tui.tui.context import AppContext


class ModeScreen(Screen):
    """A mode's screen. Subclasses implement ``compose_body`` and ``reload``.

    ``reload(reason)`` fetches the data again in a worker and updates the widgets in place, keeping the
    cursor where it was; the app calls it when the database or the Legion files change.
    """

    MODE_NAME: ClassVar[str] = ""
    HELP: ClassVar[str] = ""

    def __init__(self) -> None:
        super().__init__()
        self._stale = False
        self.generation = 0

    @property
    def mneme(self) -> "MnemeApp":
        return self.app  # type: ignore[return-value]

    @property
    def ctx(self) -> "AppContext":
        return self.mneme.ctx

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield ModeBar(self.MODE_NAME)
        yield from self.compose_body()
        yield KeyFooter()

    def on_mount(self) -> None:
        self.mneme.register_mode_screen(self.MODE_NAME, self)

    def compose_body(self) -> ComposeResult:
        return iter(())

    def reload(self, reason: str = "") -> None:
        """Fetch this screen's data again (override)."""

    def fetch_in_worker(self, load: Callable[[], T], show: Callable[[T], None]) -> None:
        """Run ``load`` in a thread worker (one at a time per screen) and ``show`` its result on the UI
        thread, unless a newer fetch started meanwhile; a MnemeError becomes a toast."""
        self.generation += 1
        generation = self.generation

        def work() -> None:
            try:
                data = load()
            except MnemeError as exc:
                self.app.call_from_thread(self.mneme.say, str(exc), "error")
                return
            if generation == self.generation:
                self.app.call_from_thread(show, data)

        self.run_worker(work, thread=True, exclusive=True, group=self.MODE_NAME, exit_on_error=False)

    def mark_stale(self) -> None:
        """The data changed while this screen was not shown: reload when it is shown again."""
        self._stale = True

    def on_screen_resume(self) -> None:
        if self._stale:
            self._stale = False
            self.reload("resume")
