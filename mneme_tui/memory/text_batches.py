"""A batch of texts analysed at once: the spec's token ids and the ``bm25`` terms of every row, as numpy arrays.

Loading a store analyses every memory twice (the spec's distinct tokens, ``vectors.tokenize``; the analysed
terms, ``analysis.Analyzer``). Doing that text by text costs a few regex passes, sets and look-ups per row;
here a batch of texts costs a handful of C-level passes and numpy operations, and the Python work is per
*distinct chunk*:

1. **Chunks**: every text is cut into maximal runs of word characters and ``. / -`` (:data:`CHUNK`). Every word
   (``[^\\W_]+``) and every compound term (``analysis.COMPOUND``) lies inside one chunk, and what surrounds a
   chunk is never a word character, so a chunk's words and compounds are those the whole text has there. A
   batch's ASCII texts are joined and cut with one ``bytes.translate`` and one ``split``; other texts with
   the regex, one by one.
2. **Codes**: each chunk is looked up in a memo (:class:`ChunkTable`, one dict look-up per chunk, in C); a new
   chunk is analysed once: its words' spec ids (lowercased), and, when the ``bm25`` pass first meets it, its
   words' analysed terms and its compound terms. A *number* (a chunk of ASCII digits only) is not memoised:
   its one word is its spec token and its one term, so it is looked up in the vocabularies directly (texts
   often carry a number of their own, such as ``(ref 123456)``, which a memo would only fill).
3. **Gathers**: the rows' ids are the chunks' ids gathered with numpy (``np.repeat`` over per-chunk spans), and
   a row's distinct tokens are one sort of (row, id) keys for the batch.

The result equals the per-row analysis (``MemoryIndex._token_ids``, ``Analyzer.terms``): the same ids, given
in the same order (a new term gets its id where the per-row analysis first met it: a batch's word terms in
text order, then its compound terms), so the scores add up the same floats.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mneme_tui.memory.analysis import COMPOUND, MEMO_LIMIT, WORD, Analyzer
from mneme_tui.memory.growing import GrowingArrays
from mneme_tui.memory.snapshot_vocab import SnapshotVocab
from mneme_tui.memory.vectors import tokenize_lowered

CHUNK = re.compile(r"[\w./\-]+")
"""A run of word characters (letters, digits, ``_``) and the compound joiners ``. / -``."""
_CHUNK_ASCII = "".join(chr(c) for c in range(128) if CHUNK.fullmatch(chr(c)))
_ASCII_NON_CHUNK_TO_SPACE = bytes(c if chr(c) in _CHUNK_ASCII else 32 for c in range(256))


@dataclass
class Occurrences:
    """Ids found in a batch's rows: ``ids[i]`` occurs in row ``rows[i]`` (rows ascending).

    For chunk codes (:meth:`ChunkTable.codes`), a negative id ``-1 - k`` stands for the number ``numbers[k]``."""

    ids: np.ndarray  # int64
    rows: np.ndarray  # int64
    numbers: list[str] = field(default_factory=list)

    def where(self, keep: np.ndarray) -> Occurrences:
        """The occurrences ``keep`` (a mask) selects, with the same numbers."""
        return Occurrences(self.ids[keep], self.rows[keep], self.numbers)

    def numbers_at(self, mask: np.ndarray) -> np.ndarray:
        """The numbers of the negative ids ``mask`` selects, in occurrence order (an object array of ``str``)."""
        return np.asarray(self.numbers, dtype=object)[-1 - self.ids[mask]] if self.numbers else np.zeros(0, object)


@dataclass
class Split:
    """A batch's chunks in order (the ASCII texts' first, then the others'): ``rows[i]`` is the row of the
    i-th, ``is_number[i]`` whether it is a number; the numbers in ``numbers`` (in order), the others in
    ``words`` (UTF-8, in order)."""

    words: list[bytes]
    numbers: list[str]
    rows: np.ndarray  # int64
    is_number: np.ndarray  # bool


def chunks_of(texts: Sequence[str]) -> Split:
    """Every chunk of ``texts``: numbers (ASCII texts' runs of ASCII digits only) apart from the others."""
    plain = [text for text in texts if text.isascii()]
    if len(plain) == len(texts):
        return _ascii_chunks(plain, np.arange(len(texts), dtype=np.int64))
    plain_rows = np.fromiter((row for row, text in enumerate(texts) if text.isascii()), np.int64)
    split = _ascii_chunks(plain, plain_rows)
    other_rows: list[int] = []
    for row, text in enumerate(texts):
        if not text.isascii():
            found = CHUNK.findall(text)
            split.words.extend(chunk.encode("utf-8", "surrogatepass") for chunk in found)
            other_rows.extend([row] * len(found))
    rows = np.concatenate([split.rows, np.asarray(other_rows, dtype=np.int64)])
    return Split(split.words, split.numbers, rows, np.concatenate([split.is_number, np.zeros(len(other_rows), bool)]))


def _ascii_chunks(texts: list[str], rows: np.ndarray) -> Split:
    """The chunks of ASCII ``texts`` (joined by a newline, one translate and one split) and their rows; a
    chunk is a number when its digits are as many as its bytes (digits are few: they are counted one by one)."""
    joined = "\n".join(texts).encode("ascii").translate(_ASCII_NON_CHUNK_TO_SPACE)
    data = np.frombuffer(joined, dtype=np.uint8)
    edges = np.flatnonzero(np.diff(np.concatenate([[False], data != 32, [False]])))  # each chunk's start, end
    starts, lengths = edges[0::2], edges[1::2] - edges[0::2]
    text_ends = np.cumsum(np.fromiter(map(len, texts), np.int64, len(texts)) + 1) - 1  # each text's separator
    per_text = np.diff(np.concatenate([[0], np.searchsorted(starts, text_ends)]))  # chunks begun in each text
    digits = np.flatnonzero(data - np.uint8(ord("0")) < 10)
    is_number = np.bincount(np.searchsorted(starts, digits, side="right") - 1, minlength=starts.size) == lengths
    if not is_number.any():
        return Split(joined.split(), [], np.repeat(rows, per_text), is_number)
    number_bytes = _spans_positions(starts[is_number], lengths[is_number])
    apart = np.full(data.size, 32, dtype=np.uint8)
    apart[number_bytes] = data[number_bytes]
    numbers = apart.tobytes().decode("ascii").split()
    apart[:] = data
    apart[number_bytes] = 32
    return Split(apart.tobytes().split(), numbers, np.repeat(rows, per_text), is_number)


def _spans_positions(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Every position of the spans ``[starts[i], starts[i] + lengths[i])``, in order."""
    shift = starts - (np.cumsum(lengths) - lengths)
    return np.repeat(shift, lengths) + np.arange(int(lengths.sum()), dtype=np.int64)


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending (a sort: ``np.unique``'s hash table is slower on these arrays)."""
    ranked = np.sort(values)
    return ranked[np.concatenate([[True], ranked[1:] != ranked[:-1]])] if ranked.size else ranked


def _in_row_order(codes: np.ndarray, rows: np.ndarray, numbers: list[str]) -> Occurrences:
    if rows.size and np.any(rows[1:] < rows[:-1]):
        order = np.argsort(rows, kind="stable")
        codes, rows = codes[order], rows[order]
    return Occurrences(codes, rows, numbers)


def _gather(flat: np.ndarray, begin: np.ndarray, count: np.ndarray, found: Occurrences) -> Occurrences:
    """The ids each code stands for (``flat[begin[code] : begin[code] + count[code]]``), with their rows."""
    lengths = count[found.ids]
    positions = _spans_positions(begin[found.ids], lengths)
    return Occurrences(flat[positions].astype(np.int64), np.repeat(found.rows, lengths))


class _Spans:
    """Per chunk code, a span of ids in one flat array that only grows (``begin``, ``count``; -1: not yet)."""

    def __init__(self) -> None:
        self.growing = GrowingArrays()
        self.flat = np.zeros(0, dtype=np.int64)
        self.begin = np.zeros(0, dtype=np.int64)
        self.count = np.full(0, -1, dtype=np.int64)

    def reserve(self, codes: int) -> None:
        """Room for ``codes`` chunk codes (new ones not analysed yet)."""
        new = codes - self.begin.size
        if new > 0:
            self.begin = self.growing.append("begin", self.begin, np.zeros(new, dtype=np.int64))
            self.count = self.growing.append("count", self.count, np.full(new, -1, dtype=np.int64))

    def fill(self, codes: list[int], ids: np.ndarray, lengths: np.ndarray) -> None:
        """Give each of ``codes`` its ids: ``lengths[i]`` of the concatenated ``ids`` for ``codes[i]``."""
        self.begin[codes] = self.flat.size + np.cumsum(lengths) - lengths
        self.count[codes] = lengths
        self.flat = self.growing.append("flat", self.flat, ids)

    def of(self, found: Occurrences) -> Occurrences:
        return _gather(self.flat, self.begin, self.count, found)


class ChunkTable:
    """Memo: a chunk (UTF-8) → its code, with each code's spec ids and analysed term ids (``_Spans``).

    Codes belong to one pair of vocabularies (the index's ``vocab`` and ``terms.vocab``): the table is
    emptied (:meth:`forget`) when those are replaced and once it holds ``MEMO_LIMIT`` chunks.
    """

    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer
        self.forget()

    def forget(self) -> None:
        """Forget every chunk (between batches)."""
        self.code_of: dict[bytes, int] = {}
        self.chunks: list[bytes] = []  # by code
        self.spec = _Spans()
        self.terms = _Spans()  # the words' analysed terms
        self.compounds = _Spans()  # the compound terms

    def trim(self) -> None:
        """Forget every chunk once the memo is large (only between batches: codes are only good until then)."""
        if len(self.chunks) >= MEMO_LIMIT:
            self.forget()

    def codes(self, texts: Sequence[str]) -> Occurrences:
        """Each chunk of ``texts`` as its code, in row order (new chunks get codes, not yet analysed); a number
        as ``-1 - k`` for the k-th of the numbers it carries."""
        split = chunks_of(texts)
        words = split.words
        known = np.fromiter(map(self.code_of.get, words, itertools.repeat(-1)), np.int64, len(words))
        new = np.flatnonzero(known < 0).tolist()
        if new:  # codes for the new chunks, in the order they first occur
            fresh = dict.fromkeys(map(words.__getitem__, new))
            self.code_of.update(zip(fresh, itertools.count(len(self.chunks))))
            self.chunks.extend(fresh)
            known[new] = np.fromiter(map(self.code_of.__getitem__, map(words.__getitem__, new)), np.int64, len(new))
        for spans in (self.spec, self.terms, self.compounds):
            spans.reserve(len(self.chunks))
        codes = np.empty(split.rows.size, dtype=np.int64)
        codes[~split.is_number] = known
        codes[split.is_number] = -1 - np.arange(len(split.numbers), dtype=np.int64)
        return _in_row_order(codes, split.rows, split.numbers)

    def spec_ids(self, found: Occurrences, vocab: dict[str, int]) -> Occurrences:
        """The spec token ids (lowercased words) of chunks from ASCII rows: new ids for new chunks' words in
        code order, then for the numbers in occurrence order."""
        coded = found.ids >= 0
        chunks = found.where(coded)
        new = _distinct(chunks.ids[self.spec.count[chunks.ids] < 0]).tolist()
        if new:
            words = _words(self._texts(new).lower().split("\n"))
            flat = list(itertools.chain.from_iterable(words))
            if isinstance(vocab, SnapshotVocab):
                vocab.prefetch(flat)
            self.spec.fill(new, np.fromiter(map(vocab.__getitem__, flat), np.int64, len(flat)), _lengths(words))
        ids = self.spec.of(chunks)
        numbers = found.numbers_at(~coded)
        if not numbers.size:
            return ids
        if isinstance(vocab, SnapshotVocab):
            vocab.prefetch(numbers)
        number_ids = np.fromiter(map(vocab.__getitem__, numbers), np.int64, numbers.size)
        return Occurrences(np.concatenate([ids.ids, number_ids]), np.concatenate([ids.rows, found.rows[~coded]]))

    def term_ids(self, found: Occurrences, vocab: dict[str, int]) -> Occurrences:
        """The analysed term ids of the chunks (their words' terms, then their compound terms) and numbers, new
        chunks analysed where the rows first meet them."""
        coded = found.ids >= 0
        at = np.flatnonzero(coded)
        chunks = found.where(coded)
        numbers, number_at = found.numbers_at(~coded), np.flatnonzero(~coded)
        waiting = self.terms.count[chunks.ids] < 0
        pending, pending_at = chunks.ids[waiting], at[waiting]
        if pending.size or numbers.size:
            order = np.argsort(pending, kind="stable")  # then each code's first occurrence, in occurrence order
            ranked = pending[order]
            first = np.sort(order[np.concatenate([[True], ranked[1:] != ranked[:-1]])]) if pending.size else order
            self._learn_terms(pending[first].tolist(), pending_at[first], numbers, number_at, vocab)
        words, compounds = self.terms.of(chunks), self.compounds.of(chunks)
        number_ids = np.fromiter(map(vocab.__getitem__, numbers), np.int64, numbers.size)
        return Occurrences(
            np.concatenate([words.ids, number_ids, compounds.ids]),
            np.concatenate([words.rows, found.rows[~coded], compounds.rows]),
        )

    def _texts(self, codes: list[int]) -> str:
        """The chunks of ``codes`` decoded, each ended by a newline but the last (one decode for them all)."""
        return b"\n".join(map(self.chunks.__getitem__, codes)).decode("utf-8", "surrogatepass")

    def _learn_terms(
        self, codes: list[int], at: np.ndarray, numbers: np.ndarray, number_at: np.ndarray, vocab: dict[str, int]
    ) -> None:
        """Terms of new chunks (``codes``, first met at ``at``) and of numbers (met at ``number_at``): new ids
        for the words' terms and the numbers in the order met, then for the chunks' compound terms."""
        texts = self._texts(codes).split("\n") if codes else []
        words = _words(texts)
        analysed = self.analyzer.word_terms  # a number is its own term, kept out of the analyzer's memo
        word_terms = [(word,) if word.isdigit() else analysed(word) for word in itertools.chain.from_iterable(words)]
        compounds = [_compounds(text) if self.analyzer.compounds and not text.isalnum() else [] for text in texts]
        terms = list(itertools.chain.from_iterable(word_terms))
        per_word = np.concatenate([[0], np.cumsum(_lengths(word_terms))])
        per_chunk = np.diff(np.concatenate([[0], per_word[np.cumsum(_lengths(words))]]))
        met = _interleaved(terms, np.repeat(at, per_chunk), numbers, number_at)
        ordered = [*terms, *itertools.chain.from_iterable(compounds)]
        first_met = [*met, *ordered[len(terms) :]]  # every term in the order its id is due
        if isinstance(vocab, SnapshotVocab):
            vocab.prefetch(first_met)
        for term in itertools.filterfalse(vocab.__contains__, dict.fromkeys(first_met)):
            vocab.setdefault(term, len(vocab))  # a new term's id is the next one, in the order first met
        ids = np.fromiter(map(vocab.__getitem__, ordered), np.int64, len(ordered))
        if codes:
            self.terms.fill(codes, ids[: len(terms)], per_chunk)
            self.compounds.fill(codes, ids[len(terms) :], _lengths(compounds))


def _words(chunks: list[str]) -> list[list[str]]:
    """The words (``analysis.WORD``) of each chunk: the chunk itself when it is all letters and digits."""
    findall = WORD.findall
    return [[chunk] if chunk.isalnum() else findall(chunk) for chunk in chunks]


def _interleaved(first: list[str], first_at: np.ndarray, second: np.ndarray, second_at: np.ndarray) -> list[str]:
    """``first`` and ``second`` merged by where each item was met (``*_at``; ties keep ``first``'s first)."""
    if not second.size:
        return first
    merged = np.empty(len(first) + second.size, dtype=object)
    merged[: len(first)] = first
    merged[len(first) :] = second
    return merged[np.argsort(np.concatenate([first_at, second_at]), kind="stable")].tolist()


def _compounds(chunk: str) -> list[str]:
    return [match.lower() for match in COMPOUND.findall(chunk)]


def _lengths(rows: Sequence[Sequence]) -> np.ndarray:
    return np.fromiter(map(len, rows), np.int64, len(rows))


def spec_tokens(table: ChunkTable, texts: Sequence[str], found: Occurrences, vocab: dict[str, int]) -> Occurrences:
    """Each row's distinct spec token ids (ascending), as ``MemoryIndex._token_ids`` gives them one row at a
    time: ASCII rows from their chunks; other rows by the spec tokenizer on the lowercased text (lowercasing
    can change where words end)."""
    other = [row for row, text in enumerate(texts) if not text.isascii()]
    if other:
        found = found.where(~np.isin(found.rows, other))
    ids = table.spec_ids(found, vocab)
    if other:
        words = [tokenize_lowered(texts[row].lower()) for row in other]
        extra = np.fromiter((vocab[word] for row in words for word in row), np.int64)
        extra_rows = np.repeat(np.asarray(other, dtype=np.int64), np.fromiter(map(len, words), np.int64))
        ids = Occurrences(np.concatenate([ids.ids, extra]), np.concatenate([ids.rows, extra_rows]))
    width = max(len(vocab), 1)
    keys = _distinct(ids.rows * width + ids.ids)
    return Occurrences(keys % width, keys // width)


def replaced_rows(found: Occurrences, rows: list[int], other: Occurrences) -> Occurrences:
    """``found`` with the occurrences of ``rows`` replaced by ``other`` (of those rows), in row order."""
    if not rows:
        return found
    keep = ~np.isin(found.rows, rows)
    other_ids = np.where(other.ids < 0, other.ids - len(found.numbers), other.ids)  # after ``found``'s numbers
    return _in_row_order(
        np.concatenate([found.ids[keep], other_ids]),
        np.concatenate([found.rows[keep], other.rows]),
        [*found.numbers, *other.numbers],
    )
