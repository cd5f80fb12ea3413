"""Secrets already stored: ``scan`` finds the memories whose text holds one, each a proposal to purge it.

One core function, so ``mneme secrets scan`` and (later) ``mneme review`` show the same proposals. A proposal
names the memory, the secret's type and place, and the command that removes it; never the text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mneme_tui.memory import secrets
from mneme_tui.memory.purge import PURGED

if TYPE_CHECKING:
    from mneme_tui.memory.records import Memory
    from mneme_tui.memory.store import Store

SCAN_PAGE = 1_000
"""Memories read at a time."""


@dataclass(frozen=True, slots=True)
class SecretProposal:
    """A stored memory that holds secrets: where they are (``field``: ``content`` or ``topic``) and what to do."""

    memory_id: int
    kind: str
    status: str
    repo_id: str
    findings: tuple[tuple[str, secrets.Finding], ...]

    @property
    def command(self) -> str:
        """The command that removes the text (every version: an older one usually holds the same secret)."""
        return f'mneme purge {self.memory_id} --chain --reason "leaked secret"'

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id, "kind": self.kind, "status": self.status, "repo_id": self.repo_id,
            "findings": [{"field": name, "type": f.type, "description": f.description, "line": f.line,
                          "column": f.column} for name, f in self.findings],
            "proposal": "purge", "command": self.command,
        }


def scan(store: Store, *, repo_id: str | None = None, include_global: bool = False) -> list[SecretProposal]:
    """Every memory (any status; ``repo_id`` None: every repo) whose topic or content holds a secret, by id."""
    proposals = []
    for memory in _memories(store, repo_id, include_global):
        if memory.content == PURGED:
            continue
        found = [("topic", f) for f in secrets.find_secrets(memory.topic)]
        found += [("content", f) for f in secrets.find_secrets(memory.content)]
        if found:
            proposals.append(SecretProposal(memory.id, memory.kind, memory.status, memory.repo_id, tuple(found)))
    return proposals


def _memories(store: Store, repo_id: str | None, include_global: bool) -> Iterator[Memory]:
    offset = 0
    while page := store.list(status="all", repo_id=repo_id, include_global=include_global, limit=SCAN_PAGE,
                             offset=offset, order="id"):
        yield from page
        offset += len(page)
