"""What a ``postgresql://`` URL may show: the URL without its password, and any text scrubbed of it.

A password with an unencoded ``@``, ``:`` or ``/`` (``postgresql://alice:p@ss:wS3cr3t@host/db``) is read one
way by Python's URL parser and another by libpq (which stops the user part at the first ``@`` or ``/``), and
libpq's error messages then quote pieces of it ("invalid integer value "wS3cr3t@host" for connection option
"port""). So a URL the two read differently is refused before libpq sees it (``ambiguous_user_part``), the
shown URL keeps only the user name before the last ``@``, and any message about the URL is scrubbed of the
URL itself and of every reading's password and its longer pieces.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

HIDDEN = "***"
"""What a scrubbed piece of a password is replaced with."""
_PIECE_SEPARATORS = re.compile(r"[@:/?#&=\[\]]")
_MIN_PIECE_CHARS = 3
"""A password or piece of one shorter than this is too common a text to scrub from a message (the URL is)."""


def _split(url: str) -> tuple[str, str]:
    """``url``'s scheme with ``://`` and the rest (the whole text as rest when it has no scheme)."""
    scheme, separator, rest = url.partition("://")
    return (scheme + separator, rest) if separator else ("", url)


def _without_password_parameters(text: str) -> str:
    head, separator, query = text.partition("?")
    kept = "&".join(part for part in query.split("&") if part and not part.lower().startswith("password="))
    return head + ("?" + kept if separator and kept else "")


def redacted_url(url: str) -> str:
    """``url`` with any password removed, from the user part (whatever it holds) and a ``password=`` parameter;
    never raises, whatever the URL's shape."""
    scheme, rest = _split(url)
    if "@" in rest:
        user_part, _, after = rest.rpartition("@")
        rest = f"{user_part.partition(':')[0]}@{after}"
    return scheme + _without_password_parameters(rest)


def _libpq_user_part(rest: str) -> str | None:
    """The user part as libpq reads it (up to the first ``@``, unless a ``/`` comes first), or None."""
    first = re.match(r"[^@/]*@", rest)
    return first.group(0)[:-1] if first else None


def ambiguous_user_part(url: str) -> bool:
    """True when Python (up to the last ``@``) and libpq (up to the first ``@`` or ``/``) would read a different
    user and password in ``url``: an unencoded ``@`` or ``/`` in the password (or the database name)."""
    _, rest = _split(url)
    return "@" in rest and _libpq_user_part(rest) != rest.rpartition("@")[0]


def url_passwords(url: str) -> set[str]:
    """Every text that may be ``url``'s password: the user part's password as Python reads it (up to the last
    ``@``) and as libpq reads it (up to the first ``@`` or ``/``), raw and percent-decoded, and every
    ``password=`` parameter's value."""
    _, rest = _split(url)
    found: set[str] = set()
    if "@" in rest:
        found.add(rest.rpartition("@")[0].partition(":")[2])
        found.add((_libpq_user_part(rest) or "").partition(":")[2])
    for part in rest.partition("?")[2].split("&"):
        if part.lower().startswith("password="):
            found.add(part.partition("=")[2])
    found |= {unquote(value) for value in found}
    return {value for value in found if value}


def scrub_url(text: str, url: str) -> str:
    """``text`` (an error message about ``url``) with ``url`` itself shown redacted, and every possible password
    of ``url`` and every piece of one between separators, at least ``_MIN_PIECE_CHARS`` long, replaced by
    ``HIDDEN``."""
    _, rest = _split(url)
    text = text.replace(url, redacted_url(url)).replace(rest, _split(redacted_url(url))[1])
    secrets: set[str] = set()
    for password in url_passwords(url):
        secrets |= {password, *_PIECE_SEPARATORS.split(password)}
    for secret in sorted((piece for piece in secrets if len(piece) >= _MIN_PIECE_CHARS), key=len, reverse=True):
        text = text.replace(secret, HIDDEN)
    return text
