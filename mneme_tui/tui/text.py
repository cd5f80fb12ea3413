"""Untrusted memory text made safe for Textual: always literal, control characters made visible.

A ``str`` handed to a DataTable cell, ``Static``, ``Label`` or ``notify()`` is parsed as markup, so memory
content such as ``[/bold]`` or ``[@click=app.quit]`` would be lost, raise, or run an action. Everything
shown here goes through :func:`literal_text` (a ``rich.text.Text``) or :func:`content` (a textual ``Content``).
"""

from __future__ import annotations

from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual.content import Content

from mneme_tui import display

STATUS_STYLES = {"active": "green", "superseded": "yellow", "tombstoned": "red strike"}

KIND_STYLES = {
    "axiom": "bold magenta",
    "pitfall": "bold red",
    "pattern": "bold green",
    "decision": "cyan",
    "architecture": "cyan",
    "preference": "blue",
    "fact": "blue",
    "reflection": "",
}


def literal_text(value: object, style: str | Style = "") -> Text:
    """``value`` as a rich Text shown exactly as stored (newlines and tabs kept, controls as ``\\xNN``)."""
    return Text(display.printable(str(value)), style=style, end="")


def cell(value: object, style: str | Style = "", width: int | None = None) -> Text:
    """A one-line table cell: the first non-empty line of ``value``, literal, optionally cut to ``width``."""
    return Text(display.one_line(str(value), width), style=style, no_wrap=True, overflow="ellipsis", end="")


def content(value: object) -> Content:
    """``value`` as a textual Content (never parsed as markup)."""
    return Content(display.printable(str(value)))


def one_line(value: object, width: int | None = None) -> str:
    """Plain one-line text (for messages that are later wrapped in Content/Text)."""
    return display.one_line(str(value), width)


def status_cell(status: str) -> Text:
    return cell(status, STATUS_STYLES.get(status, ""))


def kind_cell(kind: str) -> Text:
    return cell(kind, KIND_STYLES.get(kind, ""))


def age_cell(created_at: datetime, now: datetime) -> Text:
    return Text(display.age(created_at, now), style="dim", justify="right", no_wrap=True, end="")


def stamp(moment: datetime) -> str:
    """``2026-03-01 14:05`` (naive UTC)."""
    return moment.strftime("%Y-%m-%d %H:%M")


def topic_content_cell(topic: str, content: str, width: int = 200) -> Text:
    """``Topic · first line of content`` in one cell (topic bold), literal and one line."""
    out = Text(display.one_line(topic, 24), style="bold", no_wrap=True, overflow="ellipsis", end="")
    out.append(" · ", style="dim")
    out.append(display.one_line(content, width))
    return out
