"""Secrets in memory text: found with Yelp's ``detect-secrets``, refused or redacted before anything is stored.

``find_secrets`` runs detect-secrets' plugins (AWS, GitHub, GitLab, Slack, Stripe, private keys, JWTs, passwords
in URLs, secret-named assignments, high-entropy strings, and more) line by line, with its false-positive filters
(UUIDs, sequences, templates, ``${VAR}``) and two of ours for engineering text: hex digests (git SHAs, checksums)
and base64 that decodes to readable text (test fixtures). A ``Finding`` says what and where, never the secret.

detect-secrets (~120 ms to import) is imported only to scan a line that passes the quick check (its patterns are
copied in ``secret_patterns``), so recall, and a save or import of text with no secret-like line, never pays for it.

A bulk import screens its texts with ``prescreen`` first: the quick check (``_prefilter``) runs once over the
batch's distinct lines instead of once per text, and the texts it rules out are remembered as clean (a bounded
memo), so the ``find_secrets`` of each write answers for them at once. What is screened does not change. The
words that let the quick check skip most texts are read from its patterns by ``memory/regex_words.py``.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import itertools
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mneme_tui import config
from mneme_tui.errors import ERR_CONFIG, ERR_SECRET, MnemeError
from mneme_tui.memory import secret_patterns
from mneme_tui.memory.regex_words import required_words

REFUSE, REDACT = "refuse", "redact"
POLICIES = (REFUSE, REDACT)
"""What a write does with a secret: refuse it (the default) or store the text redacted."""

_PRIVATE_SPAN = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
_PRIVATE_KEY_END = re.compile(r"-----END[ A-Z0-9]*PRIVATE KEY-----", re.IGNORECASE)
_TOKEN_TAIL = re.compile(r"[\w\-+/=.]*")
_HEX_DIGEST = re.compile(r"(?:sha\d+[-:])?[0-9a-fA-F]{7,128}")
_SRI_DIGEST = re.compile(r"(?:sha|md)\d+-[A-Za-z0-9+/]+={0,2}")
_ENTROPY_TYPES = ("Base64 High Entropy String", "Hex High Entropy String")
_SKIPPED_PLUGINS = (
    "IPPublicDetector",  # an address is not a secret, and engineering text is full of them
    # vendor keyword rules (`cloudant_password = …`): 40% of the scan's time for what KeywordDetector catches too
    "CloudantDetector",
    "IbmCloudIamDetector",
    "IbmCosHmacDetector",
    "SoftlayerDetector",
)
_BATCH_BREAKERS = ("^", "$", "\\A", "\\Z", "(?", "*+", "++", "?+", "}+")
"""Pattern text that might match a text alone but not the same text among others joined by newlines (anchors,
lookarounds, atomic and possessive parts): such a pattern without required words is searched text by text."""
CLEAN_MEMO_CHARS = 8_000_000
"""Most characters of texts remembered as clean by ``prescreen`` (the oldest are forgotten first)."""
_SCAN_AS = "memory.ini"  # config-file rules: `password = value` needs no quotes, as in .env and shell snippets

_NAMES: dict[str, tuple[str, str]] = {
    "AWS Access Key": ("aws-key", "an AWS access key"),
    "GitHub Token": ("github-token", "a GitHub token"),
    "GitLab Token": ("gitlab-token", "a GitLab token"),
    "Slack Token": ("slack-token", "a Slack token"),
    "Stripe Access Key": ("stripe-key", "a Stripe key"),
    "Private Key": ("private-key", "a private key"),
    "JSON Web Token": ("jwt", "a JSON Web Token"),
    "Basic Auth Credentials": ("url-password", "a password in a URL"),
    "Secret Keyword": ("password", "a password or secret assignment"),
    "Base64 High Entropy String": ("high-entropy", "a random-looking key"),
    "Hex High Entropy String": ("high-entropy", "a random-looking key"),
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One secret found in a text: its type (``aws-key``), what it looks like (``an AWS access key``) and where
    (1-based line and column). The secret itself is not kept; ``start``/``end`` are its offsets in the text."""

    type: str
    description: str
    line: int
    column: int
    start: int = field(repr=False)
    end: int = field(repr=False)

    @property
    def marker(self) -> str:
        """What ``redact`` puts in its place."""
        return f"[REDACTED:{self.type}]"


