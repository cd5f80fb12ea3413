"""What every mode screen shares: header, mode bar, footer, and refreshing when the data changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual.app import App, ComposeResult
from textual.binding import Binding
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
    MODE_KEY: ClassVar[str] = ""  # the key that shows this mode (also in the mode bar)
    MODE_TITLE: ClassVar[str] = ""
    MODE_DESCRIPTION: ClassVar[str] = ""  # one line for the help screen and the command palette
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
        yield ModeBar(self.MODE_NAME, [(m.MODE_NAME, m.MODE_KEY, m.MODE_TITLE) for m in mode_screens(self.app)])
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


def mode_screens(app: App) -> list[type[ModeScreen]]:
    """The app's modes in order: the ModeScreen classes of its ``MODES``."""
    return [screen for screen in app.MODES.values() if isinstance(screen, type) and issubclass(screen, ModeScreen)]


def screen_bindings(screen_class: type) -> list[Binding]:
    """The Binding objects declared on a screen (or app) class (not inherited defaults)."""
    found = []
    for item in getattr(screen_class, "BINDINGS", []):
        if isinstance(item, Binding):
            found.append(item)
        elif isinstance(item, tuple):
            found.append(Binding(*item))
    return found
