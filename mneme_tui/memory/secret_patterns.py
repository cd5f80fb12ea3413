"""The quick check's patterns (``secrets._prefilter``) as written in detect-secrets 1.5.0, so a text that
passes none of them is screened without importing detect-secrets (about 0.12 s of CPU, most of it ``requests``,
which its plugins import). They stand in for the installed plugins' only when that version is installed
(:func:`installed`); ``tests/secrets_and_purge/test_quick_check_table.py`` checks they are the same."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

VERSION = "1.5.0"
"""The detect-secrets version these patterns are copied from."""
PLUGIN_PATTERNS: tuple[tuple[str, int], ...] = (
    (r'(?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}(?:\s|"|$)', 0),
    (r'(?:\s|=|:|"|^)AP[\dABCDEF][a-zA-Z0-9]{8,}(?:\s|"|$)', 0),
    (r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}", 0),
    ("aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\\'\\\"]([0-9a-zA-Z/+]{40})[\\'\\\"]", re.IGNORECASE),
    (r"AccountKey=[a-zA-Z0-9+\/=]{88}", 0),
    (r"://[^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+:([^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+)@", 0),
    (r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}", 0),
    (r"(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}", 0),
    (r"(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
    (r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
    (r"glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}(?!\w)", 0),
    (r"glimt-[A-Za-z0-9_\-]{25}(?!\w)", 0),
    (r"glptt-[A-Za-z0-9_\-]{40}(?!\w)", 0),
    (r"glagent-[A-Za-z0-9_\-]{50,1024}(?!\w)", 0),
    (r"gloas-[A-Za-z0-9_\-]{64}(?!\w)", 0),
    (r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?", 0),
    (r"[0-9a-z]{32}-us[0-9]{1,2}", 0),
    (r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*", 0),
    (r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}", 0),
    (r"BEGIN DSA PRIVATE KEY", 0),
    (r"BEGIN EC PRIVATE KEY", 0),
    (r"BEGIN OPENSSH PRIVATE KEY", 0),
    (r"BEGIN PGP PRIVATE KEY BLOCK", 0),
    (r"BEGIN PRIVATE KEY", 0),
    (r"BEGIN RSA PRIVATE KEY", 0),
    (r"BEGIN SSH2 ENCRYPTED PRIVATE KEY", 0),
    (r"PuTTY-User-Key-File-2", 0),
    (r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}", 0),
    (r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}", 0),
    (r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}", 0),
    (r"xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+", re.IGNORECASE),
    (r"https://hooks\.slack\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+", re.IGNORECASE | re.VERBOSE),
    (r"sq0csp-[0-9A-Za-z\\\-_]{43}", 0),
    (r"(?:r|s)k_live_[0-9a-zA-Z]{24}", 0),
    (r"\d{8,10}:[0-9A-Za-z_-]{35}", 0),
    (r"AC[a-z0-9]{32}", 0),
    (r"SK[a-z0-9]{32}", 0),
)
"""The ``denylist`` patterns (text, flags) of the plugins ``secrets`` runs, in their order."""
KEYWORDS: tuple[str, ...] = (
    "api_?key",
    "auth_?key",
    "service_?key",
    "account_?key",
    "db_?key",
    "database_?key",
    "priv_?key",
    "private_?key",
    "client_?key",
    "db_?pass",
    "database_?pass",
    "key_?pass",
    "password",
    "passwd",
    "pwd",
    "secret",
    "contraseña",
    "contrasena",
)
"""``detect_secrets.plugins.keyword.DENYLIST``: the secret-sounding words of its keyword rule."""
_VERSION_LINE = re.compile(r"""^VERSION = ['"]([^'"]+)['"]""", re.MULTILINE)


def installed() -> bool:
    """True when the installed detect-secrets is :data:`VERSION` (read from its ``__version__.py``: the package
    itself is not imported)."""
    spec = importlib.util.find_spec("detect_secrets")
    if spec is None or spec.origin is None:
        return False
    try:
        text = Path(spec.origin).with_name("__version__.py").read_text(encoding="utf-8")
    except OSError:
        return False
    found = _VERSION_LINE.search(text)
    return found is not None and found.group(1) == VERSION
