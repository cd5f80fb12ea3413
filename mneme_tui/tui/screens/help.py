"""The help screen: every key of every mode, built from the bindings themselves so it stays complete."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from mneme_tui.tui.screens.base import mode_screens, screen_bindings
from mneme_tui.tui.screens.memory_detail import MemoryScreen
from mneme_tui.tui.screens.new_memory import NewMemoryScreen
from mneme_tui.tui.widgets.footer import KeyFooter

COMMON_KEYS = [
    ("↑ ↓ PgUp PgDn Home End", "move in lists and tables"),
    ("enter", "open / select"),
    ("tab / shift+tab", "move focus"),
    ("^p", "command palette: every action by name"),
    ("^q", "quit"),
]
DIALOG_KEYS = [
    ("y / n", "confirm / cancel in a confirmation dialog"),
    ("escape", "close a dialog, the help or a memory's detail"),
]


def _key_display(app: App, binding: Binding) -> str:
    keys = [k.strip() for k in binding.key.split(",")]
    shown = []
    for key in keys:
        shown.append(app.get_key_display(Binding(key, binding.action, binding.description)))
    return " / ".join(shown)


def help_table(app: App) -> Table:
    """A two-column table (key, what it does) grouped by mode."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()

    def section(title: str) -> None:
        if table.row_count:
            table.add_row(Text(""), Text(""))
        table.add_row(Text(title, style="bold underline"), Text(""))

    section("Everywhere")
    for mode in mode_screens(app):
        table.add_row(Text(mode.MODE_KEY), Text(f"{mode.MODE_TITLE}: {mode.MODE_DESCRIPTION}"))
    for binding in screen_bindings(type(app)):
        table.add_row(Text(_key_display(app, binding)), Text(binding.tooltip or binding.description))
    for key, text in COMMON_KEYS:
        table.add_row(Text(key), Text(text))
    def keys(bindings: list[Binding]) -> None:
        for binding in bindings:
            table.add_row(Text(_key_display(app, binding)), Text(binding.tooltip or binding.description))

    for mode in mode_screens(app):
        bindings = [b for b in screen_bindings(mode) if b.description]
        if not bindings:
            continue
        section(f"{mode.MODE_TITLE} ({mode.MODE_KEY})")
        if mode.HELP:
            table.add_row(Text(""), Text(mode.HELP, style="italic dim"))
        keys(bindings)
    section("Memory detail")
    keys(screen_bindings(MemoryScreen))
    section("New memory (n)")
    keys(screen_bindings(NewMemoryScreen))
    section("Dialogs")
    for key, text in DIALOG_KEYS:
        table.add_row(Text(key), Text(text))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog", classes="dialog"):
            yield Static(Text("mneme — keys (escape closes)", style="bold"), classes="dialog-title")
            yield Static(help_table(self.app), id="help-body")
        yield KeyFooter()

    def action_close(self) -> None:
        self.dismiss(None)
