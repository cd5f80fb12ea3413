"""Where an operation runs: what its work needs from the surface that called it (the CLI's options, or the
MCP server's context and client), so that one function does the work for both."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mneme_tui.legion.api import LegionMemory
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
