"""What the app works on: the store, the active repo, the database path and the Legion folder."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mneme_tui.memory.ranking import DEFAULT_PROFILE
from mneme_tui.memory.store import Store


@dataclass
class AppContext:
    """Everything a screen needs to find its data. Screens read it through ``self.app.ctx``."""

    store: Store
    repo: str
    legion_dir: Path | None = None
    profile: str = DEFAULT_PROFILE
    demo: bool = False
    claude_home: Path | None = None  # where Claude Code's ~/.claude lives (None: the user's home)
    read_only: bool = False  # browse without risk: every write action is off
    extras: dict = field(default_factory=dict)

    def legion(self):
        """The Legion facade for the project's memory folder, or None when there is no folder."""
        if self.legion_dir is None:
            return None
        from mneme_tui.legion.skill.api import LegionMemory

        return LegionMemory(self.legion_dir, claude_home=self.claude_home)

    @property
    def db_path(self) -> Path | str:
        return self.store.path  # a PostgreSQL URL comes without its password

    @contextmanager
    def session(self) -> Iterator[Store]:
        """The store with a connection for the calling (worker) thread, closed afterwards.

        peewee keeps one connection per thread; thread workers are short-lived threads, so each one
        opens its own connection here and closes it when done.
        """
        db = self.store.db
        if not db.is_closed():
            yield self.store
            return
        with db.connection_context():
            yield self.store
