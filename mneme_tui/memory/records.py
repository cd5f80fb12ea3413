"""Plain dataclasses the Store returns: the TUI, the CLI's ``--json`` and tests all see these."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mneme_tui.memory.kinds import STATUTORY_KINDS


def iso(moment: datetime) -> str:
    """ISO-8601 text of a naive-UTC datetime (seconds precision, ``Z`` suffix)."""
    return moment.replace(microsecond=0).isoformat() + "Z"


TASK_SYNC, LEGION_IMPORT, SAVE, TUI, MCP, DEMO, BENCH, UNKNOWN = (
    "task-sync",
    "legion-import",
    "save",
    "tui",
    "mcp",
    "demo",
    "bench",
    "unknown",
)
MINT_SOURCES: tuple[str, ...] = (TASK_SYNC, LEGION_IMPORT, SAVE, TUI, MCP, DEMO, BENCH)
"""Where a new memory can come from (``unknown`` is only given by the migration to older rows)."""
HAND_SOURCES: tuple[str, ...] = (SAVE, TUI, MCP)
"""The sources of ``Store.save``: a person or agent writing an advisory memory."""
SAMPLE_SOURCES: tuple[str, ...] = (DEMO, BENCH)
"""Generated demo and benchmark data: labelled as such, allowed every kind, never scanned for secrets."""


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a memory came from, fixed at the mint: ``source`` (one of ``MINT_SOURCES`` or ``unknown``) and
    ``detail`` (task id for task sync, ``FILE#ID`` for the Legion import, the client for MCP)."""

    source: str
    detail: str = ""

    def label(self) -> str:
        """One line for people: ``task sync · INT-734``, ``Legion import · PATTERNS.md P-003``, ..."""
        names = {
            TASK_SYNC: "task sync",
            LEGION_IMPORT: "Legion import",
            SAVE: "mneme save",
            TUI: "TUI",
            MCP: "MCP",
            DEMO: "demo",
            BENCH: "bench",
            UNKNOWN: "unknown",
        }
        name = names.get(self.source, self.source)
        if not self.detail:
            return name
        if self.source == MCP:
            return f"{name} ({self.detail})"
        return f"{name} · {self.detail.replace('#', ' ', 1)}"


UNKNOWN_PROVENANCE = Provenance(UNKNOWN)


def is_verified(kind: str, source: str) -> bool:
    """True for a statutory kind minted by a verified task sync (spec 3.1)."""
    return kind in STATUTORY_KINDS and source == TASK_SYNC


@dataclass(frozen=True, slots=True)
class Memory:
    """One row of ``memories`` (spec §3), without the embedding."""

    id: int
    repo_id: str
    kind: str
    topic: str
    content: str
    task_id: str
    created_at: datetime
    status: str
    superseded_by: int
    access_count: int
    provenance: Provenance = UNKNOWN_PROVENANCE

    @property
    def verified(self) -> bool:
        """A statutory kind minted by a verified task sync (spec 3.1): the only knowledge that counts as
        verified (imported Legion rows and memories of unknown origin do not)."""
        return is_verified(self.kind, self.provenance.source)

    def from_line(self) -> str:
        """``From: Legion import · PATTERNS.md P-003 (not task-verified)`` / ``From: task sync · INT-734
        (verified)`` / ``From: mneme save`` ...: where the memory came from, for text output."""
        line = f"From: {self.provenance.label()}"
        if self.verified:
            return line + " (verified)"
        if self.kind in STATUTORY_KINDS or self.provenance.source == LEGION_IMPORT:
            return line + " (not task-verified)"
        return line

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "repo_id": self.repo_id,
            "kind": self.kind,
            "topic": self.topic,
            "content": self.content,
            "task_id": self.task_id,
            "created_at": iso(self.created_at),
            "status": self.status,
            "superseded_by": self.superseded_by,
            "access_count": self.access_count,
            "provenance": {
                "source": self.provenance.source,
                "detail": self.provenance.detail,
                "verified": self.verified,
            },
        }

    @property
    def first_line(self) -> str:
        """The first non-empty line of the content."""
        for line in self.content.splitlines():
            if line.strip():
                return line.strip()
        return ""


@dataclass(slots=True)
class MemoryHead:
    """An active memory without its text: what a handshake ranks and groups by (``Store.active_heads``).
    ``verified`` is ``Memory.verified`` of the same row. Not frozen (a handshake builds tens of thousands, and
    a frozen dataclass takes twice as long to build); nothing changes one after ``Store.active_heads`` returns."""

    id: int
    repo_id: str
    kind: str
    topic: str
    task_id: str
    created_at: datetime
    access_count: int
    verified: bool


def supersession_json(old_id: int | None, memory: Memory) -> dict[str, Any]:
    """``supersede``'s and ``edit``'s document (CLI ``--json`` and MCP): the old id (None: nothing changed)
    and the memory now in force."""
    return {"superseded": old_id, "memory": memory.to_json()}


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    """A recall result: the memory, its score, the score's factors and why it is in the list."""

    memory: Memory
    score: float
    components: dict[str, float]
    profile: str
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        document = self.memory.to_json()
        document["score"] = round(self.score, 6)
        document["components"] = {name: round(value, 6) for name, value in self.components.items()}
        document["profile"] = self.profile
        document["reasons"] = list(self.reasons)
        return document


UNKNOWN_ACTOR = "unknown"
"""How an actor that nothing recorded ('': a change made before schema 5) is shown to people."""


def actor_label(actor: str) -> str:
    """``actor`` as shown in text: ``unknown`` when nothing recorded who it was."""
    return actor or UNKNOWN_ACTOR


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One recorded status change of a memory, and who made it (``actor``: '' when not recorded)."""

    memory_id: int
    from_status: str
    to_status: str
    at: datetime
    reason: str
    actor: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "from_status": self.from_status,
            "to_status": self.to_status,
            "at": iso(self.at),
            "reason": self.reason,
            "actor": self.actor,
        }


@dataclass(frozen=True, slots=True)
class StatusChange:
    """The result of a dismissal or undo: which memories moved, and from which status."""

    changed: tuple[tuple[int, str], ...] = field(default_factory=tuple)  # (id, previous status)

    @property
    def ids(self) -> list[int]:
        return [memory_id for memory_id, _ in self.changed]

    def unchanged(self, requested: list[int]) -> list[int]:
        """The ``requested`` ids that did not move, each once, in order."""
        moved = set(self.ids)
        return [i for i in dict.fromkeys(requested) if i not in moved]

    def to_json(self, key: str, requested: list[int]) -> dict[str, list[int]]:
        """``{key: changed ids, "unchanged": the other requested ids}``: what ``mneme dismiss/restore --json``
        print and the MCP tools return."""
        return {key: self.ids, "unchanged": self.unchanged(requested)}


@dataclass(frozen=True, slots=True)
class MemoryDetail:
    """Everything ``show`` needs about one memory: the memory, who minted it (``created_by``: '' when not
    recorded), its audit history, the memory that supersedes it (if any), the memories it superseded and the
    tasks that reinforced it."""

    memory: Memory
    history: tuple[AuditEntry, ...]
    superseded_by: Memory | None
    supersedes: tuple[Memory, ...]
    accessed_by: tuple[str, ...]
    created_by: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_json(),
            "created_by": self.created_by,
            "history": [entry.to_json() for entry in self.history],
            "superseded_by": self.superseded_by.to_json() if self.superseded_by else None,
            "supersedes": [memory.to_json() for memory in self.supersedes],
            "accessed_by": list(self.accessed_by),
        }
