"""Text analysis for the ``bm25`` ranking profile, and :class:`TermFeatures`, every memory's analysed terms.

The spec profile keeps its own tokenizer (``vectors.tokenize``); this module never changes it. Here a
text becomes a list of *terms* in four deterministic steps (no model, no download, no locale):

1. **Words**: maximal runs of Unicode letters and digits (the spec's ``[^\\W_]+``), taken from the
   original text so case is still visible; underscores and punctuation separate words, so
   ``connection_context`` → ``connection``, ``context`` and ``src/store/models.py`` → ``src``,
   ``store``, ``models``, ``py``.
2. **Identifier splitting**: a word is cut at ASCII camel-case boundaries, a lowercase letter followed by
   an uppercase one (``useCart`` → ``use``, ``Cart``) or an uppercase run followed by a capitalised word
   (``HTTPServer`` → ``HTTP``, ``Server``). Digits never split a word (``arm64``, ``Int64`` stay whole).
3. **Stop words**: lowercased words in :data:`STOP_WORDS` (the classic English function-word list of
   NLTK/Snowball, negations kept) are dropped.
4. **Stemming**: the remaining words are lowercased and reduced with the Porter (1980) stemmer
   (:func:`porter_stem`), so ``locked``/``locking``/``locks`` all become ``lock``. Words containing a
   digit are not stemmed.

Optionally (``compounds=True``, off by default) the *whole* identifier is also kept as an extra,
unstemmed term next to its parts: every run of words joined by ``_ . / -`` (``connection_context``,
``src/store/models.py``, ``db.atomic``) and every camel-case word (``operationalerror``). On the
evaluation set it changed nothing (identifier questions are already answered by their parts), so the
shipped profile leaves it off and keeps the index smaller.

Each step can be switched off (:class:`Analyzer` fields); the evaluation harness's ablation table uses that.
Analysis is memoised per distinct word, so analysing a large store costs one regex pass per text (shared
with the spec's tokenizer, see ``MemoryIndex._append``) plus a dictionary lookup per word.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

import numpy as np

WORD = re.compile(r"[^\W_]+")
"""The spec tokenizer's word pattern, applied to the original (not lowercased) text."""
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")  # the same matches on ASCII text, found about 25% faster


def words_of(text: str) -> list[str]:
    """``WORD.findall(text)``: the spec's words, in their original case."""
    return _ASCII_WORD.findall(text) if text.isascii() else WORD.findall(text)

COMPOUND = re.compile(r"[^\W_]+(?:[._/\-]+[^\W_]+)+")
"""Words joined by ``_``, ``.``, ``/`` or ``-``: identifiers, dotted names and paths."""
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_HAS_DIGIT = re.compile(r"\d")
_MEMO_LIMIT = 500_000  # memoised words before a memo is cleared

