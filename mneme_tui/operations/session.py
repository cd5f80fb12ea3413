"""Where an operation runs: what its work needs from the surface that called it (the CLI's options, or the
MCP server's context and client), so that one function does the work for both."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from mneme_tui.legion.skill.api import LegionMemory
    from mneme_tui.memory.store import Store


class Session(Protocol):
    """The store, the repository and profile in force, the Legion folder, and who writes."""

    @property
    def source(self) -> str:
        """The provenance source of what is saved: ``save`` (the CLI) or ``mcp``."""
        ...

    @property
    def detail(self) -> str:
        """The provenance detail: the MCP client's name ("" on the CLI)."""
        ...

    def store(self) -> Store:
        """The store (opened on first use, after the arguments were checked)."""
        ...

    def repo(self, given: str | None) -> str:
        """``given`` when given, else the active repository."""
        ...

    def profile(self, given: str | None) -> str:
        """``given`` when given, else the ranking profile in force."""
        ...

    def legion(self) -> LegionMemory:
        """The Legion memory folder."""
        ...

    def work_tree(self, repo: str | None) -> Path | None:
        """The git work tree curation's stale kind reads for ``repo`` (None: every repo): the one named, or the
        enclosing one for the active repo; None for another repo's memories or outside a work tree."""
        ...

    def screened(self, fields: dict[str, Any], redact: bool) -> dict[str, Any]:
        """``fields`` as they may be written: every text screened for secrets, refused (ERR_SECRET naming the
        argument as this surface spells it) or, with ``redact`` or the config file's, redacted."""
        ...
