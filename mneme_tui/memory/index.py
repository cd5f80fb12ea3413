"""An in-memory numpy index over every memory, so a recall is a handful of array operations.

It holds the embedding matrix, token postings, kinds, repos, creation days, access counts and statuses,
and (in ``term_features.TermFeatures``) the analysed terms the ``bm25`` profile ranks by. ``refresh`` asks the
``memory_revision`` table (filled by triggers) which rows changed since the last look, in this process
or any other, and loads only those: new rows are appended, changed rows are updated in place, and the
postings are rebuilt lazily when content changed. Each text is split into words once: the spec's token
set and the analysed terms are both made from that one pass.
"""

from __future__ import annotations

import itertools
import logging
import threading
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import peewee

from mneme_tui.config import parse_timestamp
from mneme_tui.memory.analysis import Analyzer, searchable_text
from mneme_tui.memory.growing import GrowingArrays
from mneme_tui.memory.kinds import ALL_KINDS, DECAY_LAMBDA, STATUSES
from mneme_tui.memory.persistence.index_queries import index_rows
from mneme_tui.memory.persistence.memories import index_load_batches
from mneme_tui.memory.persistence.repositories import database_revision
from mneme_tui.memory.postings import build_postings
from mneme_tui.memory.term_features import TermFeatures
from mneme_tui.memory.text_batches import ChunkTable, Occurrences, replaced_rows, spec_tokens
from mneme_tui.memory.vectors import BLOB_BYTES, DIMENSIONS, tokenize_lowered

log = logging.getLogger("mneme_tui.index")
NOTICE_ROWS = 100_000
"""A full load of a store this large (about a second or more) says so first, at INFO level (the CLI shows
such notices on a terminal; an agent's pipe, the TUI and the MCP server do not)."""

_EPOCH = np.datetime64("1970-01-01T00:00:00", "us")
_US_PER_DAY = 86_400_000_000


def days_since_epoch(values: list[str] | np.ndarray) -> np.ndarray:
    """Float days since 1970 (UTC) of stored ``created_at`` text.

    Our own rows (``YYYY-MM-DD HH:MM:SS[.ffffff]``) take one vectorised numpy parse; rows written by
    other tools (``T`` separators, ``Z`` or ``+02:00`` offsets, nanoseconds) are parsed one by one.
    """
    texts = [str(v) for v in values]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            stamps = np.array(texts, dtype="datetime64[us]")
    except (ValueError, Warning):
        stamps = np.array([_naive_utc_text(text) for text in texts], dtype="datetime64[us]")
    return (stamps - _EPOCH).astype(np.int64) / _US_PER_DAY


def _naive_utc_text(text: str) -> str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.datetime64(text, "us")
        return text
    except (ValueError, Warning):
        return parse_timestamp(text, source="created_at").isoformat()


