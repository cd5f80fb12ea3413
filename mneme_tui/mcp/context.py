"""What every tool works on: the store, the active repo, the ranking profile, the repository root and the
Legion folder of one running server, and the name of the client that called."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mneme_tui.legion.api import LegionMemory
from mneme_tui.memory.store import Store


@dataclass
class ServerContext:
    """The server's world: one ``Store`` for its whole life (its index stays warm) and the paths it serves."""

    store: Store
    repo: str
    profile: str
    root: Path
    legion_dir: Path

    def legion(self) -> LegionMemory:
        return LegionMemory(self.legion_dir)

    def repo_of(self, repo: str | None) -> str:
        """``repo`` when given (stripped), else the server's active repo."""
        return repo.strip() if repo and repo.strip() else self.repo


@dataclass(frozen=True)
class Call:
    """One tool call: the server's context and the client's name from its initialize request ("" if none)."""

    ctx: ServerContext
    client: str = ""
