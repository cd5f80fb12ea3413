"""A word → id table as a snapshot stores it (:class:`SnapshotVocab`), and the arrays it is stored as.

The snapshot (``index_snapshot``) keeps each vocabulary as its words in id order (UTF-8, each ended by a
newline), where each word starts, and the ids in the words' sorted order; a cold process looks words up by
binary search in those mapped arrays instead of building a dict of a million words. A batch of words (the
rows a cold process catches up on) is looked up in one vectorised search (``SnapshotVocab.prefetch``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np


class SnapshotVocab(defaultdict):
    """A word → id table as a snapshot stores it, usable without building the dict first.

    Loading a million-word vocabulary into a dict costs more than the rest of a cold recall, which
    looks up a handful of words. So a word is found by binary search in the snapshot's sorted word
    list (and remembered); the whole dict is built only when it is needed: a listing, or many look-ups
    (catching up on rows written since). A new word gets the next id without it (``setdefault`` with
    ``len(vocab)``, or with ``new_ids`` a plain look-up, as the index's ``defaultdict`` vocabulary
    does); without ``new_ids`` a look-up of a new word is a KeyError.
    """

    LOOKUPS_BEFORE_FILLING = 4_096

    def __init__(self, blob: np.ndarray, starts: np.ndarray, order: np.ndarray, *, new_ids: bool) -> None:
        super().__init__(None)
        self._blob, self._starts, self._order = blob, starts, order
        self._count = int(order.size)
        self._new_ids = new_ids
        self._lookups = 0
        self._filled = False
        self._added = 0  # new words given ids before the dict was filled
        self._absent: set[str] = set()  # words ``prefetch`` found not in the snapshot

    def _word(self, word_id: int) -> bytes:
        return self._blob[self._starts[word_id] : self._starts[word_id + 1] - 1].tobytes()

    def _find(self, word: str) -> int | None:
        """The id of ``word`` in the snapshot (binary search over the words in byte order), or None."""
        key = word.encode("utf-8", "surrogatepass")
        low, high = 0, self._count
        while low < high:
            middle = (low + high) // 2
            if self._word(int(self._order[middle])) < key:
                low = middle + 1
            else:
                high = middle
        if low < self._count and self._word(int(self._order[low])) == key:
            return int(self._order[low])
        return None

    def prefetch(self, words: Iterable[str]) -> None:
        """Look up many words at once (one vectorised binary search over the sorted words), remembering
        which are in the snapshot (with their ids) and which are not, so the look-ups that follow are
        dict hits: catching up on a thousand rows costs no thousands of searches one by one."""
        if self._filled or not self._count:
            return
        wanted = [w for w in set(words) if not dict.__contains__(self, w) and w not in self._absent]
        if not wanted:
            return
        keys = [word.encode("utf-8", "surrogatepass") for word in wanted]
        width = max(map(len, keys)) + 1
        query = np.frombuffer(b"".join(key.ljust(width, b"\0") for key in keys), np.uint8).reshape(len(keys), width)
        lengths = np.fromiter(map(len, keys), np.int64, len(keys))
        low, high = np.zeros(len(keys), np.int64), np.full(len(keys), self._count, np.int64)
        while (active := low < high).any():
            middle = (low + high) // 2
            less, _ = self._compare(middle, query, lengths)
            low = np.where(active & less, middle + 1, low)
            high = np.where(active & ~less, middle, high)
        _, equal = self._compare(low, query, lengths)
        ids = self._order[np.minimum(low, self._count - 1)]
        for word, is_known, word_id in zip(wanted, equal.tolist(), ids.tolist(), strict=True):
            if is_known:
                dict.__setitem__(self, word, word_id)
            else:
                self._absent.add(word)

    def _compare(self, ranks: np.ndarray, query: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(stored word < query word, stored word == query word) for the words at sorted ``ranks`` (none
        past the end) against the zero-padded ``query`` rows of ``lengths`` bytes, in byte order."""
        valid = ranks < self._count
        ids = self._order[np.minimum(ranks, self._count - 1)]
        starts = self._starts[ids]
        stored_lengths = self._starts[ids + 1] - 1 - starts
        columns = np.arange(query.shape[1])
        inside = columns < stored_lengths[:, None]
        stored = np.where(inside, self._blob[np.minimum(starts[:, None] + columns, self._blob.size - 1)], 0)
        differs = stored != query
        first = differs.argmax(axis=1)
        rows = np.arange(query.shape[0])
        same = ~differs.any(axis=1)
        less = np.where(same, stored_lengths < lengths, stored[rows, first] < query[rows, first])
        return less & valid, same & (stored_lengths == lengths) & valid

    def _known(self, word: str) -> int | None:
        """The id of a word the snapshot has (remembered), or None; fills the dict after many look-ups."""
        if word in self._absent:
            return None
        self._lookups += 1
        if self._lookups > self.LOOKUPS_BEFORE_FILLING:
            self._fill()
            return dict.get(self, word)
        found = self._find(word)
        if found is not None:
            dict.__setitem__(self, word, found)
        return found

    def _fill(self) -> None:
        if not self._filled:  # marked filled only once it is: until then len() counts from the snapshot, so a
            # thread reading the length while another fills it (a snapshot's postings beside its write) reads it right
            dict.update(self, zip(_words(self._blob[:-1]), range(self._count)))
            self._filled = True

    def __missing__(self, word: str) -> int:
        found = None if self._filled else self._known(word)
        if found is not None:
            return found
        if not self._new_ids:
            raise KeyError(word)
        return self._add(word)

    def _add(self, word: str) -> int:
        """Give a word the snapshot does not have the next id (filling the dict is not needed for that)."""
        word_id = len(self)
        dict.__setitem__(self, word, word_id)
        if not self._filled:
            self._added += 1
        return word_id

    def __contains__(self, word: object) -> bool:
        if dict.__contains__(self, word):
            return True
        return not self._filled and isinstance(word, str) and self._known(word) is not None

    def __len__(self) -> int:
        return dict.__len__(self) if self._filled else self._count + self._added

    def setdefault(self, word: str, default: int) -> int:  # type: ignore[override]
        """The word's id; a new word gets ``default``, which must be the next id (``len(vocab)``)."""
        if word in self:
            return self[word]
        if default != len(self):
            raise ValueError(f"a new word's id must be the next one ({len(self)}), not {default}")
        return self._add(word)

    def get(self, word: str, default: Any = None) -> Any:
        return self[word] if word in self else default  # noqa: SIM401 (dict.get would skip the snapshot)

    def __iter__(self) -> Iterator[str]:
        self._fill()
        return dict.__iter__(self)

    def keys(self) -> Any:
        self._fill()
        return dict.keys(self)

    def values(self) -> Any:
        self._fill()
        return dict.values(self)

    def items(self) -> Any:
        self._fill()
        return dict.items(self)

    def __eq__(self, other: object) -> bool:
        self._fill()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]


def word_table(name: str, vocab: dict[str, int]) -> dict[str, np.ndarray]:
    """A vocabulary as arrays: its words in id order (UTF-8, each ended by a newline: no word holds one), where
    each starts, and the ids in the words' sorted order (Python's str order is UTF-8's byte order)."""
    words = list(vocab)  # a vocabulary that only grew holds its words in id order: one encode for them all
    if np.any(np.fromiter(vocab.values(), dtype=np.int64, count=len(words)) != np.arange(len(words))):
        words = sorted(vocab, key=vocab.__getitem__)
    text = "\n".join(words) + "\n" if words else ""  # each word ended by a newline, without a new str per word
    blob = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    return {
        name: blob,
        f"{name}_start": np.concatenate([[0], np.flatnonzero(blob == 10) + 1]).astype(np.int64),
        f"{name}_order": np.array(sorted(range(len(words)), key=words.__getitem__), dtype=np.int64),
    }


def _words(data: np.ndarray) -> list[str]:
    return data.tobytes().decode("utf-8", "surrogatepass").split("\n") if data.size else []