def resolve_policy() -> str:
    """The config file's ``secrets`` setting (``refuse`` when absent); another value is ERR_CONFIG."""
    policy = config.load_settings().get("secrets", REFUSE)
    if policy not in POLICIES:
        raise MnemeError(ERR_CONFIG, f"secrets in the config file must be one of {', '.join(POLICIES)}")
    return str(policy)


def policy_for(redact: bool) -> str:
    """The policy of a write: ``redact`` when asked for (``--redact``, an MCP ``redact``), else the config file's."""
    return REDACT if redact else resolve_policy()


def strip_private(text: str) -> str:
    """``text`` without its ``<private>…</private>`` spans (an unclosed one runs to the end)."""
    if "<" not in text:  # (most texts: no lowered copy made)
        return text
    return _PRIVATE_SPAN.sub("", text) if "<private" in text.lower() else text


def find_secrets(text: str) -> list[Finding]:
    """The secrets in ``text``, in order, none overlapping. Only lines that pass a quick check (any plugin's
    own patterns, a secret-sounding word, a quoted token) are run through every plugin."""
    found: list[Finding] = []
    if text in _clean or not _may_hold_secret(text):
        return found
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if _may_hold_secret(line):
            for finding in _line_findings(line, number, offset, text):
                if not found or finding.start >= found[-1].end:
                    found.append(finding)
        offset += len(line) + 1
    return found


def redact(text: str) -> tuple[str, int]:
    """``text`` with each secret replaced by ``[REDACTED:<type>]``, and how many were replaced."""
    text, findings = redact_findings(text)
    return text, len(findings)


def redact_findings(text: str) -> tuple[str, list[Finding]]:
    """``redact``, with the findings it replaced."""
    findings = find_secrets(text)
    for finding in reversed(findings):
        text = text[: finding.start] + finding.marker + text[finding.end :]
    return text, findings


def refusal(findings: list[Finding], what: str = "") -> MnemeError:
    """The ERR_SECRET error for ``findings`` (never the secret itself): what the first looks like and where."""
    first = findings[0]
    more = f" and {len(findings) - 1} more" if len(findings) > 1 else ""
    where = f"{what}: " if what else ""
    return MnemeError(
        ERR_SECRET,
        f"{where}looks like {first.description} (line {first.line}, column {first.column}){more}; nothing was saved; "
        f"--redact stores it as {first.marker}",
    )


def screen(text: str, policy: str, what: str = "") -> tuple[str, int]:
    """``text`` as it may be stored: ``<private>`` spans removed, then a secret refused (ERR_SECRET) or, with the
    ``redact`` policy, replaced; and how many were replaced."""
    redacted, findings = redact_findings(strip_private(text))
    if findings and policy != REDACT:
        raise refusal(findings, what)
    return redacted, len(findings)


def screen_fields(fields: dict[str, Any], policy: str) -> tuple[dict[str, Any], int]:
    """``fields`` with each text (and each text in a list) screened by ``screen`` under ``policy``, an error
    naming the field; and how many secrets were replaced."""
    replaced = 0

    def one(text: str, name: str) -> str:
        nonlocal replaced
        text, count = screen(text, policy, name)
        replaced += count
        return text

    screened = {
        name: one(value, name)
        if isinstance(value, str)
        else [one(item, name) if isinstance(item, str) else item for item in value]
        if isinstance(value, list)
        else value
        for name, value in fields.items()
    }
    return screened, replaced


# ----------------------------------------------------------------------------- detect-secrets
_setup_lock = threading.Lock()
_configured = False


def _plugins() -> list[Any]:
    """detect-secrets' plugins, configured once (its settings are process-wide)."""
    global _configured
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import configure_settings_from_baseline, get_plugins

    with _setup_lock:
        if not _configured:
            import logging

            logging.getLogger("detect-secrets").disabled = True  # its debug lines may quote what they skip
            plugin_classes: list[type] = list(get_mapping_from_secret_type_to_class().values())
            names = [plugin.__name__ for plugin in plugin_classes]
            configure_settings_from_baseline(
                {"plugins_used": [{"name": name} for name in names if name not in _SKIPPED_PLUGINS]}
            )
            _configured = True
    return list(get_plugins())


