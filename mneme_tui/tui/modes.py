"""The registry of app modes (one screen each): name, key, title and the screen class to build.

Adding a mode (e.g. Graduation) is one entry here plus its module in ``screens/`` (a ``ModeScreen``
subclass) and its ``styles/<name>.tcss``: the app adds every registered mode at start, loads its
stylesheet, binds its key, and lists it in the mode bar, the help screen and the command palette.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from textual.screen import Screen


@dataclass(frozen=True)
class Mode:
    name: str
    key: str
    title: str
    description: str
    screen: str  # "package.module:ClassName", imported when the mode is first shown
    stylesheet: str = ""  # its file in styles/ (loaded with the app's, once, at start)

    def factory(self) -> Callable[[], Screen]:
        module_name, _, class_name = self.screen.partition(":")

        def build() -> Screen:
            return getattr(importlib.import_module(module_name), class_name)()

        return build


MODES: list[Mode] = [
    Mode("recall", "1", "Recall", "Search memories with the hybrid ranking", "mneme_tui.tui.screens.recall:RecallScreen",
         "recall.tcss"),
    Mode("memories", "2", "Memories", "Browse, filter and dismiss memories", "mneme_tui.tui.screens.memories:MemoriesScreen",
         "memories.tcss"),
    Mode("briefing", "3", "Briefing", "What an agent is told: Legion briefing and agent scores", "mneme_tui.tui.screens.briefing:BriefingScreen",
         "briefing.tcss"),
    Mode("prune", "4", "Prune", "Preview and apply the Legion outcome prune", "mneme_tui.tui.screens.prune:PruneScreen",
         "prune.tcss"),
    Mode("graduation", "5", "Graduation", "Pitfalls ready to codify as policy rules",
         "mneme_tui.tui.screens.graduation:GraduationScreen", "graduation.tcss"),
]
DEFAULT_MODE = "recall"


def registered_modes() -> list[Mode]:
    return list(MODES)


def register_mode(mode: Mode) -> None:
    """Add a mode (before the app starts); a mode with the same name is replaced."""
    for position, existing in enumerate(MODES):
        if existing.name == mode.name:
            MODES[position] = mode
            return
    MODES.append(mode)
