"""What curation compares texts by: the normalised text (exact duplicates), word-bigram shingles and their
MinHash signature (near duplicates), the anchors a memory names (paths, numbers) and its skeleton and polarity
(conflicts). Pure functions of the text: no database."""

from __future__ import annotations

import hashlib
import re
import unicodedata
import zlib
from dataclasses import dataclass

import numpy as np

NEGATORS = frozenset({
    "not", "never", "no", "dont", "doesnt", "didnt", "cannot", "cant", "wont", "shouldnt", "mustnt", "isnt",
    "arent", "avoid", "stop",
})
"""Words that flip what a sentence says ("use X" / "never use X"); dropped from the skeleton, counted in the
polarity."""
_AUXILIARIES = frozenset({"do", "does", "did", "should", "must"})
"""Dropped from the skeleton when a negator follows ("do not use X" has the skeleton of "use X")."""

SIGNATURE_SIZE = 30
"""MinHash values per memory: 10 LSH bands of 3 (see ``BANDS``)."""
BANDS = 10
"""LSH bands: two texts share a band (and are compared) with probability ``1 - (1 - J**3)**10``: 0.99 at a
Jaccard similarity J of 0.7, 0.33 at 0.3, so nearly every pair above the threshold is compared and few below."""
PRIME = np.uint64((1 << 61) - 1)
_RANDOM = np.random.default_rng(20261201)
A = _RANDOM.integers(1, 1 << 31, SIGNATURE_SIZE, dtype=np.uint64)
B = _RANDOM.integers(0, 1 << 31, SIGNATURE_SIZE, dtype=np.uint64)
"""The MinHash functions ``(A·x + B) mod PRIME``, fixed by a seed so every process computes the same signatures."""
_MIX = np.uint64(0x9E3779B97F4A7C15)

_APOSTROPHES = re.compile(r"['’`]")
_NON_WORD = re.compile(r"[\W_]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def normalised(text: str) -> str:
    """``text`` in lower case (Unicode case folding, NFKC), punctuation as spaces (apostrophes dropped: "don't"
    is "dont"), whitespace collapsed: two texts equal after this are exact duplicates."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_NON_WORD.sub(" ", _APOSTROPHES.sub("", folded)).split())


def text_key(text: str) -> str:
    """A short hash of the normalised text (the exact-duplicate key)."""
    return hashlib.sha1(normalised(text).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def anchors(text: str) -> frozenset[str]:
    """The paths a text names (``stale.code_refs``): two memories about different files are never duplicates."""
    from mneme_tui.memory.curation.stale import code_refs  # git and ast only when curation runs

    return frozenset(ref.path for ref in code_refs(text))


def shingles(words: list[str], memo: dict[str, int] | None = None) -> np.ndarray:
    """The distinct word bigrams of a normalised text's words (its one word for a one-word text), as sorted
    uint32 hashes; ``memo`` keeps word hashes between calls."""
    memo = {} if memo is None else memo
    hashes = np.fromiter((memo.get(w) or memo.setdefault(w, zlib.crc32(w.encode("utf-8", "surrogatepass")) | 1)
                          for w in words), np.uint64, len(words))
    with np.errstate(over="ignore"):
        grams = hashes[:-1] * _MIX + hashes[1:] if hashes.size > 1 else hashes
    return np.unique((grams >> np.uint64(32)) ^ (grams & np.uint64(0xFFFFFFFF))).astype(np.uint32)


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """The Jaccard similarity of two shingle sets (sorted distinct uint32 arrays)."""
    if not a.size and not b.size:
        return 1.0
    common = np.intersect1d(a, b, assume_unique=True).size
    return common / (a.size + b.size - common)


@dataclass(frozen=True)
class Claim:
    """What a text asserts, for conflicts: its words without numbers and negators (the skeleton), its numbers
    and whether it is negated."""

    skeleton: str
    numbers: tuple[str, ...]
    negated: bool

    def agrees(self, other: Claim) -> bool:
        """The same figures and the same polarity (texts that may be duplicates rather than a conflict)."""
        return self.numbers == other.numbers and self.negated == other.negated


def claim(normal: str) -> Claim:
    """The claim of a normalised text: "busy timeout 5 s" and "busy timeout 10 s" share a skeleton and differ
    in their numbers; "use X" and "never use X" share one and differ in polarity."""
    words = normal.split()
    kept: list[str] = []
    numbers: list[str] = []
    negations = 0
    for position, word in enumerate(words):
        if word in NEGATORS:
            negations += 1
        elif word in _AUXILIARIES and position + 1 < len(words) and words[position + 1] in NEGATORS:
            continue
        elif _NUMBER.fullmatch(word):
            numbers.append(word)
            kept.append("#")
        else:
            kept.append(word)
    return Claim(" ".join(kept), tuple(numbers), negations % 2 == 1)
