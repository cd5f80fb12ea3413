"""A line of clickable "chips" (filters, toggles): fixed labels, literal values, optional click action."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from textual.content import Content
from textual.style import Style
from textual.widgets import Static

from mneme_tui import display


@dataclass(frozen=True)
class Chip:
    label: str  # shown literally
    active: bool = False
    action: str | None = None  # e.g. "screen.status('active')"
    prefix: str = ""  # dim text before the chip, e.g. "kind"


def chips_content(items: Iterable[Chip | str]) -> Content:
    """The chips joined by spaces; a plain ``str`` item is a dim separator."""
    parts: list[Content] = []
    for item in items:
        if isinstance(item, str):
            parts.append(Content.styled(item, "dim"))
            continue
        if item.prefix:
            parts.append(Content.styled(item.prefix + " ", "dim"))
        piece = Content(f" {display.printable(item.label)} ".replace("\n", " "))
        if item.action:
            piece = piece.stylize(Style.from_meta({"@click": item.action}))
        piece = piece.stylize("bold reverse" if item.active else "underline")
        parts.append(piece)
        parts.append(Content(" "))
    return Content.assemble(*parts)


class ChipBar(Static):
    """A Static that shows chips; ``set_chips`` replaces them."""

    DEFAULT_CSS = """
    ChipBar { height: auto; width: 1fr; padding: 0 1; }
    """

    def set_chips(self, items: Iterable[Chip | str]) -> None:
        content = chips_content(items)
        if content != getattr(self, "_shown", None):  # unchanged chips cost nothing (search-as-you-type)
            self._shown = content
            self.update(content, layout=False)