@dataclass
class Candidates:
    """The rows one kind of query may see, with their static factors (cached per query shape)."""

    rows: np.ndarray  # int64 positions into the index
    local: np.ndarray  # bool: exact repo match (locality applies)
    capped: np.ndarray  # bool: global axiom subject to the slot cap
    is_all: bool  # every row of the index is a candidate (no gather needed)
    any_capped: bool = field(init=False)  # some candidate is a capped global axiom
    _maps: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _avg_length: float | None = field(default=None, repr=False)
    factors: object | None = field(default=None, repr=False)  # ranking's cached per-row factors
    term_scores: dict = field(default_factory=dict, repr=False)  # bm25's cached per-term scores (bm25_scores)
    _matrix: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.any_capped = bool(self.capped.any())

    def matrix(self, vectors: np.ndarray) -> np.ndarray:
        """The candidates' embedding rows (a cached copy when they are a subset)."""
        if self.is_all:
            return vectors
        if self._matrix is None:
            self._matrix = vectors[self.rows]
        return self._matrix

    def maps(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(member, local_of): per index row, whether it is a candidate and its position in ``rows`` (or -1)."""
        if self._maps is None:
            member = np.zeros(size, dtype=bool)
            member[self.rows] = True
            local_of = np.full(size, -1, dtype=np.int64)
            local_of[self.rows] = np.arange(self.rows.size, dtype=np.int64)
            self._maps = (member, local_of)
        return self._maps

    def average_length(self, lengths: np.ndarray) -> float:
        """Median analysed length of the candidates (BM25's avgdl over this candidate set; the median, so one
        outlier memory does not move it)."""
        if self._avg_length is None:
            self._avg_length = _median(lengths[self.rows]) if self.rows.size else 0.0
        return self._avg_length


def _median(values: np.ndarray) -> float:
    """The median of a non-empty array by partition (``np.median`` imports ``numpy.ma``: ~30 ms of cold start)."""
    middle = values.size // 2
    if values.size % 2:
        return float(np.partition(values, middle)[middle])
    low, high = np.partition(values, [middle - 1, middle])[middle - 1 : middle + 1]
    return (float(low) + float(high)) / 2


class RowTokens:
    """Each row's distinct token ids: one flat array with row offsets (as the snapshot stores them, so a
    loaded index needs no per-row arrays), plus the rows replaced since."""

    def __init__(self, flat: np.ndarray | None = None, starts: np.ndarray | None = None) -> None:
        self._flat = np.zeros(0, dtype=np.int32) if flat is None else flat
        self._starts = np.zeros(1, dtype=np.int64) if starts is None else starts
        self._replaced: dict[int, np.ndarray] = {}
        self._growing = GrowingArrays()

    def __len__(self) -> int:
        return self._starts.size - 1

    def __getitem__(self, row: int) -> np.ndarray:
        replaced = self._replaced.get(row)
        return self._flat[self._starts[row] : self._starts[row + 1]] if replaced is None else replaced

    def __setitem__(self, row: int, tokens: np.ndarray) -> None:
        self._replaced[row] = tokens

    def adopt(self, flat: np.ndarray, flat_used: int, starts: np.ndarray, starts_used: int) -> None:
        """Use a snapshot's flat token ids and row starts, their first ``*_used`` entries, with the room after
        them (``growing``): rows appended later are written into it."""
        self._flat = self._growing.adopt("flat", flat, flat_used)
        self._starts = self._growing.adopt("starts", starts, starts_used)

    def reserve(self, rows: int, entries: int) -> None:
        """Room for ``rows`` rows holding ``entries`` token ids in all (a load that knows its size)."""
        self._flat = self._growing.reserve("flat", self._flat, entries)
        self._starts = self._growing.reserve("starts", self._starts, rows + 1)

    def append(self, tokens: np.ndarray, lengths: np.ndarray) -> None:
        """Add rows at the end: their token ids concatenated and each row's count, written into the room
        after the flat array (``growing``): a load in batches copies it a few times, not once per batch."""
        self._flat = self._growing.append("flat", self._flat, tokens.astype(np.int32))
        self._starts = self._growing.append("starts", self._starts, self._starts[-1] + np.cumsum(lengths))

    def flat(self, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(token ids of rows ``start``…, each row's length), concatenated in row order."""
        if self._replaced:  # rows replaced in place: gathered one by one
            rows = [self[row] for row in range(start, len(self))]
            lengths = np.fromiter((t.size for t in rows), dtype=np.int64, count=len(rows))
            return (np.concatenate(rows) if rows else np.zeros(0, dtype=np.int32)), lengths
        return self._flat[self._starts[start] :], np.diff(self._starts[start:])