@functools.cache
def _prefilter() -> tuple[re.Pattern[str], ...]:
    """Patterns one of which every line holding a finding matches: the plugins' own patterns, the keyword
    plugin's words, and a quoted token long enough for the entropy plugins (searched one by one: a single
    alternation of them all is three times slower). Copied in ``secret_patterns`` (detect-secrets is imported only
    for a line that passes them), or read from the plugins when another version is installed."""
    if secret_patterns.installed():
        patterns = [re.compile(text, flags) for text, flags in secret_patterns.PLUGIN_PATTERNS]
        return _quick_check(patterns, secret_patterns.KEYWORDS)
    return _plugins_quick_check()


def _plugins_quick_check() -> tuple[re.Pattern[str], ...]:
    """``_prefilter`` as the installed detect-secrets' plugins have it."""
    from detect_secrets.plugins.keyword import DENYLIST

    return _quick_check([pattern for plugin in _plugins() for pattern in getattr(plugin, "denylist", ())], DENYLIST)


def _quick_check(patterns: list[re.Pattern[str]], keywords: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    return (*patterns, re.compile("|".join(keywords), re.IGNORECASE), re.compile(r"""['"][\w+/=.~-]{9,}"""))


def _may_hold_secret(text: str) -> bool:
    return may_hold_secrets([text])[0]


_clean: dict[str, None] = {}
_clean_chars = 0
_clean_lock = threading.Lock()


def prescreen(texts: Iterable[str]) -> None:
    """Rule out, in one pass over all of ``texts``, those that cannot hold a secret; ``find_secrets`` then
    answers for them without a scan. Nothing else changes.

    A text is ruled out when none of its lines passes the quick check: ``find_secrets`` scans only the lines
    that do, so it finds nothing in such a text. Each distinct line is checked once (imported records share
    most of their ``Field: value`` lines)."""
    global _clean_chars
    distinct = list(dict.fromkeys(text for text in texts if text not in _clean))
    lines = list(dict.fromkeys("\n".join(distinct).split("\n")))
    flagged = {line for line, passes in zip(lines, may_hold_secrets(lines), strict=True) if passes}
    clean = [text for text in distinct if flagged.isdisjoint(text.split("\n"))] if flagged else distinct
    with _clean_lock:
        for text in clean:
            _clean[text] = None
            _clean_chars += len(text)
        while _clean_chars > CLEAN_MEMO_CHARS and _clean:
            oldest = next(iter(_clean))
            del _clean[oldest]
            _clean_chars -= len(oldest)


def may_hold_secrets(texts: list[str]) -> list[bool]:
    """For each text, whether the quick check of ``find_secrets`` lets it through (False: it holds no secret).

    Each pattern is searched only in the texts that may hold a match: those holding one of the words every
    match of it contains (``regex_words.required_words``), looked for once in all the texts joined by newlines; for a
    pattern without such words, those its search of the joined texts touched (``_BATCH_BREAKERS``).
    """
    flagged = [False] * len(texts)
    joined: dict[bool, tuple[str, list[int]]] = {}
    for pattern, words, folded in _gates():
        if folded not in joined:
            joined[folded] = _joined(texts, folded)
        haystack, starts = joined[folded]
        if words:
            candidates: Iterable[int] = {i for word in words for i in _holding(haystack, starts, word)}
        elif not folded and not any(part in pattern.pattern for part in _BATCH_BREAKERS):
            candidates = {i for match in pattern.finditer(haystack) for i in _touched(starts, match)}
        else:
            candidates = range(len(texts))
        for i in candidates:
            flagged[i] = flagged[i] or bool(pattern.search(texts[i]))
    return flagged


def _joined(texts: list[str], folded: bool) -> tuple[str, list[int]]:
    """``texts`` joined by newlines (each ``_fold``-ed when ``folded``), and where each of them starts."""
    haystack = "\n".join(texts)
    if folded and haystack.isascii():
        haystack = haystack.lower()  # what _fold does to ASCII text, keeping every text's length
    elif folded:
        texts = [_fold(text) for text in texts]
        haystack = "\n".join(texts)
    return haystack, list(itertools.accumulate(map((1).__add__, map(len, texts)), initial=0))


def _touched(starts: list[int], match: re.Match[str]) -> range:
    """The indexes of the texts (joined by newlines, starting at ``starts``) that ``match`` overlaps."""
    first = bisect.bisect_right(starts, match.start()) - 1
    return range(first, bisect.bisect_right(starts, max(match.end() - 1, match.start())))


def _fold(text: str) -> str:
    """``text`` case-folded, so that it holds an ASCII word wherever an IGNORECASE regex would match that word
    (the regex engine also lets ``ı`` and ``İ`` match ``i``, which case folding alone keeps apart)."""
    return text.casefold().replace("\u0131", "i").replace("i\u0307", "i")


def _holding(joined: str, starts: list[int], word: str) -> Iterator[int]:
    """The indexes of the texts (joined by newlines, starting at ``starts``) that hold ``word`` (no newline)."""
    position = joined.find(word)
    while position >= 0:
        index = bisect.bisect_right(starts, position) - 1
        yield index
        position = joined.find(word, starts[index + 1])


@functools.cache
def _gates() -> tuple[tuple[re.Pattern[str], tuple[str, ...], bool], ...]:
    """Each quick-check pattern, the words one of which is in every text it matches (none: no gate), and
    whether they are compared case-folded (an IGNORECASE pattern)."""
    gates: list[tuple[re.Pattern[str], tuple[str, ...], bool]] = []
    for pattern in _prefilter():
        folded = bool(pattern.flags & re.IGNORECASE)
        needs = required_words(pattern, _fold)
        words = max(needs, key=lambda alternatives: min(map(len, alternatives)), default=())
        gates.append((pattern, words if min(map(len, words), default=0) >= 2 else (), folded))
    return tuple(gates)


def _line_findings(line: str, number: int, offset: int, text: str) -> Iterator[Finding]:
    """The findings of one line, ordered by column."""
    if not line.strip():
        return
    from detect_secrets.core import scan
    from detect_secrets.util.code_snippet import get_code_snippet

    context = get_code_snippet(lines=[line], line_number=1)
    spans: list[tuple[int, int, str]] = []
    for plugin in _plugins():
        for secret in scan._scan_line(plugin=plugin, filename=_SCAN_AS, line=line, line_number=1, context=context):
            value = secret.secret_value or ""
            if _is_engineering_value(secret.type, value) or scan._is_filtered_out(
                required_filter_parameters=["context"],
                filename=_SCAN_AS,
                secret=value,
                plugin=plugin,
                line=line,
                context=context,
            ):
                continue
            span = _span(plugin, line, value)
            if span is not None:
                spans.append((*span, secret.type))
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if kind == "Private Key":
            start = len(line[:start].rstrip("-"))
            end = _private_key_end(text, offset + start) - offset
        name, description = _NAMES.get(kind, (_slug(kind), f"a {kind}"))
        yield Finding(name, description, number, start + 1, offset + start, offset + end)


def _span(plugin: Any, line: str, value: str) -> tuple[int, int] | None:
    """Where ``value`` is in ``line``: a rule's whole match when the value begins it (a token's prefix group),
    else the value itself; stretched over the rest of the token (a JWT's signature)."""
    for pattern in getattr(plugin, "denylist", ()):
        for match in pattern.finditer(line):
            if value and match.group(0).startswith(value):
                return _stretched(line, match.start(), match.end())
    start = line.find(value) if value else -1
    return None if start < 0 else _stretched(line, start, start + len(value))


def _stretched(line: str, start: int, end: int) -> tuple[int, int]:
    tail = _TOKEN_TAIL.match(line, end)
    end = tail.end() if tail else end
    while end > start + 1 and line[end - 1] == ".":
        end -= 1
    return start, end


def _private_key_end(text: str, start: int) -> int:
    """The end of the private key block that begins at ``start`` (its END line, or the end of the text)."""
    match = _PRIVATE_KEY_END.search(text, start)
    return match.end() if match else len(text)


def _is_engineering_value(kind: str, value: str) -> bool:
    """A high-entropy string that is a digest (git SHA, checksum, lock-file integrity) or base64 of readable
    text (a test fixture): not a secret."""
    if kind not in _ENTROPY_TYPES:
        return False
    if _HEX_DIGEST.fullmatch(value) or _SRI_DIGEST.fullmatch(value):
        return True
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    return all(c.isprintable() or c in "\n\t\r" for c in decoded)


def _slug(kind: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")
