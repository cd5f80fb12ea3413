"""Text analysis for the ``bm25`` ranking profile: text to terms.

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
   (:data:`porter_stem`, Snowball's ``porter`` algorithm), so ``locked``/``locking``/``locks`` all
   become ``lock``. Words containing a digit are not stemmed.

5. **Whole identifiers** (``compounds=True``, the default): the *whole* identifier is also kept as an
   extra, unstemmed, lowercased term next to its parts: every run of words joined by ``_ . / -``
   (``connection_context``, ``src/store/models.py``, ``db.atomic``), every word wrapped in or led by
   underscores (``__all__``, ``_private``) and every camel-case word (``operationalerror``). That is what
   finds identifiers made of stop words (``toBe``, ``hasOwn``, ``doIt``, ``__all__``), whose parts are all
   dropped in step 3. On the evaluation set it changes no figure.

Field labels are not terms: in a memory whose last paragraph is all ``Label: value`` lines (the field
block the Legion mirror writes, ``legion.mirror.memory_content``), only the values are analysed
(:func:`searchable_text`; two of the block's labels must be Legion's, :data:`FIELD_LABELS`), so "branch" or
"tags" does not match every imported record.

Each step can be switched off (:class:`Analyzer` fields); the evaluation harness's ablation table uses that.
``term_features.TermFeatures`` keeps every memory's analysed terms for BM25.
Analysis is memoised per distinct word; the index analyses a batch of texts at once (``text_batches``: one
pass over the batch shared with the spec's tokenizer, each distinct chunk of text analysed once).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import Stemmer  # PyStemmer: Snowball's C stemmers

WORD = re.compile(r"[^\W_]+")
"""The spec tokenizer's word pattern, applied to the original (not lowercased) text."""
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")  # the same matches on ASCII text, found about 25% faster


def words_of(text: str) -> list[str]:
    """``WORD.findall(text)``: the spec's words, in their original case."""
    return _ASCII_WORD.findall(text) if text.isascii() else WORD.findall(text)


COMPOUND = re.compile(r"(?<!\w)(?:_*+[^\W_]++(?:[._/\-]++[^\W_]++)++_*+|_++[^\W_]++_*+|[^\W_]++_++(?![^\W_]))")
"""Words joined by ``_``, ``.``, ``/`` or ``-`` (identifiers, dotted names and paths), and words with leading
or trailing underscores (``__all__``, ``_private``, ``value_``). A match starts only where a word does and its
quantifiers never backtrack (possessive), so the pattern costs one pass over the text."""
FIELD_LINE = re.compile(r"([A-Z][A-Za-z]*(?: [A-Za-z]+){0,2}): ")
"""The start of a ``Label: value`` line: a capitalised label of one to three words, a colon and a space."""
FIELD_LABELS: frozenset[str] = frozenset(
    {
        "ID",
        "Outcome",
        "Agent",
        "Task type",
        "Importance",
        "Phase",
        "Plan",
        "Context",
        "Reuse criteria",
        "Source",
        "Fix",
        "Resolved",
        "Decision point",
        "Proposed",
        "User choice",
        "Signal",
        "Branch",
        "Date",
        "Tags",
        "Superseded by",
    }
)
"""The labels of the field block the Legion mirror writes (``legion.mirror.memory_content``)."""
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_HAS_DIGIT = re.compile(r"\d")
MEMO_LIMIT = 500_000  # memoised words before a memo is cleared

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


ANALYSIS_VERSION = 2
"""Bumped whenever the same options analyse a text differently (2: field labels left out, underscored words
kept whole), so an index snapshot made by an older analysis is not reused."""


def searchable_text(content: str) -> str:
    """``content`` without the labels of its trailing field block.

    When the last paragraph (after the last blank line) is made only of ``Label: value`` lines
    (:data:`FIELD_LINE`), at least two of them with a Legion field label (:data:`FIELD_LABELS`; other labels
    are the record's extra columns), each line's label is cut and its value kept. Any other text is returned
    as is: a closing ``Timezones: store.py stores naive UTC.`` line is prose.
    """
    head, blank, block = content.rpartition("\n\n")
    if not blank or ": " not in block:
        return content
    lines = block.split("\n")
    labels = [FIELD_LINE.match(line) for line in lines]
    if not all(labels) or sum(label.group(1) in FIELD_LABELS for label in labels if label) < 2:
        return content
    values = [line[label.end() :] for line, label in zip(lines, labels) if label]
    return head + blank + "\n".join(values)


# --------------------------------------------------------------------------- stemmers


class SnowballStem:
    """A Snowball stemmer (PyStemmer's C build of Snowball) as a function of a lowercase word.

    Words of one or two letters are returned unchanged, as in Martin Porter's reference implementation of
    his 1980 algorithm (Snowball's ``porter`` would turn ``as`` into ``a``). A lock makes one instance safe
    to share between threads: Snowball stemmers keep the word being stemmed in the instance.
    """

    def __init__(self, algorithm: str) -> None:
        self._stemmer = Stemmer.Stemmer(algorithm)
        self._lock = threading.Lock()

    def __call__(self, word: str) -> str:
        if len(word) <= 2:
            return word
        with self._lock:
            return self._stemmer.stemWord(word)


porter_stem = SnowballStem("porter")
"""The Porter (1980) stem of a lowercase word: ``locked``/``locking``/``locks`` → ``lock``."""

STEMMERS: dict[str, Callable[[str], str] | None] = {
    "porter": porter_stem,
    "english": SnowballStem("english"),  # Porter2, for the ablation table
    "none": None,
}


# --------------------------------------------------------------------------- the analyzer


@dataclass
class Analyzer:
    """Turns text into terms. The defaults are the ``bm25f`` profile's; each flag is one ablation switch."""

    split_identifiers: bool = True
    stop_words: bool = True
    stemmer: str = "porter"
    compounds: bool = True
    _memo: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.stemmer not in STEMMERS:
            raise ValueError(f"unknown stemmer {self.stemmer!r} (valid: {', '.join(STEMMERS)})")
        self._stem = STEMMERS[self.stemmer]

    @property
    def key(self) -> tuple:
        """What the analysis depends on (an index built with one key cannot answer another's queries)."""
        return (ANALYSIS_VERSION, self.split_identifiers, self.stop_words, self.stemmer, self.compounds)

    def word_terms(self, word: str) -> tuple[str, ...]:
        """The terms of one word (letters/digits run, original case), memoised."""
        terms = self._memo.get(word)
        if terms is None:
            terms = self.analyse_word(word)
            if len(self._memo) >= MEMO_LIMIT:
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
