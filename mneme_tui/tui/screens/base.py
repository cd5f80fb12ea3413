"""What every mode screen shares: header, mode bar, footer, and refreshing when the data changed."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.screen import Screen

from mneme_tui.tui.widgets.footer import KeyFooter
from mneme_tui.tui.widgets.header import AppHeader, ModeBar

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

    def mark_stale(self) -> None:
        """The data changed while this screen was not shown: reload when it is shown again."""
        self._stale = True

    def on_screen_resume(self) -> None:
        if self._stale:
            self._stale = False
            self.reload("resume")
