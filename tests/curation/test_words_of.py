"""``text_features.words_of`` finds an ASCII text's words without a regex: the words must be exactly the
regex's (``_WORD`` over the case-folded text without apostrophes), or exact duplicates would change."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from mneme_tui.memory.curation import text_features as T


def by_regex(text: str) -> list[str]:
    """The words as the general (non-ASCII) path finds them."""
    return T._WORD.findall(T._APOSTROPHES.sub("", text.casefold()))


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_any_ascii_text_has_the_regex_words(text: str) -> None:
    assert T.words_of(text) == by_regex(text)


def test_every_ascii_character_splits_or_stays_as_the_regex_says() -> None:
    every = "".join(chr(c) for c in range(128))
    assert T.words_of(every) == by_regex(every)
    assert T.words_of("Don't use `X_y`; busy-timeout=5s\tOK") == [
        "dont",
        "use",
        "x",
        "y",
        "busy",
        "timeout",
        "5s",
        "ok",
    ]
    assert T.normalised(" A,B..c ") == "a b c" and T.words_of(string.punctuation + " \x00\x7f") == []


def test_non_ascii_text_still_takes_the_general_path() -> None:
    assert T.words_of("Straße ＡＢＣ don’t") == ["strasse", "abc", "dont"]
