"""A one-line footer of the active key bindings, rendered as a single line of text.

Textual's ``Footer`` builds one widget per key and rebuilds them on every focus or screen change,
which costs tens of milliseconds each time; this renders the same information as one line. Keys are
clickable (they simulate the key press).
"""

from __future__ import annotations

from textual.app import RenderResult
from textual.content import Content
from textual.style import Style
from textual.widget import Widget


class KeyFooter(Widget):
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        link-style: none;
        link-style-hover: reverse;
    }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def _bindings_changed(self, screen) -> None:
        if self.is_attached and screen is self.screen:
            self.refresh()

    def render(self) -> RenderResult:
        keys: list[tuple[Content, Content]] = []
        seen: set[str] = set()
        palette_key = self.app.COMMAND_PALETTE_BINDING
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if not binding.show or binding.action in seen or key == palette_key:
                continue
            seen.add(binding.action)
            shown = self.app.get_key_display(binding)
            click = Style.from_meta({"@click": f"app.simulate_key({key!r})"})
            style = "bold $footer-key-foreground" if active.enabled else "dim"
            keys.append(
                (
                    Content(shown).stylize(style).stylize(click),
                    Content(binding.description).stylize(click).stylize("" if active.enabled else "dim"),
                )
            )
        # narrow terminals: first the palette hint loses its word, then the gaps shrink, then the line is cut
        for gap, hint_label in ((" ", " palette "), (" ", " "), ("", " ")):
            hint = Content.assemble((" ^p", "bold $footer-key-foreground"), (hint_label, ""))
            line = Content.assemble(*(part for shown, text in keys for part in (gap, shown, " ", text, " ")))
            room = self.size.width - hint.cell_length
            if line.cell_length <= room:
                break
        if line.cell_length > room:
            line = line.truncate(max(0, room - 1), ellipsis=True)
        padding = Content(" " * max(0, room - line.cell_length))
        return Content.assemble(line, padding, hint.stylize(Style.from_meta({"@click": "app.command_palette"})))
