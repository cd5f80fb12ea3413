"""The index analyses a batch of texts at once (``memory/text_batches.py``); what it stores must be what the
per-row analysis gives: each row's distinct spec tokens (``vectors.tokenize``), its analysed ``bm25`` terms
with their counts (``Analyzer.terms`` of the searchable text), and the ids in the order the per-row analysis
hands them out (a batch's word terms in text order, then its compound terms), so scores add up the same."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mneme_tui.memory.analysis import Analyzer, compound_terms, searchable_text, words_of
from mneme_tui.memory.index import MemoryIndex
from mneme_tui.memory.text_batches import CHUNK, chunks_of
from mneme_tui.memory.vectors import tokenize

VARIED = [
    "",
    "   ",
    "...///---___",
    "!!! ??? (((",
    "Refactored app.py [Store.save] and [bold]markup[/bold] [@click=app.quit]quit[/] <b>html</b>",
    "useCart HTTPServer getHTTPResponseCode toBe hasOwn doIt __all__ _private value_ connection_context",
    "src/store/models.py db.atomic() a-b-c x_y.z/w -flag --long-option path/to/ file. .hidden",
    "Ελληνικά: ΑΣ.Β ΟΔΟΣ σοφός ΣΑΣ'Σ and İstanbul, straße STRASSE, ǅemal, 東京タワー, café-crème, naïve_résumé",
    "emoji 🎉 party 🎉🎉 ①②③ x² 10⁵ ٣٤٥ digits 0042 3.14 v1.2.3 arm64 Int64 sha256",
    "tabs\tand\nnewlines\r\nand\x00nul\x01bytes\x7f end",
    "locked locking locks lock LOCKED the and of not NOT NULL",
    "Decision: use WAL\n\nOutcome: success\nAgent: builder\nTask type: refactor\nTags: db, wal",
    "Prose ending with a field line.\n\nTimezones: store.py stores naive UTC.",
    "x" * 5_000 + " " + "word " * 2_000 + "a_b." * 500 + " Ünïcödé " * 300,
    "Mixed ascii then ünïcode_identifier.name and trailing_ underscore__ __dunder__ ___",
    "12345 67890 12345 (ref 12345) ref-12345 #12345",
]


def _index(texts: list[str], batch: int, analyzer: Analyzer | None = None, topic_weight: float = 0.0) -> MemoryIndex:
    index = MemoryIndex(analyzer, topic_weight)
    rows = [
        (number + 1, "repo", "reflection", f"topic {number} useCart", text, None, "2026-01-01 00:00:00", "active", 0)
        for number, text in enumerate(texts)
    ]
    for start in range(0, len(rows), batch):
        index._append(rows[start : start + batch])
    return index


def _spec_tokens(index: MemoryIndex, row: int) -> set[str]:
    words = {token_id: word for word, token_id in index.vocab.items()}
    return {words[int(token_id)] for token_id in index._row_tokens[row]}


def _row_terms(index: MemoryIndex, row: int) -> dict[str, float]:
    terms = index.terms
    words = {term_id: term for term, term_id in terms.vocab.items()}
    span = slice(terms.doc_start[row], terms.doc_start[row + 1])
    return {words[int(t)]: float(tf) for t, tf in zip(terms.doc_terms[span], terms.doc_tf[span], strict=True)}


def _reference_term_order(texts: list[str], batch: int, analyzer: Analyzer) -> list[str]:
    """The per-row analysis's id order: per batch, every word's terms in text order, then the compound terms."""
    order: dict[str, None] = {}
    for start in range(0, len(texts), batch):
        chunk = [searchable_text(text) for text in texts[start : start + batch]]
        for text in chunk:
            for word in words_of(text):
                order.update(dict.fromkeys((word,) if word.isdigit() else analyzer.word_terms(word)))
        for text in chunk:
            order.update(dict.fromkeys(compound_terms(text)))
    return list(order)


def _assert_per_row(texts: list[str], batch: int) -> None:
    """The index of ``texts`` appended ``batch`` rows at a time holds what the per-row analysis gives."""
    index = _index(texts, batch)
    analyzer = index.terms.analyzer
    assert index.size == len(texts) == len(index._row_tokens) == index.terms.size
    for row, text in enumerate(texts):
        assert _spec_tokens(index, row) == set(tokenize(text)), repr(text[:60])
        expected = Counter(analyzer.terms(searchable_text(text)))
        assert _row_terms(index, row) == {term: float(n) for term, n in expected.items()}, repr(text[:60])
        assert index.terms.doc_len[row] == sum(expected.values())
    assert list(index.terms.vocab) == _reference_term_order(texts, batch, analyzer)
    assert sorted(index.terms.vocab.values()) == list(range(len(index.terms.vocab)))


@pytest.mark.parametrize("batch", [1, 3, 1_000])
def test_batched_analysis_equals_the_per_row_analysis(batch):
    _assert_per_row(VARIED * 2, batch)


_PIECES = st.one_of(
    st.from_regex(r"[0-9]{1,5}", fullmatch=True),  # numbers: looked up directly, not memoised
    st.sampled_from(["ref", "v1.2.3", "arm64", "useCart", "the", "Locked", "x_1", "0042", "ünï", "12ab", "é3"]),
    st.text(alphabet="ab1_./-", max_size=6),
)
_GLUE = st.sampled_from([" ", " (", ") ", ".", "/", "-", "_", "\n\n", ": ", "#"])


@settings(derandomize=True, max_examples=150, deadline=None)
@given(st.lists(st.lists(st.tuples(_PIECES, _GLUE), max_size=8), min_size=1, max_size=10), st.integers(1, 4))
def test_numbers_get_the_per_row_analysis_ids_in_its_order(pieces, batch):
    texts = ["".join(piece + glue for piece, glue in row) for row in pieces]
    _assert_per_row(texts, batch)


def test_each_rows_tokens_are_distinct_and_ascending():
    index = _index(VARIED, 4)
    for row in range(index.size):
        tokens = index._row_tokens[row]
        assert np.all(np.diff(tokens) > 0)


def test_topics_weigh_in_when_a_profile_asks():
    index = _index(VARIED, 5, topic_weight=2.0)
    analyzer = index.terms.analyzer
    for row, text in enumerate(VARIED):
        expected = Counter(analyzer.terms(searchable_text(text)))
        for term in analyzer.terms(f"topic {row} useCart"):
            expected[term] += 2.0
        assert _row_terms(index, row) == pytest.approx(dict(expected)), repr(text[:60])
        assert index.terms.doc_len[row] == pytest.approx(sum(expected.values()))


@pytest.mark.parametrize("analyzer", [Analyzer(compounds=False), Analyzer(stemmer="none", stop_words=False)])
def test_ablation_switches_are_honoured(analyzer):
    index = _index(VARIED, 7, analyzer=analyzer)
    for row, text in enumerate(VARIED):
        expected = Counter(analyzer.terms(searchable_text(text)))
        assert _row_terms(index, row) == {term: float(n) for term, n in expected.items()}


def test_chunks_are_the_regex_chunks_of_each_text():
    split = chunks_of(VARIED)
    words, numbers = iter(chunk.decode("utf-8") for chunk in split.words), iter(split.numbers)
    chunks = [next(numbers) if is_number else next(words) for is_number in split.is_number.tolist()]
    expected = [(row, chunk) for row, text in enumerate(VARIED) for chunk in CHUNK.findall(text)]
    assert sorted(zip(split.rows.tolist(), chunks), key=lambda pair: pair[0]) == expected
    ascii_chunks = [chunk for row, chunk in expected if VARIED[row].isascii()]
    assert split.numbers == [chunk for chunk in ascii_chunks if chunk.isascii() and chunk.isdigit()]
