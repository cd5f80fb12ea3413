"""The words every match of a pattern contains (the secret prescreen's gates), read from the pattern's text."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mneme_tui.memory import secrets
from mneme_tui.memory.regex_words import required_words

CASES = [
    ("ab+c", 0, [("ab",), ("c",)]),
    ("pa{2}ss", 0, [("paass",)]),
    ("a{,}b", 0, [("b",)]),  # {,} repeats from zero
    ("ab{", 0, [("ab{",)]),  # a brace that is no quantifier is a literal
    ("x(?:foo|bar)y", 0, [("x",), ("foo", "bar"), ("y",)]),
    ("a(?:bc)?d", 0, [("a",), ("d",)]),
    ("(?:ab|[0-9])cd", 0, [("cd",)]),  # a branch without a word: the group gives none
    ("(?i)SeCret", 0, [("secret",)]),
    ("(?i:Ab)cd", 0, [("cd",)]),  # a group with its own flags gives no word
    ("ab(?=cd)(?<!x)(?!y)", 0, [("ab",)]),
    ("[]ab]cd[^]x]", 0, [("cd",)]),
    (r"x\.y\Bz", 0, [("x.y",), ("z",)]),
    ("k e y # a comment\n  z", re.VERBOSE, [("keyz",)]),
    ("ab\ncd", 0, [("ab",), ("cd",)]),  # never a newline in a word
    ("pässword", re.IGNORECASE, [("p",), ("ssword",)]),  # under IGNORECASE, ASCII only
]


@pytest.mark.parametrize(("pattern", "flags", "expected"), CASES)
def test_the_words_of_a_pattern(pattern: str, flags: int, expected: list[tuple[str, ...]]) -> None:
    assert required_words(re.compile(pattern, flags), secrets._fold) == expected


@pytest.mark.parametrize("pattern", [r"a\x41b", "(?P<n>ab)(?P=n)", r"(a)\1", "(a)?(?(1)b|c)", r"\N{BULLET}ab"])
def test_a_construct_it_does_not_read_gives_no_words(pattern: str) -> None:
    assert required_words(re.compile(pattern), secrets._fold) == []


@pytest.mark.parametrize("index", range(len(secrets._prefilter())))
@settings(derandomize=True, max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_match_of_a_quick_check_pattern_holds_its_words(index: int, data: st.DataObject) -> None:
    pattern = secrets._prefilter()[index]
    match = pattern.search(data.draw(st.from_regex(pattern), label="text"))
    assert match is not None
    folded = bool(pattern.flags & re.IGNORECASE)
    found = secrets._fold(match.group(0)) if folded else match.group(0)
    for words in required_words(pattern, secrets._fold):
        assert any(word in found for word in words), (pattern.pattern, words, match.group(0))
