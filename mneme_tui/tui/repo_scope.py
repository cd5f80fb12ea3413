"""How a screen names the repos it shows."""

from __future__ import annotations

from mneme_tui import display
from mneme_tui.config import GLOBAL_REPO


def scope_label(repo: str | None, *, with_global: bool = True) -> str:
    """``all repos`` (None), ``global``, ``atlas-api +global`` (a repo with the global memories) or just the repo."""
    if repo is None:
        return "all repos"
    name = display.one_line(repo)
    return f"{name} +global" if with_global and repo != GLOBAL_REPO else name
