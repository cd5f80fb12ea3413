"""Every memory's analysed terms with their frequencies (:class:`TermFeatures`), for the ``bm25`` profile.

Rows arrive analysed in batches (``text_batches``: each distinct chunk of text analysed once by
``analysis.Analyzer``); a batch's term ids become per-row counts in a few numpy passes.
"""

from __future__ import annotations

import numpy as np

from mneme_tui.memory.analysis import DEFAULT_ANALYZER, Analyzer
from mneme_tui.memory.growing import GrowingArrays
from mneme_tui.memory.postings import build_postings
from mneme_tui.memory.text_batches import Occurrences


class TermFeatures:
    """The analysed terms of every row (``analysis.Analyzer``) with their frequencies, for BM25.

    Row-major CSR (``doc_start``/``doc_terms``/``doc_tf``, terms ascending within a row) is the source
    of truth, kept up to date by appends and replacements and saved in the snapshot; ``doc_len`` is each
    row's analysed length. Term-major postings are derived lazily for queries; rows appended since they
    were built are scanned directly, as the spec's token postings do. With ``topic_weight`` w > 0 the
    topic's terms count w times each (a BM25F-style pseudo-field); the shipped profile uses w = 0.
    """

    def __init__(self, analyzer: Analyzer | None = None, topic_weight: float = 0.0) -> None:
        self.analyzer = analyzer or DEFAULT_ANALYZER
        self.topic_weight = float(topic_weight)
        self.vocab: dict[str, int] = {}
        self.doc_start = np.zeros(1, dtype=np.int64)
        self.doc_terms = np.zeros(0, dtype=np.int32)
        self.doc_tf = np.zeros(0, dtype=np.float32)
        self.doc_len = np.zeros(0, dtype=np.float32)
        self.growing = GrowingArrays()  # the room after the four arrays above
        self._post_rows = np.zeros(0, dtype=np.int32)
        self._post_tf = np.zeros(0, dtype=np.float32)
        self._post_start = np.zeros(1, dtype=np.int64)
        self._built_for = 0
        self._stale = False
        self._tail_cache: tuple[tuple[int, int], np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def size(self) -> int:
        return self.doc_len.size

    @property
    def key(self) -> str:
        """What the stored terms depend on; a snapshot made with another key is not reused."""
        return repr((*self.analyzer.key, self.topic_weight))

    # ------------------------------------------------------------------ analysis
    def _counted(self, terms: Occurrences, topic: Occurrences | None, count: int) -> tuple[np.ndarray, ...]:
        """(per-row entry counts, terms, tf, lengths) of ``count`` rows from their analysed terms (``text_batches``)
        and, when topics weigh, their topics' terms; entries sorted by (row, term)."""
        owners, ids, weights = terms.rows, terms.ids, None
        if topic is not None:  # a topic's terms count ``topic_weight`` each (BM25F-style)
            owners, ids = np.concatenate([owners, topic.rows]), np.concatenate([ids, topic.ids])
            weights = np.concatenate([np.ones(terms.ids.size), np.full(topic.ids.size, self.topic_weight)])
        width = max(len(self.vocab), 1)
        keys = owners * width + ids
        if weights is None:
            keys = np.sort(keys)
            doc_len = np.bincount(owners, minlength=count).astype(np.float32)
        else:
            order = np.argsort(keys, kind="stable")
            keys, weights = keys[order], weights[order]
            doc_len = np.bincount(owners, weights=weights[np.argsort(order)], minlength=count).astype(np.float32)
        first = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]])) if keys.size else keys
        if weights is None:
            tf = np.diff(np.append(first, keys.size)).astype(np.float32)
        else:
            tf = np.add.reduceat(weights, first).astype(np.float32) if keys.size else np.zeros(0, np.float32)
        unique = keys[first]
        per_row = np.bincount(unique // width, minlength=count).astype(np.int64)
        return per_row, (unique % width).astype(np.int32), tf, doc_len

    def reserve(self, rows: int, entries: int) -> None:
        """Room for ``rows`` rows holding ``entries`` (row, term) entries in all (a load that knows its size)."""
        grow = self.growing.reserve
        self.doc_start = grow("doc_start", self.doc_start, rows + 1)
        self.doc_terms = grow("doc_terms", self.doc_terms, entries)
        self.doc_tf = grow("doc_tf", self.doc_tf, entries)
        self.doc_len = grow("doc_len", self.doc_len, rows)

    def append(self, terms: Occurrences, topic: Occurrences | None, count: int) -> None:
        """Add ``count`` rows at the end, from their analysed terms (and their topics' when topics weigh)."""
        per_row, ids, tf, doc_len = self._counted(terms, topic, count)
        grow = self.growing.append  # into the room after each array (a snapshot's map too): no copy
        self.doc_start = grow("doc_start", self.doc_start, self.doc_start[-1] + np.cumsum(per_row))
        self.doc_terms = grow("doc_terms", self.doc_terms, ids)
        self.doc_tf = grow("doc_tf", self.doc_tf, tf)
        self.doc_len = grow("doc_len", self.doc_len, doc_len)
        if self.size - self._built_for > max(2_000, self._built_for // 5):
            self._stale = True

    def replace(self, positions: list[int], terms: Occurrences, topic: Occurrences | None = None) -> None:
        """Re-analysed rows whose text may have changed (their terms numbered by their order in ``positions``);
        the postings go stale only if a row's terms did."""
        per_row, ids, tf, doc_len = self._counted(terms, topic, len(positions))
        starts = np.concatenate([[0], np.cumsum(per_row)])
        changed: dict[int, tuple[np.ndarray, np.ndarray, np.float32]] = {}
        for number, position in enumerate(positions):
            new_terms, new_tf = ids[starts[number] : starts[number + 1]], tf[starts[number] : starts[number + 1]]
            old = slice(self.doc_start[position], self.doc_start[position + 1])
            if not (np.array_equal(new_terms, self.doc_terms[old]) and np.array_equal(new_tf, self.doc_tf[old])):
                changed[position] = (new_terms, new_tf, doc_len[number])
        if not changed:
            return
        lengths = np.diff(self.doc_start)
        owners = np.repeat(np.arange(self.size, dtype=np.int64), lengths)
        keep = ~np.isin(owners, np.fromiter(changed, dtype=np.int64, count=len(changed)))
        new_owners = np.concatenate(
            [owners[keep]] + [np.full(v[0].size, p, dtype=np.int64) for p, v in changed.items()]
        )
        order = np.argsort(new_owners, kind="stable")
        self.doc_terms = np.concatenate([self.doc_terms[keep]] + [v[0] for v in changed.values()])[order]
        self.doc_tf = np.concatenate([self.doc_tf[keep]] + [v[1] for v in changed.values()])[order]
        for position, (new_terms, _, new_len) in changed.items():
            lengths[position] = new_terms.size
            self.doc_len[position] = new_len
        self.doc_start = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        self._stale = True
        self._tail_cache = None

    # ------------------------------------------------------------------- queries
    def query_terms(self, text: str) -> tuple[np.ndarray, int]:
        """(ids of the distinct analysed query terms that occur in some row, sorted; how many distinct terms)."""
        distinct = set(self.analyzer.terms(text))
        known = sorted({self.vocab[t] for t in distinct if t in self.vocab})
        return np.asarray(known, dtype=np.int64), len(distinct)

    def postings_of(self, term_ids: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per query term (sorted ``term_ids``): the rows it occurs in (the built postings in no particular
        order, a view of them when no row was appended since; then the rows appended since) and its tf in each."""
        if term_ids.size == 0 or self.size == 0:
            return []
        self._ensure_postings()
        built_terms = self._post_start.size - 1
        lists = []
        for term in term_ids.tolist():
            if term < built_terms:
                span = slice(self._post_start[term], self._post_start[term + 1])
                lists.append((self._post_rows[span], self._post_tf[span]))
            else:
                lists.append((np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)))
        if self._built_for < self.size:
            tail_terms, tail_rows, tail_tf = self._tail()
            hit = np.flatnonzero(np.isin(tail_terms, term_ids))
            which = np.searchsorted(term_ids, tail_terms[hit])
            for number, (rows, tfs) in enumerate(lists):
                mine = hit[which == number]
                if mine.size:
                    rows = np.concatenate([rows.astype(np.int64), tail_rows[mine]])
                    lists[number] = (rows, np.concatenate([tfs, tail_tf[mine]]))
        return lists

    def _tail(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        span = (self._built_for, self.size)
        if self._tail_cache is None or self._tail_cache[0] != span:
            first = int(self.doc_start[self._built_for])
            lengths = np.diff(self.doc_start[self._built_for :])
            owners = np.repeat(np.arange(self._built_for, self.size, dtype=np.int64), lengths)
            self._tail_cache = (span, self.doc_terms[first:], owners, self.doc_tf[first:])
        return self._tail_cache[1], self._tail_cache[2], self._tail_cache[3]

    def postings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The term-major postings of every row (rebuilt first if rows were added since): rows, tfs, starts."""
        if self._built_for < self.size:
            self._stale = True
        self._ensure_postings()
        return self._post_rows, self._post_tf, self._post_start

    def use_postings(self, rows: np.ndarray, tfs: np.ndarray, starts: np.ndarray) -> None:
        """Take postings of every current row (as :meth:`postings` gave them) instead of building them."""
        if starts.size == 0 or starts[0] != 0 or starts[-1] != rows.size or rows.size != tfs.size:
            raise ValueError("postings do not fit together")
        if rows.size != self.doc_terms.size or starts.size > len(self.vocab) + 1:
            raise ValueError("postings do not fit the analysed terms")
        self._post_rows, self._post_tf, self._post_start = rows, tfs, starts
        self._built_for, self._stale, self._tail_cache = self.size, False, None

    def _ensure_postings(self) -> None:
        """Rebuild the term-major postings when rows changed or enough rows were appended since."""
        if not self._stale:
            return
        vocab_size = len(self.vocab)
        lengths = np.diff(self.doc_start)
        self._post_rows, self._post_start, (self._post_tf,) = build_postings(
            self.doc_terms, lengths, vocab_size, self.doc_tf
        )
        self._built_for = self.size
        self._stale = False
        self._tail_cache = None
