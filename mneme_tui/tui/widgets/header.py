"""The two top lines of every screen: the app header (repo, database, Legion folder) and the mode bar."""

from __future__ import annotations

from pathlib import Path

from textual.app import RenderResult
from textual.content import Content
from textual.style import Style
from textual.widget import Widget

from mneme_tui import display


def shorten_path(path: Path | str, width: int) -> str:
    """``path`` cut from the left with ``…`` to fit ``width`` characters (home shown as ``~``)."""
    text = str(path)
    home = str(Path.home())
    if home not in ("/", "") and text.startswith(home + "/"):
        text = "~" + text[len(home) :]
    if width <= 1:
        return "…" if text else ""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


class AppHeader(Widget):
    """``mneme · repo X · db PATH · legion PATH`` — every value shown literally."""

    DEFAULT_CSS = """
    AppHeader { height: 1; background: $panel; color: $foreground; }
    """

    def render(self) -> RenderResult:
        ctx = self.app.ctx  # type: ignore[attr-defined]
        width = max(20, self.size.width)
        repo = display.printable(ctx.repo).replace("\n", " ")
        parts: list[Content | tuple[str, str]] = [(" mneme", "bold $accent")]
        if ctx.demo:
            parts.append((" demo", "bold $warning"))
        if ctx.read_only:
            parts.append((" read-only", "bold $warning"))
        parts += [("  repo ", "dim"), (repo, "bold")]
        used = sum(len(p[0]) if isinstance(p, tuple) else len(p.plain) for p in parts)
        legion = ctx.legion_dir
        room = max(8, width - used - 6 - (9 if legion else 0))
        db_room = room if legion is None else max(8, min(len(str(ctx.db_path)), room * 3 // 5))
        parts += [("  db ", "dim"), (display.printable(shorten_path(ctx.db_path, db_room)), "")]
        if legion is not None:
            parts += [("  legion ", "dim"), (display.printable(shorten_path(legion, max(8, room - db_room))), "")]
        return Content.assemble(*parts)


class ModeBar(Widget):
    """The modes as clickable tabs (``1 Recall  2 Memories …``), the active one highlighted."""

    DEFAULT_CSS = """
    ModeBar { height: 1; background: $boost; link-style: none; link-style-hover: reverse; }
    """

    def __init__(self, active: str, modes: list[tuple[str, str, str]], **kwargs) -> None:
        """``modes``: ``(name, key, title)`` of every mode, in order; ``active`` names the highlighted one."""
        super().__init__(**kwargs)
        self.active = active
        self.modes = modes

    def render(self) -> RenderResult:
        parts: list[Content] = []
        for name, key, title in self.modes:
            label = f" {key} {title} "
            piece = Content(label).stylize(Style.from_meta({"@click": f"app.mode({name!r})"}))
            if name == self.active:
                piece = piece.stylize("bold reverse")
            parts.append(piece)
            parts.append(Content(" "))
        room = self.size.width - sum(part.cell_length for part in parts)
        hint = next((h for h in ("  ? help  ^p commands", "  ? help  ^p", "  ?  ^p") if len(h) <= room), "")
        parts.append(Content.styled(hint, "dim"))
        return Content.assemble(*parts)
