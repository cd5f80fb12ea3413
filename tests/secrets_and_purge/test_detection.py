"""Detection, redaction and <private> stripping on the false-positive corpus."""

from __future__ import annotations

import pytest

from mneme_tui.errors import MnemeError
from mneme_tui.memory import secrets
from secrets_and_purge.corpus import ORDINARY, SECRETS


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_secret_is_found_and_redacted(kind: str) -> None:
    text = SECRETS[kind]
    findings = secrets.find_secrets(text)
    assert [f.type for f in findings] == [kind]
    redacted, count = secrets.redact(text)
    assert count == 1
    assert f"[REDACTED:{kind}]" in redacted
    assert secrets.find_secrets(redacted) == []
    assert len(redacted) < len(text) + 20  # only the secret went, not the line around it


def test_ordinary_engineering_text_passes() -> None:
    flagged = [text for text in ORDINARY if secrets.find_secrets(text)]
    assert flagged == []  # the false-positive count stated in docs/secrets.md
    assert len(ORDINARY) == 30


def test_a_finding_never_shows_the_secret() -> None:
    text = SECRETS["aws-key"]
    (finding,) = secrets.find_secrets(text)
    secret = text[finding.start : finding.end]
    assert secret not in repr(finding) and secret not in str(finding)
    assert (finding.line, finding.column) == (1, text.index(secret) + 1)


def test_the_refusal_names_type_and_place_but_not_the_secret() -> None:
    text = "first line\n" + SECRETS["aws-key"]
    with pytest.raises(MnemeError) as caught:
        secrets.screen(text, secrets.REFUSE)
    (finding,) = secrets.find_secrets(text)
    message = str(caught.value)
    assert message == (
        f"ERR_SECRET: looks like an AWS access key (line 2, column {finding.column}); nothing was saved; "
        "--redact stores it as [REDACTED:aws-key]"
    )
    assert text[finding.start : finding.end] not in message


def test_a_private_key_block_is_redacted_whole() -> None:
    redacted, count = secrets.redact(SECRETS["private-key"])
    assert count == 1
    assert redacted == "deploy key:\n[REDACTED:private-key]\nstored in the vault now"


def test_private_spans_are_removed_before_anything_else() -> None:
    text = "keep this <private>the customer's name</private> and <PRIVATE>unclosed tail"
    assert secrets.strip_private(text) == "keep this  and "
    assert secrets.screen("a <private>" + SECRETS["stripe-key"] + "</private> b", secrets.REFUSE) == ("a  b", 0)
