"""Small modal screens: pick one of several choices, and confirm an action."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from mneme_tui.tui.text import literal_text


class ChoiceScreen(ModalScreen[str | None]):
    """Choose one value from a list (enter picks, escape cancels). Dismisses with the value or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, choices: Sequence[tuple[str, str]], current: str | None = None) -> None:
        """``choices`` are ``(value, label)``; labels are shown literally."""
        super().__init__()
        self._title = title
        self._choices = list(choices)
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-dialog", classes="dialog"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            options = [
                Option(literal_text(label), id=f"choice-{index}") for index, (_, label) in enumerate(self._choices)
            ]
            yield OptionList(*options, id="choice-list")

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        values = [value for value, _ in self._choices]
        if self._current in values:
            option_list.highlighted = values.index(self._current)
        else:
            option_list.highlighted = 0
        option_list.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self._choices[event.option_index][0])

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """Ask a yes/no question; ``y``/enter on Yes confirms, ``n``/escape cancels."""

    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, title: str, body: Text, *, confirm_label: str = "Yes") -> None:
        super().__init__()
        self._title = title
        self._body = body
        self._confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Static(Text(self._title, style="bold"), classes="dialog-title")
            yield Static(self._body, id="confirm-body")
            with Horizontal(id="confirm-buttons"):
                yield Button(Text(f"{self._confirm_label} (y)"), id="confirm-yes", variant="warning")
                yield Button(Text("Cancel (n)"), id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