STOP_WORDS: frozenset[str] = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
    herself it its itself they them their theirs themselves what which who whom this that these those am is
    are was were be been being have has had having do does did doing a an the and but if or because as until
    while of at by for with about against between into through during before after above below to from up
    down in out on off over under again further then once here there when where why how all any both each
    few more most other some such only own same so than too very s t can will just should now d ll m o re ve
    y would could might must shall may also let lets get got
    """.split()
)
"""English function words (NLTK's/Snowball's list without the negations no/nor/not, plus a few modal and
auxiliary verbs). Negations stay because they carry meaning in engineering notes ("NOT NULL", "not
wrapped in act")."""


# --------------------------------------------------------------------------- Porter stemmer


def _consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in "aeiou":
        return False
    if ch == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``[C](VC)^m[V]``."""
    m, previous_vowel = 0, False
    for i in range(len(stem)):
        vowel = not _consonant(stem, i)
        if previous_vowel and not vowel:
            m += 1
        previous_vowel = vowel
    return m


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """*o: ends consonant-vowel-consonant, the last not w, x or y."""
    if len(word) < 3:
        return False
    return (
        _consonant(word, len(word) - 3)
        and not _consonant(word, len(word) - 2)
        and _consonant(word, len(word) - 1)
        and word[-1] not in "wxy"
    )


_STEP2 = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
    ("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"),
    ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"),
    ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
)
_STEP3 = (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", ""),
)
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism",
    "ate", "iti", "ous", "ive", "ize",
)


def _longest(word: str, suffixes) -> str | None:
    best = None
    for suffix in suffixes:
        if word.endswith(suffix) and (best is None or len(suffix) > len(best)):
            best = suffix
    return best


def _step1(word: str) -> str:
    if word.endswith(("sses", "ies")):  # 1a
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    # 1b
    second_or_third = False
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    elif word.endswith("ed") and _has_vowel(word[:-2]):
        word, second_or_third = word[:-2], True
    elif word.endswith("ing") and _has_vowel(word[:-3]):
        word, second_or_third = word[:-3], True
    if second_or_third:
        if word.endswith(("at", "bl", "iz")):
            word += "e"
        elif _double_consonant(word) and word[-1] not in "lsz":
            word = word[:-1]
        elif _measure(word) == 1 and _cvc(word):
            word += "e"
    # 1c
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    return word


def _step2to5(word: str) -> str:
    suffix = _longest(word, (s for s, _ in _STEP2))
    if suffix is not None and _measure(word[: -len(suffix)]) > 0:
        word = word[: -len(suffix)] + dict(_STEP2)[suffix]
    suffix = _longest(word, (s for s, _ in _STEP3))
    if suffix is not None and _measure(word[: -len(suffix)]) > 0:
        word = word[: -len(suffix)] + dict(_STEP3)[suffix]
    suffix = _longest(word, _STEP4)
    if suffix is not None:
        stem = word[: -len(suffix)]
        if _measure(stem) > 1 and (suffix != "ion" or stem.endswith(("s", "t"))):
            word = stem
    # 5a
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    # 5b
    if _measure(word) > 1 and _double_consonant(word) and word.endswith("l"):
        word = word[:-1]
    return word


def porter_stem(word: str) -> str:
    """The Porter (1980) stem of a lowercase word (words of one or two letters are returned unchanged)."""
    if len(word) <= 2:
        return word
    return _step2to5(_step1(word))


def light_stem(word: str) -> str:
    """Porter's step 1 only: plurals and -ed/-ing endings (``locked`` → ``lock``), no derivational suffixes."""
    if len(word) <= 2:
        return word
    return _step1(word)


STEMMERS = {"porter": porter_stem, "light": light_stem, "none": None}


# --------------------------------------------------------------------------- the analyzer


@dataclass
class Analyzer:
    """Turns text into terms. The defaults are the ``bm25f`` profile's; each flag is one ablation switch."""

    split_identifiers: bool = True
    stop_words: bool = True
    stemmer: str = "porter"
    compounds: bool = False
    _memo: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.stemmer not in STEMMERS:
            raise ValueError(f"unknown stemmer {self.stemmer!r} (valid: {', '.join(STEMMERS)})")
        self._stem = STEMMERS[self.stemmer]

    @property
    def key(self) -> tuple:
        """What the analysis depends on (an index built with one key cannot answer another's queries)."""
        return (self.split_identifiers, self.stop_words, self.stemmer, self.compounds)

    def word_terms(self, word: str) -> tuple[str, ...]:
        """The terms of one word (letters/digits run, original case), memoised."""
        terms = self._memo.get(word)
        if terms is None:
            terms = self.analyse_word(word)
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            self._memo[word] = terms
        return terms

    def analyse_word(self, word: str) -> tuple[str, ...]:
        """The terms of one word (uncached)."""
        parts = _CAMEL.split(word) if self.split_identifiers else [word]
        out = []
        for part in parts:
            lowered = part.lower()
            if self.stop_words and lowered in STOP_WORDS:
                continue
            if self._stem is not None and not _HAS_DIGIT.search(lowered):
                lowered = self._stem(lowered)
            out.append(lowered)
        if self.compounds and len(parts) > 1:
            out.append(word.lower())
        return tuple(out)

    def terms(self, text: str) -> list[str]:
        """Every term of ``text`` in order, with repeats."""
        out: list[str] = []
        word_terms = self.word_terms
        for word in words_of(text):
            out.extend(word_terms(word))
        if self.compounds:
            out.extend(compound_terms(text))
        return out


def compound_terms(text: str) -> list[str]:
    """Lowercased identifiers and paths of ``text`` whose words are joined by ``_ . / -``."""
    return [match.lower() for match in COMPOUND.findall(text)]


DEFAULT_ANALYZER = Analyzer()


# --------------------------------------------------------------------------- analysed rows


class _WordCodes(dict):
    """Memo: a word (original case) → one int code for its analysed terms.

    code ≥ 0 is the id of the word's only term, -1 means no term (a stop word), and code ≤ -2 points at
    ``multi[-2 - code]``, the term ids of a word that splits into several (``useCart``). Keeping the
    common cases as plain ints lets a whole batch be looked up in one C-level pass.
    """

    def __init__(self, features: TermFeatures) -> None:
        super().__init__()
        self.features = features
        self.multi: list[tuple[int, ...]] = []

    def __missing__(self, word: str) -> int:
        vocab = self.features.vocab
        if word.isdigit():  # a number is its own term; not memoised, as most (ids, counts) are one-offs
            return vocab.setdefault(word, len(vocab))
        ids = tuple(vocab.setdefault(term, len(vocab)) for term in self.features.analyzer.analyse_word(word))
        if len(ids) == 1:
            code = ids[0]
        elif not ids:
            code = -1
        else:
            self.multi.append(ids)
            code = -1 - len(self.multi)
        self[word] = code
        return code

    def trim(self) -> None:
        """Forget everything once the memo is large (only between batches: codes point into ``multi``)."""
        if len(self) >= _MEMO_LIMIT:
            self.clear()
            self.multi.clear()

    def term_ids(self, words: list[str]) -> list[int]:
        """The term ids of ``words``, in order (for short texts such as topics)."""
        out: list[int] = []
        for code in map(self.__getitem__, words):
            if code >= 0:
                out.append(code)
            elif code <= -2:
                out.extend(self.multi[-2 - code])
        return out


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
        self.word_codes = _WordCodes(self)
        self.doc_start = np.zeros(1, dtype=np.int64)
        self.doc_terms = np.zeros(0, dtype=np.int32)
        self.doc_tf = np.zeros(0, dtype=np.float32)
        self.doc_len = np.zeros(0, dtype=np.float32)
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
    def _extra_term_ids(self, content: str, topic: str) -> tuple[list[int], list[int]]:
        """Compound terms of the content, and the topic's terms (only when those options are on)."""
        vocab = self.vocab
        ids: list[int] = []
        topic_ids: list[int] = []
        if self.analyzer.compounds:
            ids.extend(vocab.setdefault(t, len(vocab)) for t in compound_terms(content))
        if self.topic_weight > 0 and topic:
            topic_ids = self.word_codes.term_ids(words_of(topic))
            if self.analyzer.compounds:
                topic_ids.extend(vocab.setdefault(t, len(vocab)) for t in compound_terms(topic))
        return ids, topic_ids

    def _analyse(self, words: list[list[str]], contents, topics) -> tuple[np.ndarray, ...]:
        """(per-row entry counts, terms, tf, lengths) of a batch; entries sorted by (row, term)."""
        count = len(words)
        memo = self.word_codes
        memo.trim()
        word_counts = np.fromiter(map(len, words), np.int64, count)
        codes = np.fromiter(  # one C-level pass over every word; a new word is analysed once
            map(memo.__getitem__, itertools.chain.from_iterable(words)), np.int64, int(word_counts.sum())
        )
        word_owner = np.repeat(np.arange(count, dtype=np.int64), word_counts)
        single = codes >= 0
        terms, owners = codes[single], word_owner[single]
        multi = np.flatnonzero(codes <= -2)
        if multi.size:
            parts = [memo.multi[-2 - code] for code in codes[multi].tolist()]
            terms = np.concatenate([terms, np.fromiter(itertools.chain.from_iterable(parts), np.int64)])
            lengths = np.fromiter(map(len, parts), np.int64, len(parts))
            owners = np.concatenate([owners, np.repeat(word_owner[multi], lengths)])
        weights = None
        if self.analyzer.compounds or self.topic_weight > 0:
            extra_terms: list[int] = []
            extra_owners: list[int] = []
            extra_weights: list[float] = []
            for row, (content, topic) in enumerate(zip(contents, topics)):
                ids, topic_ids = self._extra_term_ids(content, topic)
                extra_terms += ids + topic_ids
                extra_owners += [row] * (len(ids) + len(topic_ids))
                extra_weights += [1.0] * len(ids) + [self.topic_weight] * len(topic_ids)
            terms = np.concatenate([terms, np.asarray(extra_terms, dtype=np.int64)])
            owners = np.concatenate([owners, np.asarray(extra_owners, dtype=np.int64)])
            weights = np.concatenate([np.ones(terms.size - len(extra_terms)), np.asarray(extra_weights)])
        width = max(len(self.vocab), 1)
        keys = owners * width + terms
        if weights is None:
            keys.sort()
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

    def append(self, words: list[list[str]], contents, topics) -> None:
        """Analyse and add rows at the end."""
        per_row, terms, tf, doc_len = self._analyse(words, contents, topics)
        self.doc_start = np.concatenate([self.doc_start, self.doc_start[-1] + np.cumsum(per_row)])
        self.doc_terms = np.concatenate([self.doc_terms, terms])
        self.doc_tf = np.concatenate([self.doc_tf, tf])
        self.doc_len = np.concatenate([self.doc_len, doc_len])
        if self.size - self._built_for > max(2_000, self._built_for // 5):
            self._stale = True

    def replace(self, positions: list[int], words: list[list[str]], contents, topics) -> None:
        """Re-analyse rows whose text may have changed; the postings go stale only if a row's terms did."""
        per_row, terms, tf, doc_len = self._analyse(words, contents, topics)
        starts = np.concatenate([[0], np.cumsum(per_row)])
        changed: dict[int, tuple[np.ndarray, np.ndarray, np.float32]] = {}
        for number, position in enumerate(positions):
            new_terms, new_tf = terms[starts[number] : starts[number + 1]], tf[starts[number] : starts[number + 1]]
            old = slice(self.doc_start[position], self.doc_start[position + 1])
            if not (np.array_equal(new_terms, self.doc_terms[old]) and np.array_equal(new_tf, self.doc_tf[old])):
                changed[position] = (new_terms, new_tf, doc_len[number])
        if not changed:
            return
        lengths = np.diff(self.doc_start)
        owners = np.repeat(np.arange(self.size, dtype=np.int64), lengths)
        keep = ~np.isin(owners, np.fromiter(changed, dtype=np.int64, count=len(changed)))
        new_owners = np.concatenate([owners[keep]] + [np.full(v[0].size, p, dtype=np.int64) for p, v in changed.items()])
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

    def matches(self, term_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every (row, query term, tf) with tf > 0 for the sorted ``term_ids``: rows, term positions, tfs."""
        if term_ids.size == 0 or self.size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, np.zeros(0, dtype=np.float32)
        self._ensure_postings()
        built_terms = self._post_start.size - 1
        indexed = np.flatnonzero(term_ids < built_terms)
        starts = self._post_start[term_ids[indexed]]
        counts = self._post_start[term_ids[indexed] + 1] - starts
        total = int(counts.sum())
        offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
        entries = offsets + np.arange(total, dtype=np.int64)
        rows = self._post_rows[entries].astype(np.int64)
        which = np.repeat(indexed, counts)
        tfs = self._post_tf[entries]
        if self._built_for < self.size:
            tail_terms, tail_rows, tail_tf = self._tail()
            hit = np.isin(tail_terms, term_ids)
            rows = np.concatenate([rows, tail_rows[hit]])
            which = np.concatenate([which, np.searchsorted(term_ids, tail_terms[hit])])
            tfs = np.concatenate([tfs, tail_tf[hit]])
        return rows, which, tfs

    def _tail(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        span = (self._built_for, self.size)
        if self._tail_cache is None or self._tail_cache[0] != span:
            first = int(self.doc_start[self._built_for])
            lengths = np.diff(self.doc_start[self._built_for :])
            owners = np.repeat(np.arange(self._built_for, self.size, dtype=np.int64), lengths)
            self._tail_cache = (span, self.doc_terms[first:], owners, self.doc_tf[first:])
        return self._tail_cache[1], self._tail_cache[2], self._tail_cache[3]

    def _ensure_postings(self) -> None:
        """Rebuild the term-major postings when rows changed or enough rows were appended since."""
        if not self._stale:
            return
        vocab_size = len(self.vocab)
        lengths = np.diff(self.doc_start)
        owners = np.repeat(np.arange(self.size, dtype=np.int32), lengths)
        order = np.argsort(self.doc_terms)  # rows within a posting list need no order: 3× faster than stable
        self._post_rows = owners[order]
        self._post_tf = self.doc_tf[order]
        counts = np.bincount(self.doc_terms, minlength=vocab_size)
        self._post_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._built_for = self.size
        self._stale = False
        self._tail_cache = None
