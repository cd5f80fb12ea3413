"""What curation compares texts by: the normalised text (exact duplicates), word-bigram shingles and their
MinHash signature (near duplicates), the paths a memory names, and its claim: skeleton, figures and polarity
(conflicts). Pure functions of the text: no database."""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

NEGATORS = frozenset(
    {
        "not",
        "never",
        "no",
        "dont",
        "doesnt",
        "didnt",
        "cannot",
        "cant",
        "wont",
        "shouldnt",
        "mustnt",
        "isnt",
        "arent",
        "avoid",
        "stop",
    }
)
"""Words that flip what a sentence says ("use X" / "never use X"); dropped from the skeleton (with a "do",
"should", ... before them: "do not use X" has the skeleton of "use X"), counted in the polarity."""

SIGNATURE_SIZE = 32
"""MinHash values per memory: 8 LSH bands of 4 (see ``BANDS``)."""
BANDS = 8
"""LSH bands: two texts share a band (and are compared) with probability ``1 - (1 - J**4)**8``: 0.89 at a
Jaccard similarity J of 0.7, 0.985 at 0.8, 0.9995 at 0.9, but 0.40 at 0.5 and 0.06 at 0.3, so texts that merely
share a template's phrases are seldom compared."""
PRIME = np.uint64((1 << 61) - 1)
_RANDOM = np.random.default_rng(20261201)
A = _RANDOM.integers(1, 1 << 31, SIGNATURE_SIZE, dtype=np.uint64)
B = _RANDOM.integers(0, 1 << 31, SIGNATURE_SIZE, dtype=np.uint64)
"""The MinHash functions ``(A·x + B) mod PRIME``, fixed by a seed so every process computes the same signatures."""
MIX = np.uint64(0x9E3779B97F4A7C15)
"""An odd 64-bit constant for mixing two hashes into one (``a * MIX + b``, wrapping)."""

_APOSTROPHES = re.compile(r"['’`]")
_WORD = re.compile(r"[^\W_]+")
NEGATION_PREFIXES = frozenset({"do", "does", "did", "should", "must"})
"""Words dropped with the negator right after them ("do not use X" has the skeleton of "use X")."""


_ASCII_SEPARATORS = bytes(c if c < 128 and chr(c).isalnum() else 32 for c in range(256))
"""``bytes.translate`` table: an ASCII letter or digit stays, anything else becomes a space (``_WORD``'s words
of an ASCII text, found in C)."""


def words_of(text: str) -> list[str]:
    """The words of ``text`` in lower case (Unicode case folding, NFKC), punctuation as spaces (apostrophes
    dropped: "don't" is "dont"): two texts with the same words are exact duplicates."""
    if text.isascii():  # the same words as below, without a regex: most texts (tests/curation: equal for all)
        return text.encode("ascii").lower().translate(_ASCII_SEPARATORS, b"'`").decode("ascii").split()
    text = unicodedata.normalize("NFKC", text)
    folded = text.casefold()
    if "'" in folded or "`" in folded or "’" in folded:
        folded = _APOSTROPHES.sub("", folded)
    return _WORD.findall(folded)


def normalised(text: str) -> str:
    """``words_of(text)`` joined by single spaces."""
    return " ".join(words_of(text))


def stable_hash(text: str) -> int:
    """A 64-bit hash of ``text`` that every process computes alike (CRC-32 and Adler-32 side by side)."""
    data = text.encode("utf-8", "surrogatepass")
    return (zlib.crc32(data) << 32) | zlib.adler32(data)


def stable_keys(texts: Iterable[str]) -> np.ndarray:
    """``stable_hash`` of each text as uint64 keys (the catalogue's keys are kept on disk: the same in every
    process)."""
    return np.fromiter(map(stable_hash, texts), np.uint64)


def anchors(text: str) -> frozenset[str]:
    """The paths a text names (``stale.code_refs``): two memories about different files are never duplicates."""
    from mneme_tui.memory.curation.stale import code_refs  # git and ast only when curation runs

    return frozenset(ref.path for ref in code_refs(text))


@dataclass(frozen=True, slots=True)
class WordTable:
    """The words of many normalised texts, each word once: ``distinct`` words, and per word of every text (one
    text after another) its index into them. The claim and the shingle features of a batch share one table."""

    distinct: list[str]
    ids: np.ndarray
    lengths: np.ndarray
    """Words per text."""


def word_table(texts: list[list[str]]) -> WordTable:
    """The ``WordTable`` of many normalised texts' words."""
    words = [word for text in texts for word in text]
    distinct = list(set(words))
    index = {word: at for at, word in enumerate(distinct)}
    ids = np.fromiter(map(index.__getitem__, words), np.int64, len(words))
    return WordTable(distinct, ids, np.fromiter(map(len, texts), np.int64, len(texts)))


