"""The batch prefilter (``may_hold_secrets``, ``prescreen``) lets through every text the per-text quick check
lets through: on every detector's example, on texts generated from each quick-check pattern, at the edges of a
batch, and under the case rules of IGNORECASE patterns."""

from __future__ import annotations

import random
import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mneme_tui.legion.markdown.legion_records import OutcomeRecord
from mneme_tui.legion.mirror.secret_rows import redacted_record, redacted_records
from mneme_tui.memory import secrets
from secrets_and_purge.corpus import ORDINARY, SECRETS

WORDS = [
    "deploy",
    "the",
    "cache",
    "key:",
    "token",
    "agent-3",
    "O-001",
    "|",
    "'quoted'",
    "2026-11-01",
    "\n",
    "",
    "ſecret",
    "prıvate_key",
    "PRİVATE_KEY",
    "\u212aey",
    "https://",
    "AKC",
    "AP",
    "x" * 40,
    "Plan 12 complete",
]


def _one_by_one(text: str) -> bool:
    """The quick check as it is defined: any of the plugins' patterns found in the text."""
    return any(pattern.search(text) for pattern in secrets._prefilter())


def _mixed(rng: random.Random, positives: list[str], count: int) -> list[str]:
    """``count`` texts: ordinary words, with a positive example at a random place in about a third of them."""
    texts = []
    for _ in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randrange(0, 6))]
        if positives and rng.random() < 0.35:
            words.insert(rng.randrange(len(words) + 1), rng.choice(positives))
        texts.append(rng.choice(["", " ", "\n"]).join(words))
    return texts


def test_every_detector_example_is_let_through_alone_and_in_a_batch() -> None:
    examples = list(SECRETS.values())
    assert all(secrets.may_hold_secrets([text]) == [True] for text in examples)
    batch = [*ORDINARY, *examples, *ORDINARY]
    assert secrets.may_hold_secrets(batch) == [_one_by_one(text) for text in batch]
    assert secrets.may_hold_secrets(batch)[len(ORDINARY) : -len(ORDINARY)] == [True] * len(examples)


def test_generated_batches_flag_exactly_what_the_one_by_one_check_flags() -> None:
    rng = random.Random(20261201)
    positives = [*SECRETS.values(), *(text[: len(text) // 2] for text in SECRETS.values())]
    for _ in range(30):
        batch = _mixed(rng, positives, rng.randrange(1, 40))
        assert secrets.may_hold_secrets(batch) == [_one_by_one(text) for text in batch], batch


@pytest.mark.parametrize("index", range(len(secrets._prefilter())))
@settings(derandomize=True, max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_text_matching_any_quick_check_pattern_is_let_through(index: int, data: st.DataObject) -> None:
    """Texts generated from each pattern itself, alone and between other texts (the joins of a batch)."""
    pattern = secrets._prefilter()[index]
    text = data.draw(st.from_regex(pattern), label="match")
    before = data.draw(st.lists(st.sampled_from(WORDS), max_size=3), label="before")
    after = data.draw(st.lists(st.sampled_from(WORDS), max_size=3), label="after")
    batch = [*before, text, *after]
    assert secrets.may_hold_secrets([text]) == [True]
    assert secrets.may_hold_secrets(batch) == [_one_by_one(t) for t in batch]


def test_case_folding_keeps_every_ignorecase_match_of_an_ascii_character() -> None:
    """Every code point an IGNORECASE regex lets match a printable ASCII character folds to that character."""
    everything = "".join(chr(code) for code in range(sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF)
    for code in range(0x20, 0x7F):
        char = chr(code)
        for match in re.compile(re.escape(char), re.IGNORECASE).findall(everything):
            assert secrets._fold(match) == char.casefold(), (char, match)


def test_lookalike_letters_of_a_keyword_are_still_let_through() -> None:
    texts = ["ſecret = 'x'", "prıvate_key", "PRİVATE_KEY here", "api_\u212aEY", "passwd", "plain words"]
    assert secrets.may_hold_secrets(texts) == [_one_by_one(text) for text in texts]
    assert secrets.may_hold_secrets(texts)[:5] == [True] * 5


def test_prescreen_remembers_only_clean_texts_and_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "CLEAN_MEMO_CHARS", 200)
    monkeypatch.setattr(secrets, "_clean", {})
    monkeypatch.setattr(secrets, "_clean_chars", 0)
    secret = SECRETS["github-token"]
    ordinary = [f"ordinary note {n} about the build" for n in range(20)]
    secrets.prescreen([*ordinary, secret])
    assert secret not in secrets._clean
    assert sum(map(len, secrets._clean)) == secrets._clean_chars <= 200
    assert ordinary[-1] in secrets._clean and ordinary[0] not in secrets._clean  # the oldest went first
    assert [f.type for f in secrets.find_secrets(secret)] == ["github-token"]
    assert secrets.find_secrets(ordinary[-1]) == []


def test_a_batch_of_records_is_redacted_as_each_record_alone() -> None:
    records = [
        OutcomeRecord(id=f"O-{n:03d}", agent="agent-a", summary=summary)
        for n, summary in enumerate([*ORDINARY[:5], *SECRETS.values(), "plain"], start=1)
    ]
    assert redacted_records(records) == [redacted_record(record) for record in records]


def test_prescreened_texts_are_found_as_without_the_prescreen(monkeypatch: pytest.MonkeyPatch) -> None:
    """``prescreen`` rules out a text by its lines: ``find_secrets`` then finds in every text what it finds
    in it unscreened (multi-line texts, lines shared between texts, secrets on some lines)."""
    rng = random.Random(20261202)
    positives = [*SECRETS.values(), *(text[: len(text) // 2] for text in SECRETS.values())]
    texts = ["\n".join(_mixed(rng, positives, rng.randrange(1, 6))) for _ in range(300)]
    monkeypatch.setattr(secrets, "_clean", {})
    monkeypatch.setattr(secrets, "_clean_chars", 0)
    unscreened = [secrets.find_secrets(text) for text in texts]
    secrets.prescreen(texts)
    assert any(text not in secrets._clean for text in texts) and any(text in secrets._clean for text in texts)
    assert [secrets.find_secrets(text) for text in texts] == unscreened
    assert all(unscreened[i] == [] for i, text in enumerate(texts) if text in secrets._clean)
