"""The no-new-duplicates check of ``save`` and ``supersede``: is a new text already an active memory of the same
repo and kind (after normalising), or nearly one?"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

import numpy as np
import peewee

from mneme_tui.memory.curation import text_features as T
from mneme_tui.memory.curation.finders import NEAR_THRESHOLD
from mneme_tui.memory.persistence.curation import recent_texts_holding
from mneme_tui.memory.persistence.text_keys import TextKeys
from mneme_tui.memory.records import Memory, supersession_json

SAME_KEY = 8
"""Active memories with the new text's key that are compared with it (more than one only when a merge was
undone or a hash collided: the first with the same normalised text is the duplicate)."""
NEAR_WINDOW = 1_000
"""A near duplicate is looked for among the newest this many active memories of the repo and kind (older ones
are ``mneme review``'s to find): a bounded read, whatever the size of the repository."""
CANDIDATES = 20
"""At most this many of them (newest first) holding the probe words are compared with a new text."""
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


def text_key(content: str) -> int:
    """The key ``memory_text_keys`` holds for a text: a signed 64-bit BLAKE2b hash of its normalised form
    (``text_features.normalised``), equal for texts that differ only in case, whitespace and punctuation."""
    digest = hashlib.blake2b(T.normalised(content).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def match_text(db: peewee.Database, text_keys: TextKeys, content: str, *, repo_id: str, kind: str) -> TextMatch:
    """Compare ``content`` with the active memories of ``repo_id`` and ``kind``: an exact duplicate through the
    text key's index (one look-up), else the closest near one among the newest ``NEAR_WINDOW`` that contain its
    two longest words (a near text does unless it changed one of them)."""
    normal = T.normalised(content)
    for memory_id, other in text_keys.active_with_key(repo_id, kind, content, SAME_KEY):
        if T.normalised(other) == normal:
            return TextMatch(duplicate_of=memory_id)
    probes = [word[:PROBE_CHARS] for word in sorted(set(_PROBE.findall(content)), key=lambda w: (-len(w), w))[:2]]
    near = recent_texts_holding(db, repo_id, kind, probes, NEAR_WINDOW, CANDIDATES)
    best: tuple[float, int] | None = None
    for (memory_id, other), value in zip(near, similarities(normal.split(), [T.words_of(o) for _, o in near])):
        if value >= NEAR_THRESHOLD and (best is None or value > best[0]) and _same_paths_and_claim(content, other):
            best = (float(value), memory_id)
    return TextMatch() if best is None else TextMatch(closest=best[1], similarity=best[0])


def similarities(words: list[str], others: list[list[str]]) -> np.ndarray:
    """``text_features.jaccard`` of ``words``' shingles with each of ``others``', in one pass over them all."""
    flat, starts = T.shingle_sets([words, *others])
    mine, theirs = flat[: starts[1]], flat[starts[1] :]
    sizes = np.diff(starts[1:])
    owner = np.repeat(np.arange(len(others)), sizes)
    common = np.bincount(owner[np.isin(theirs, mine)], minlength=len(others))
    union = mine.size + sizes - common
    return np.where(union > 0, common / np.maximum(union, 1), 1.0)


def _same_paths_and_claim(text: str, other: str) -> bool:
    """The same paths named, the same figures and polarity: a near duplicate, not a conflict or another file."""
    return T.anchors(text) == T.anchors(other) and T.claim(T.normalised(text)).agrees(T.claim(T.normalised(other)))