def shingle_sets(texts: list[list[str]] | WordTable) -> tuple[np.ndarray, np.ndarray]:
    """The distinct word bigrams (a one-word text: its word) of many normalised texts' words, as uint32 hashes:
    one flat array with each text's hashes sorted, and the ``len(texts) + 1`` offsets where each text starts."""
    table = texts if isinstance(texts, WordTable) else word_table(texts)
    distinct = table.distinct
    word_hashes = np.fromiter(
        (zlib.crc32(word.encode("utf-8", "surrogatepass")) | 1 for word in distinct), np.uint64, len(distinct)
    )
    hashes, lengths = word_hashes[table.ids], table.lengths
    owner = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    follows = owner[1:] == owner[:-1]  # word i and word i + 1 are in one text: a bigram
    alone = (lengths == 1)[owner]  # the one word of a one-word text
    with np.errstate(over="ignore"):
        grams = np.concatenate([hashes[:-1][follows] * MIX + hashes[1:][follows], hashes[alone]])
    owners = np.concatenate([owner[:-1][follows], owner[alone]]).astype(np.uint64)
    folded = (grams >> np.uint64(32)) ^ (grams & np.uint64(0xFFFFFFFF))
    keyed = np.sort((owners << np.uint64(32)) | folded)  # by text, then hash
    keyed = keyed[np.concatenate([[True], keyed[1:] != keyed[:-1]])] if keyed.size else keyed  # duplicates gone
    starts = np.searchsorted(keyed >> np.uint64(32), np.arange(lengths.size + 1, dtype=np.uint64))
    return (keyed & np.uint64(0xFFFFFFFF)).astype(np.uint32), starts


def shingles(words: list[str]) -> np.ndarray:
    """The distinct word-bigram hashes of one normalised text's words (``shingle_sets`` of one text)."""
    return shingle_sets([words])[0]


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
    """The claim of a normalised text: "busy timeout 5 s" and
    "busy timeout 10 s" share a skeleton and differ in their numbers; "use X" and "never use X" share one and
    differ in polarity. Numbers are the words of decimal digits; a negator goes from the skeleton with a
    ``NEGATION_PREFIXES`` word right before it."""
    words = normal.split()
    numbers, negations = stance(words)
    if not negations and not numbers:  # most texts: the skeleton is the text
        return Claim(normal, (), False)
    kept: list[str] = []
    for at, word in enumerate(words):
        if word in NEGATORS:
            if at and words[at - 1] in NEGATION_PREFIXES:  # kept last (a prefix is no negator)
                kept.pop()
        else:
            kept.append("#" if word.isdecimal() else word)
    return Claim(" ".join(kept), numbers, negations % 2 == 1)


def stance(words: list[str]) -> tuple[tuple[str, ...], int]:
    """A text's figures (its words of decimal digits) and how many negators it has (odd: negated)."""
    return tuple(filter(str.isdecimal, words)), sum(map(NEGATORS.__contains__, words))


def claim_hashes(texts: list[list[str]] | WordTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``claim`` of many normalised texts' words at once, as hashes: per text, its skeleton's (equal for equal
    skeletons), its stance's (equal for equal figures and polarity) and its skeleton's word count (the words'
    ``stable_hash``: the same in every process, so the catalogue's snapshot can keep them)."""
    table = texts if isinstance(texts, WordTable) else word_table(texts)
    distinct, ids, lengths = table.distinct, table.ids, table.lengths
    hashes = stable_keys(distinct)[ids]
    negator = np.fromiter((word in NEGATORS for word in distinct), bool, len(distinct))[ids]
    number = np.fromiter(map(str.isdecimal, distinct), bool, len(distinct))[ids]
    prefix = np.fromiter((word in NEGATION_PREFIXES for word in distinct), bool, len(distinct))[ids]
    owner = np.repeat(np.arange(lengths.size), lengths)
    before_negator = np.zeros(ids.size, bool)
    before_negator[:-1] = negator[1:] & (owner[1:] == owner[:-1])
    kept = ~negator & ~(prefix & before_negator)
    tokens = np.where(number, np.uint64(stable_hash("#")), hashes)  # a figure's place in the skeleton
    skeletons = _ordered_sums(tokens, kept, owner, lengths)
    figures = _ordered_sums(hashes, number, owner, lengths)
    negated = np.bincount(owner[negator], minlength=lengths.size) % 2 == 1
    with np.errstate(over="ignore"):
        stances = mixed(figures + negated.astype(np.uint64) * MIX)
    return skeletons, stances, np.bincount(owner[kept], minlength=lengths.size)


def _ordered_sums(values: np.ndarray, chosen: np.ndarray, owner: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Per text, a hash of the sequence of its ``chosen`` ``values`` (each mixed with its place among them)."""
    place = np.cumsum(chosen) - 1
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    before = np.where(starts > 0, place[np.maximum(starts - 1, 0)] + 1, 0) if place.size else starts
    rank = (place - before[owner]).astype(np.uint64)
    with np.errstate(over="ignore"):
        scrambled = np.where(chosen, mixed(values ^ (rank * MIX + MIX)), np.uint64(0))
    sums = np.zeros(len(lengths), np.uint64)
    nonempty = lengths > 0
    if scrambled.size:
        with np.errstate(over="ignore"):
            sums[nonempty] = np.add.reduceat(scrambled, starts[nonempty])
    return sums


def mixed(values: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: each 64-bit value scrambled (a bijection)."""
    with np.errstate(over="ignore"):
        values = (values ^ (values >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        values = (values ^ (values >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return values ^ (values >> np.uint64(31))
