"""The help screen: every key of every mode, built from the bindings themselves so it stays complete."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from mneme_tui.tui.keymap import keys_in_force
from mneme_tui.tui.screens.base import mode_screens, screen_bindings
from mneme_tui.tui.screens.memory_screen import MemoryScreen
from mneme_tui.tui.screens.new_memory import NewMemoryScreen
from mneme_tui.tui.widgets.footer import KeyFooter

COMMON_KEYS = [
    ("↑ ↓ PgUp PgDn Home End", "move in lists and tables"),
    ("enter", "open / select"),
    ("tab / shift+tab", "move focus"),
    ("^p", "command palette: every action by name"),
    ("^q", "quit"),
]
KEYS_NOTE = (
    "Change a key in the config file's [keys] table with the id on the right, e.g. "
    'recall.dismiss_result = "x" (several keys: "x,delete").'
)
DIALOG_KEYS = [
    ("y / n", "confirm / cancel in a confirmation dialog"),
    ("escape", "close a dialog, the help or a memory's detail"),
]


def _key_display(app: App, binding: Binding) -> str:
    """The keys that run ``binding`` now (the config file's ``[keys]`` applied), as the footer shows them."""
    keys = [k.strip() for k in keys_in_force(binding, getattr(app, "keys", {})).split(",")]
    return " / ".join(app.get_key_display(Binding(key, binding.action, binding.description)) for key in keys)


def keyed_screens(app: App) -> list[tuple[str, list[Binding]]]:
    """``(section title, bindings)`` for the app, each mode, the memory detail and the new-memory form."""
    sections = [("Everywhere", [b for b in screen_bindings(type(app)) if not b.action.startswith("mode(")])]
    for mode in mode_screens(app):
        sections.append((f"{mode.MODE_TITLE} ({mode.MODE_KEY})", [b for b in screen_bindings(mode) if b.description]))
    sections.append(("Memory detail", screen_bindings(MemoryScreen)))
    sections.append(("New memory (n)", screen_bindings(NewMemoryScreen)))
    return sections


def help_table(app: App) -> Table:
    """A table (keys in force, what they do, the binding's id for ``[keys]``) grouped by mode."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    table.add_column(style="dim", no_wrap=True)

    def row(binding: Binding, text: str = "") -> None:
        table.add_row(
            Text(_key_display(app, binding)),
            Text(text or binding.tooltip or binding.description),
            Text(binding.id or ""),
        )

    modes = {f"mode({mode.MODE_NAME!r})": mode for mode in mode_screens(app)}
    titles = {f"{mode.MODE_TITLE} ({mode.MODE_KEY})": mode for mode in mode_screens(app)}
    for title, bindings in keyed_screens(app):
        if title in titles and not bindings:
            continue
        if table.row_count:
            table.add_row(Text(""), Text(""))
        table.add_row(Text(title, style="bold underline"), Text(""))
        if title == "Everywhere":
            for binding in screen_bindings(type(app)):
                if binding.action in modes:
                    mode = modes[binding.action]
                    row(binding, f"{mode.MODE_TITLE}: {mode.MODE_DESCRIPTION}")
        elif title in titles and titles[title].HELP:
            table.add_row(Text(""), Text(titles[title].HELP, style="italic dim"))
        for binding in bindings:
            row(binding)
        if title == "Everywhere":
            for key, text in COMMON_KEYS:
                table.add_row(Text(key), Text(text))
    table.add_row(Text(""), Text(""))
    table.add_row(Text("Dialogs", style="bold underline"), Text(""))
    for key, text in DIALOG_KEYS:
        table.add_row(Text(key), Text(text))
    table.add_row(Text(""), Text(""))
    table.add_row(Text(""), Text(KEYS_NOTE, style="italic dim"))
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
