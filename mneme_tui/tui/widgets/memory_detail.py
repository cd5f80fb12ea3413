"""One memory in full: every field, why it was recalled, the score factors, its content and history."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from mneme_tui import display
from mneme_tui.memory.records import AuditEntry, Memory, ScoredMemory, actor_label
from mneme_tui.tui.markdown_text import readable_text
from mneme_tui.tui.text import KIND_STYLES, STATUS_STYLES, literal_text, stamp
from mneme_tui.tui.widgets.score_bars import component_legend, score_breakdown


def _field(out: Text, name: str, value: Text | str) -> None:
    out.append(f"{name:<11}", style="dim")
    out.append(value if isinstance(value, Text) else literal_text(value))
    out.append("\n")


def memory_text(
    memory: Memory,
    now: datetime,
    *,
    scored: ScoredMemory | None = None,
    history: Sequence[AuditEntry] | None = None,
    tasks: Sequence[str] | None = None,
    superseded_by: Memory | None = None,
    supersedes: Sequence[Memory] = (),
    created_by: str | None = None,
    bar_width: int = 14,
) -> Text:
    """The detail of ``memory`` as one literal Text (memory text is never parsed as markup); with
    ``superseded_by`` / ``supersedes``, the newer and older versions, each with the key that opens it; with
    ``created_by`` (and ``history``), who minted it (and who made each change)."""
    out = Text(end="")
    out.append(f"#{memory.id}", style="bold")
    out.append("  ")
    out.append(literal_text(memory.kind, KIND_STYLES.get(memory.kind, "") or "bold"))
    out.append("  ")
    out.append(literal_text(memory.status, STATUS_STYLES.get(memory.status, "")))
    if memory.superseded_by:
        out.append(f" by #{memory.superseded_by}", style="yellow")
    out.append("\n")
    _field(out, "topic", memory.topic)
    out.append("\n")
    out.append(readable_text(memory.content))
    out.append("\n\n")
    _field(out, "repo", memory.repo_id or "(none)")
    _field(out, "from", memory.from_line().removeprefix("From: "))
    created = f"{stamp(memory.created_at)} ({display.age(memory.created_at, now)} ago)"
    _field(out, "created", created if created_by is None else f"{created} by {actor_label(created_by)}")
    _field(out, "accessed", f"{memory.access_count}×")
    if memory.task_id:
        _field(out, "task", memory.task_id)
    if tasks:
        _field(out, "used by", ", ".join(tasks))
    if superseded_by is not None:
        _field(out, "newer", _version(superseded_by, ">"))
    for older in supersedes:
        _field(out, "older", _version(older, "<"))
    if scored is not None:
        _why(out, scored, bar_width)
    if history is not None:
        _history(out, history)
    return out


def _why(out: Text, scored: ScoredMemory, bar_width: int) -> None:
    """Why the memory was recalled: its reasons, the profile, and the score's factors as bars."""
    out.append("\n")
    out.append("why  ", style="dim")
    out.append(literal_text("; ".join(scored.reasons) or "ranked by the hybrid score", "italic"))
    out.append(f"   (profile {scored.profile})\n", style="dim")
    out.append(score_breakdown(scored.components, scored.score, profile=scored.profile, width=bar_width))
    out.append("\n")


def _history(out: Text, history: Sequence[AuditEntry]) -> None:
    """The memory's status changes, oldest first, each with its reason and who made it."""
    out.append("\n")
    out.append("history\n", style="bold")
    if not history:
        out.append("no status changes recorded\n", style="dim")
    for entry in history:
        out.append(f"{stamp(entry.at)}  ", style="dim")
        out.append(literal_text(entry.from_status, STATUS_STYLES.get(entry.from_status, "")))
        out.append(" → ")
        out.append(literal_text(entry.to_status, STATUS_STYLES.get(entry.to_status, "")))
        if entry.reason:
            out.append("  ")
            out.append(literal_text(entry.reason, "italic"))
        out.append("  by ", style="dim")
        out.append(literal_text(actor_label(entry.actor), "dim"))
        out.append("\n")


def _version(memory: Memory, key: str) -> Text:
    """``#12 first line…  (>)``: another version of a memory and the key that jumps to it."""
    out = Text(f"#{memory.id} ", style="bold")
    out.append(literal_text(display.one_line(memory.content, 60)))
    out.append(f"  ({key})", style="dim")
    return out


class MemoryDetail(VerticalScroll):
    """A scrollable pane showing one memory (or a calm placeholder)."""

    DEFAULT_CSS = """
    MemoryDetail { height: 1fr; padding: 0 1; }
    MemoryDetail > Static { width: 1fr; }
    """

    def __init__(self, placeholder: str = "Nothing selected.", **kwargs) -> None:
        super().__init__(**kwargs)
        self._placeholder = placeholder
        self.shown_id: int | None = None
        self._legend_profile: str | None = ""  # "" = not drawn yet

    def compose(self):
        yield Static(Text(self._placeholder, style="dim"), classes="detail-body")
        yield Static(classes="detail-legend")

    def show(self, body: Text, memory_id: int | None, *, legend_profile: str | None = None) -> None:
        """Show ``body``; with ``legend_profile``, also what that profile's score components mean."""
        if memory_id != self.shown_id:
            self.scroll_home(animate=False)
        self.shown_id = memory_id
        self.query_one(".detail-body", Static).update(body)
        self._legend(legend_profile)

    def clear(self, message: str | None = None) -> None:
        self.shown_id = None
        self.query_one(".detail-body", Static).update(Text(message or self._placeholder, style="dim"))
        self._legend(None)

    def _legend(self, profile: str | None) -> None:
        if profile == self._legend_profile:
            return  # unchanged: no re-render on every keystroke
        self._legend_profile = profile
        legend = self.query_one(".detail-legend", Static)
        legend.update(component_legend(profile) if profile else "")
        legend.display = profile is not None
