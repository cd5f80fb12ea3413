"""What every tool works on: the store, the active repo, the ranking profile, the repository root and the
Legion folder of one running server, and the name of the client that called."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mneme_tui.errors import MnemeError
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory import secrets
from mneme_tui.memory.records import MCP
from mneme_tui.memory.store import Store


@dataclass
class ServerContext:
    """The server's world: one ``Store`` for its whole life (its index stays warm) and the paths it serves.
    ``opened`` is that store, or why it could not be opened when the server started: the server runs anyway
    and every use of the store (so every tool call) fails with that one-line reason, which the agent can tell
    its user; a restart of the server tries again."""

    opened: Store | MnemeError
    repo: str
    profile: str
    root: Path
    legion_dir: Path

    @property
    def store(self) -> Store:
        """The store, or its start-up failure raised again (a new error each time, with the same code and text)."""
        if isinstance(self.opened, MnemeError):
            raise MnemeError(self.opened.code, self.opened.message)
        return self.opened

    def legion(self) -> LegionMemory:
        return LegionMemory(self.legion_dir)

    def repo_of(self, repo: str | None) -> str:
        """``repo`` when given (stripped), else the server's active repo."""
        return repo.strip() if repo and repo.strip() else self.repo


@dataclass(frozen=True)
class Call:
    """One tool call: the server's context and the client's name from its initialize request ("" if none).
    It is the :class:`~mneme_tui.operations.session.Session` the declared operations run in."""

    ctx: ServerContext
    client: str = ""

    @property
    def source(self) -> str:
        return MCP

    @property
    def detail(self) -> str:
        return self.client

    def store(self) -> Store:
        return self.ctx.store

    def repo(self, given: str | None) -> str:
        return self.ctx.repo_of(given)

    def profile(self, given: str | None) -> str:
        return given or self.ctx.profile

    def legion(self) -> LegionMemory:
        return self.ctx.legion()

    def work_tree(self, repo: str | None) -> Path | None:
        from mneme_tui.memory.curation.proposals import default_root

        return default_root(repo, self.ctx.repo, self.ctx.root)

    def screened(self, fields: dict[str, Any], redact: bool) -> dict[str, Any]:
        return secrets.screen_fields(fields, secrets.policy_for(redact))[0]
