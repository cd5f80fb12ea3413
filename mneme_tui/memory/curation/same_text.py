"""The no-new-duplicates check of ``save`` and ``supersede``: is a new text already an active memory of the same
repo and kind (after normalising), or nearly one?"""

from __future__ import annotations

import re
from dataclasses import dataclass

import peewee

from mneme_tui.memory.curation import text_features as T
from mneme_tui.memory.curation.finders import NEAR_THRESHOLD
from mneme_tui.memory.persistence.curation import same_text_candidates
from mneme_tui.memory.records import Memory, supersession_json

CANDIDATES = 200
"""At most this many memories (newest first) holding the probe words are compared with a new text."""
_PROBE = re.compile(r"[A-Za-z0-9]{3,}")
PROBE_CHARS = 64
"""A probe word's first characters are enough to find the texts holding it (and keep the pattern far inside
SQLite's LIKE limit)."""


@dataclass(frozen=True)
class TextMatch:
    """What a new text matches: an active memory with the same normalised text, or the closest near one."""

    duplicate_of: int | None = None
    closest: int | None = None
    similarity: float = 0.0

    def to_json(self) -> dict[str, object]:
        """What a save's or supersede's JSON adds: ``duplicate_of`` (nothing stored), ``near_duplicate`` (stored,
        with the closest memory and the similarity), or nothing."""
        if self.duplicate_of is not None:
            return {"duplicate_of": self.duplicate_of}
        if self.closest is not None:
            return {"near_duplicate": {"id": self.closest, "similarity": round(self.similarity, 3)}}
        return {}

    def saved_json(self, memory: Memory) -> dict[str, object]:
        """``save``'s document (CLI ``--json`` and MCP): the memory (the existing one for a duplicate) and the
        match."""
        return {**memory.to_json(), **self.to_json()}

    def superseded_json(self, old_id: int, memory: Memory) -> dict[str, object]:
        """``supersede``'s and ``edit``'s document: ``superseded`` is null when the text was a duplicate
        (nothing changed), plus the match."""
        return {**supersession_json(None if self.duplicate_of is not None else old_id, memory), **self.to_json()}

    def notice(self) -> str:
        """The one line a person reads about the match ('' when there is none)."""
        if self.duplicate_of is not None:
            return (
                f"Not stored: the same text (after normalising case, whitespace and punctuation) is already "
                f"memory {self.duplicate_of}"
            )
        if self.closest is not None:
            return (
                f"Note: nearly the same as memory {self.closest} (similarity {self.similarity:.2f}); "
                "`mneme review --kind duplicate` proposes merging them"
            )
        return ""


def match_text(db: peewee.Database, content: str, *, repo_id: str, kind: str) -> TextMatch:
    """Compare ``content`` with the active memories of ``repo_id`` and ``kind`` that contain its two longest
    words (a text equal after normalising always does; a near one does unless it changed one of them)."""
    probes = [word[:PROBE_CHARS] for word in sorted(set(_PROBE.findall(content)), key=lambda w: (-len(w), w))[:2]]
    normal = T.normalised(content)
    mine = T.shingles(normal.split())
    best: tuple[float, int] | None = None
    for memory_id, other in same_text_candidates(db, repo_id, kind, probes, CANDIDATES):
        other_normal = T.normalised(other)
        if other_normal == normal:
            return TextMatch(duplicate_of=memory_id)
        value = T.jaccard(mine, T.shingles(other_normal.split()))
        if value >= NEAR_THRESHOLD and (best is None or value > best[0]) and _same_paths_and_claim(content, other):
            best = (value, memory_id)
    return TextMatch() if best is None else TextMatch(closest=best[1], similarity=best[0])


def _same_paths_and_claim(text: str, other: str) -> bool:
    """The same paths named, the same figures and polarity: a near duplicate, not a conflict or another file."""
    return T.anchors(text) == T.anchors(other) and T.claim(T.normalised(text)).agrees(T.claim(T.normalised(other)))
