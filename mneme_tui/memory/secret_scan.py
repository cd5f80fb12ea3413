"""Secrets already stored: ``scan`` finds the memories whose text holds one, each a proposal to purge it.

One core function, so ``mneme secrets scan`` and (later) ``mneme review`` show the same proposals. A proposal
names the memory, the secret's type and place, and the command that removes it; never the text. ``db copy``
refuses a source that holds one (``refuse_copy``), or redacts the copies afterwards (``redact_stored``).
Generated demo and bench memories are not scanned (as on the write path).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mneme_tui.errors import ERR_SECRET, MnemeError
from mneme_tui.memory import secrets
from mneme_tui.memory.purge import PURGED, scrub_files
from mneme_tui.memory.records import SAMPLE_SOURCES
from mneme_tui.memory.vectors import embed, to_blob

if TYPE_CHECKING:
    from mneme_tui.memory.persistence.store_copy import CopyResult
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
            "memory_id": self.memory_id,
            "kind": self.kind,
            "status": self.status,
            "repo_id": self.repo_id,
            "findings": [
                {"field": name, "type": f.type, "description": f.description, "line": f.line, "column": f.column}
                for name, f in self.findings
            ],
            "proposal": "purge",
            "command": self.command,
        }


def scan(store: Store, *, repo_id: str | None = None, include_global: bool = False) -> list[SecretProposal]:
    """Every memory (any status; ``repo_id`` None: every repo) whose topic or content holds a secret, by id."""
    proposals = []
    for memory in _memories(store, repo_id, include_global):
        if memory.content == PURGED or memory.provenance.source in SAMPLE_SOURCES:
            continue
        found = [("topic", f) for f in secrets.find_secrets(memory.topic)]
        found += [("content", f) for f in secrets.find_secrets(memory.content)]
        if found:
            proposals.append(SecretProposal(memory.id, memory.kind, memory.status, memory.repo_id, tuple(found)))
    return proposals


def _memories(store: Store, repo_id: str | None, include_global: bool) -> Iterator[Memory]:
    offset = 0
    while page := store.list(
        status="all", repo_id=repo_id, include_global=include_global, limit=SCAN_PAGE, offset=offset, order="id"
    ):
        yield from page
        offset += len(page)


def screened_copy(source: Store, destination: Store, *, merge: bool, redact: bool) -> tuple[CopyResult, int]:
    """``db copy`` with the source scanned first: a secret refuses the copy (ERR_SECRET, nothing copied), or with
    ``redact`` the copies are redacted in the destination; the copy's result and how many secrets were replaced."""
    proposals = scan(source)
    if proposals and not redact:
        raise refuse_copy(proposals)
    result = source.copy_into(destination, merge=merge)
    if not proposals:
        return result, 0
    # a memory a merge skipped was already in the destination: this copy wrote nothing of it
    flagged = [result.new_ids[proposal.memory_id] for proposal in proposals if proposal.memory_id in result.new_ids]
    return result, redact_stored(destination, flagged)


def refuse_copy(proposals: list[SecretProposal]) -> MnemeError:
    """The ERR_SECRET of ``db copy`` from a source that holds secrets (never the secret itself)."""
    first = proposals[0]
    name, finding = first.findings[0]
    more = f" (and {len(proposals) - 1} more memories)" if len(proposals) > 1 else ""
    return MnemeError(
        ERR_SECRET,
        f"memory {first.memory_id} of the source looks like it holds {finding.description} ({name} line "
        f"{finding.line}, column {finding.column}){more}; nothing was copied; purge it in the source "
        "(`mneme secrets scan`), or --redact stores the copies redacted",
    )


def redact_stored(store: Store, memory_ids: list[int]) -> int:
    """Replace each secret in these memories' text with ``[REDACTED:<type>]`` in place (a copy made by ``db copy
    --redact``: the text never reached this store by a write path), then scrub the files as a purge does; how many
    secrets were replaced."""
    with store.sqlite_errors():
        store.dialect.secure_delete(store.db)

    def write() -> int:
        replaced = 0
        for memory in store.get_many(memory_ids).values():
            content, in_content = secrets.redact(memory.content)
            topic, in_topic = secrets.redact(memory.topic)
            store.memories.update(memory.id, content=content, topic=topic, embedding=to_blob(embed(content)))
            store.legion_records.forget_text(memory.id, "[redacted]")
            replaced += in_content + in_topic
        return replaced

    replaced = store.run_transaction(write)
    scrub_files(store)
    return replaced