class MemoryIndex:
    """Column arrays over all rows of ``memories``; positions are stable and ordered by id."""

    def __init__(self, analyzer: Analyzer | None = None, topic_weight: float = 0.0) -> None:
        self.lock = threading.RLock()
        self.size = 0
        self.seq = -1  # the database revision this index reflects (MAX(id) + update_seq); -1: never loaded
        self.update_seq = 0  # MAX(seq) of memory_revision at the last refresh
        self.ids = np.zeros(0, dtype=np.int64)
        self.vectors = np.zeros((0, DIMENSIONS), dtype=np.float32)
        self.repo_codes = np.zeros(0, dtype=np.int32)
        self.kind_codes = np.zeros(0, dtype=np.int16)
        self.status_codes = np.zeros(0, dtype=np.int8)
        self.created_days = np.zeros(0, dtype=np.float64)
        self.access = np.zeros(0, dtype=np.int32)
        self.growing = GrowingArrays()  # the room after the row columns above
        self.rewritten: list[int] = []  # rows whose text changed since the index was loaded
        self.repos: dict[str, int] = {}
        self.kinds: dict[str, int] = {kind: code for code, kind in enumerate(ALL_KINDS)}
        self.statuses: dict[str, int] = {status: code for code, status in enumerate(STATUSES)}
        self.kind_lambda = np.array([DECAY_LAMBDA[k] for k in ALL_KINDS], dtype=np.float64)
        self.vocab: defaultdict[str, int] = defaultdict(itertools.count().__next__)  # token -> id
        self._row_tokens = RowTokens()  # unique token ids per row
        self._postings_rows = np.zeros(0, dtype=np.int32)
        self._postings_start = np.zeros(1, dtype=np.int64)
        self._postings_built_for = 0  # rows covered by the postings; later rows are scanned directly
        self._postings_stale = False
        self._tail_cache: tuple[tuple[int, int], np.ndarray, np.ndarray] | None = None
        self._candidates: dict[tuple[str | None, bool, str | None], Candidates] = {}
        self.terms = TermFeatures(analyzer, topic_weight)  # the bm25 profile's analysed terms
        self.chunks = ChunkTable(self.terms.analyzer)  # both analyses of a batch of texts at once

    # ----------------------------------------------------------------- loading
    def refresh(self, db: peewee.Database) -> bool:
        """Bring the index up to date with the database; True when anything changed.

        New rows are those above the highest id loaded; changed rows are those the update trigger logged
        in ``memory_revision`` after ``update_seq``. ``seq`` (their sum) grows with every write.
        """
        with self.lock:
            max_id, update_seq = database_revision(db)
            if max_id + update_seq == self.seq:
                return False
            last_id = int(self.ids[-1]) if self.size else 0
            if self.seq < 0 or update_seq < self.update_seq or max_id < last_id:
                self._reset()
                if max_id >= NOTICE_ROWS:
                    log.info("mneme: building the search index from about %s memories", f"{max_id:,}")
                for batch, (rows, vectors) in enumerate(index_load_batches(db)):  # a batch at a time: bounded memory
                    self._append(rows, vectors)
                    if batch == 0:
                        self._reserve(max_id)
                self.chunks.forget()  # the bulk load's memos
            else:
                changed = index_rows(db, after_id=last_id, after_seq=self.update_seq)
                self._apply_changes(changed)
            self.seq, self.update_seq = max_id + update_seq, update_seq
            self._candidates.clear()
            return True

    def _reset(self) -> None:
        """Empty the index for a full reload, keeping its lock (held by the caller, and waited on by other
        threads: a new lock would let them in while the reload runs)."""
        lock = self.lock
        self.__init__(self.terms.analyzer, self.terms.topic_weight)  # type: ignore[misc]
        self.lock = lock

    def _reserve(self, rows: int) -> None:
        """Room for ``rows`` rows in all (ids are never reused, so a full load has at most ``MAX(id)``), and for
        the token ids and terms as many per row as so far (and a tenth more): the batches of a load are written
        into place instead of being copied into larger arrays a dozen times."""
        if not self.size or rows <= self.size:
            return
        for name in ("ids", "vectors", "repo_codes", "kind_codes", "status_codes", "created_days", "access"):
            setattr(self, name, self.growing.reserve(name, getattr(self, name), rows))
        tokens, _ = self._row_tokens.flat()
        self._row_tokens.reserve(rows, tokens.size * rows * 11 // (self.size * 10))
        self.terms.reserve(rows, self.terms.doc_terms.size * rows * 11 // (self.size * 10))

    def _apply_changes(self, rows: list[tuple]) -> None:
        last_id = int(self.ids[-1]) if self.size else 0
        new_rows = [row for row in rows if row[0] > last_id]
        changed_text = []
        for row in rows:
            if row[0] <= last_id:
                position = self._update(row)
                if position is not None:
                    changed_text.append((position, row[3], row[4]))
        if changed_text:
            positions, topics, contents = zip(*changed_text)
            self.chunks.trim()
            texts = list(map(searchable_text, contents))
            self.terms.replace(list(positions), *self._bm25_terms(texts, topics, self.chunks.codes(texts)))
        if new_rows:
            self._append(new_rows)

    def _update(self, row: tuple) -> int | None:
        """Update one known row in place; its position, or None when the id is not in the index."""
        memory_id, repo_id, kind, _topic, content, blob, created_at, status, access = row
        position = int(np.searchsorted(self.ids, memory_id))
        if position >= self.size or self.ids[position] != memory_id:
            return None  # ids are never reused, so an unknown id below the max cannot happen; ignore
        self.repo_codes[position] = self._repo_code(repo_id)
        self.kind_codes[position] = self._kind_code(kind)
        self.status_codes[position] = self.statuses.get(status, -1)
        self.access[position] = access
        self.created_days[position] = days_since_epoch([created_at])[0]
        self.vectors[position] = _decode(blob)
        tokens = self._token_ids(content)
        if not np.array_equal(np.sort(tokens), np.sort(self._row_tokens[position])):
            self._row_tokens[position] = tokens
            self._postings_stale = True
            self.rewritten.append(position)
        return position

    def _append(self, rows: list[tuple], vectors: np.ndarray | None = None) -> None:
        """Add rows (``INDEX_COLUMNS`` order); ``vectors`` (one row each) replaces their embedding column."""
        if not rows:
            return
        ids, repos, kinds, topics, contents, blobs, created, statuses, access = zip(*rows)
        count = len(rows)
        grow = self.growing.append  # into the room after each column (a snapshot's map too): no copy
        self.ids = grow("ids", self.ids, np.asarray(ids, dtype=np.int64))
        self.vectors = grow("vectors", self.vectors, _embeddings(blobs) if vectors is None else vectors)
        self.repo_codes = grow("repo_codes", self.repo_codes, _codes(repos, self._repo_code, np.int32))
        self.kind_codes = grow("kind_codes", self.kind_codes, _codes(kinds, self._kind_code, np.int16))
        status_codes = _codes(statuses, lambda status: self.statuses.get(status, -1), np.int8)
        self.status_codes = grow("status_codes", self.status_codes, status_codes)
        self.created_days = grow("created_days", self.created_days, days_since_epoch(list(created)))
        self.access = grow("access", self.access, np.asarray(access, dtype=np.int32))
        self.chunks.trim()
        found = self.chunks.codes(contents)  # one pass over the batch's texts, shared by both analyses
        tokens = spec_tokens(self.chunks, contents, found, self.vocab)
        self._row_tokens.append(tokens.ids, np.bincount(tokens.rows, minlength=count))
        texts = list(map(searchable_text, contents))  # bm25 leaves out field labels; the spec reads everything
        relabelled = [row for row, (text, content) in enumerate(zip(texts, contents)) if text is not content]
        if relabelled:
            cut = self.chunks.codes([texts[row] for row in relabelled])
            cut.rows = np.asarray(relabelled, dtype=np.int64)[cut.rows]
            found = replaced_rows(found, relabelled, cut)
        self.terms.append(*self._bm25_terms(texts, topics, found), count)
        self.size += count
        if self.size - self._postings_built_for > max(2_000, self._postings_built_for // 5):
            self._postings_stale = True

    def _repo_code(self, repo: str | None) -> int:
        return self.repos.setdefault(repo or "", len(self.repos))

    def _kind_code(self, kind: str) -> int:
        if kind not in self.kinds:  # a kind written by another tool: decays like a reflection
            self.kinds[kind] = len(self.kinds)
            self.kind_lambda = np.append(self.kind_lambda, DECAY_LAMBDA["reflection"])
        return self.kinds[kind]

    def _bm25_terms(
        self, texts: Sequence[str], topics: Sequence[str], found: Occurrences
    ) -> tuple[Occurrences, Occurrences | None]:
        """The analysed terms of ``texts`` (whose chunks are ``found``) and, when topics weigh, the topics'."""
        terms = self.chunks.term_ids(found, self.terms.vocab)
        if self.terms.topic_weight <= 0:
            return terms, None
        return terms, self.chunks.term_ids(self.chunks.codes([topic or "" for topic in topics]), self.terms.vocab)

    def _token_ids(self, text: str) -> np.ndarray:
        distinct = set(tokenize_lowered(text.lower()))
        return np.fromiter(map(self.vocab.__getitem__, distinct), dtype=np.int32, count=len(distinct))

    def purged_since_load(self) -> bool:
        """True when a row loaded earlier had its text rewritten and is now tombstoned: a purge, seen while
        catching up. Its old words are still in the vocabularies (and in a snapshot this index was loaded
        from or saved as) until a full reload."""
        tombstoned = self.statuses["tombstoned"]
        return any(self.status_codes[position] == tombstoned for position in self.rewritten)

    # ---------------------------------------------------------------- queries
    def query_token_ids(self, tokens: list[str]) -> np.ndarray:
        """Ids of the distinct query tokens that occur in some memory."""
        known = {self.vocab[t] for t in set(tokens) if t in self.vocab}
        return np.fromiter(known, dtype=np.int32, count=len(known))

    def token_overlap(self, token_ids: np.ndarray) -> np.ndarray:
        """For every row, how many of ``token_ids`` (distinct) occur in its content."""
        counts = np.zeros(self.size, dtype=np.float32)
        if token_ids.size == 0 or self.size == 0:
            return counts
        self._ensure_postings()
        starts, ends = self._postings_start[token_ids], self._postings_start[token_ids + 1]
        for start, end in zip(starts.tolist(), ends.tolist()):
            counts[self._postings_rows[start:end]] += 1.0
        if self._postings_built_for < self.size:
            tokens, owners = self._tail()
            hits = owners[np.isin(tokens, token_ids)]
            counts += np.bincount(hits, minlength=self.size).astype(np.float32)
        return counts

    def row_overlap(self, rows: np.ndarray, token_ids: np.ndarray) -> np.ndarray:
        """``token_overlap`` for a few rows only (one small set test per row)."""
        return np.array([np.isin(self._row_tokens[r], token_ids).sum() for r in rows.tolist()], dtype=np.float64)

    def _tail(self) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and owning rows of the rows appended since the postings were built."""
        span = (self._postings_built_for, self.size)
        if self._tail_cache is None or self._tail_cache[0] != span:
            start = self._postings_built_for
            tokens, lengths = self._row_tokens.flat(start)
            owners = np.repeat(np.arange(start, self.size, dtype=np.int64), lengths)
            self._tail_cache = (span, tokens, owners)
        return self._tail_cache[1], self._tail_cache[2]

    def _ensure_postings(self) -> None:
        vocab_size = len(self.vocab)
        if not self._postings_stale and self._postings_start.size == vocab_size + 1:
            return
        if not self._postings_stale and self._postings_built_for < self.size:
            # only appended rows are new: they are scanned directly until there are enough of them
            self._postings_start = np.concatenate(
                [self._postings_start, np.full(vocab_size + 1 - self._postings_start.size, self._postings_start[-1])]
            )
            return
        tokens, lengths = self._row_tokens.flat()
        self._postings_rows, self._postings_start, _ = build_postings(tokens, lengths, vocab_size)
        self._postings_built_for = self.size
        self._postings_stale = False

    def candidates(self, repo: str | None, cross_repo: bool, kind: str | None, global_repo: str) -> Candidates:
        """Active rows visible to a query of this shape (cached until the next change)."""
        key = (None if cross_repo else repo, cross_repo, kind)
        cached = self._candidates.get(key)
        if cached is not None:
            return cached
        mask = self.status_codes == self.statuses["active"]
        if kind is not None:
            mask &= self.kind_codes == self.kinds.get(kind, -1)
        local = np.zeros(self.size, dtype=bool)
        global_code = self.repos.get(global_repo, -1)
        is_global = self.repo_codes == global_code
        if not cross_repo:
            local = self.repo_codes == self.repos.get(repo or "", -2)
            mask &= local | is_global
        rows = np.flatnonzero(mask)
        capped = np.zeros(rows.size, dtype=bool)
        if not cross_repo and kind is None:
            capped = is_global[rows] & (self.kind_codes[rows] == self.kinds["axiom"]) & ~local[rows]
        result = Candidates(rows=rows, local=local[rows], capped=capped, is_all=rows.size == self.size)
        self._candidates[key] = result
        return result


def _codes(values: Sequence, code_of: Callable[[Any], int], dtype: type) -> np.ndarray:
    """``code_of`` each value, called once per distinct value (in the order they first occur)."""
    table = {value: code_of(value) for value in dict.fromkeys(values)}
    return np.fromiter(map(table.__getitem__, values), dtype, len(values))


def _embeddings(blobs: Sequence[bytes | None]) -> np.ndarray:
    """The stored embeddings as a (rows, DIMENSIONS) float32 matrix; a missing or malformed blob is zeros."""
    whole = None not in blobs and set(map(len, blobs)) <= {BLOB_BYTES}  # type: ignore[arg-type]
    joined = b"".join(blobs if whole else map(_normal_blob, blobs))  # type: ignore[arg-type]
    return np.frombuffer(joined, dtype="<f4").reshape(len(blobs), DIMENSIONS)


def _normal_blob(blob: bytes | None) -> bytes:
    return blob if blob and len(blob) == BLOB_BYTES else b"\x00" * BLOB_BYTES


def _decode(blob: bytes | None) -> np.ndarray:
    return np.frombuffer(_normal_blob(blob), dtype="<f4").astype(np.float32)
