"""Fuzzy matching of error signatures by their key terms (spec §9 duplicate detection and recall).

Key terms: lower-cased words and numbers of three or more characters, minus common English words.
Two signatures are *substantially similar* when their key-term sets have a Dice coefficient
``2|A∩B| / (|A|+|B|) >= 0.6``, or when at least three terms are shared and they cover >= 80% of the
shorter signature. Signatures without key terms match only when equal (ignoring case and spaces).
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9_]+")
_STOPWORDS = frozenset(
    "the and for with from that this was were not but are has have had into when then than its you "
    "your can all any also been being did does doing how our out over per some such via who "
    "why will would could should after before while".split()
)


def key_terms(text: str) -> set[str]:
    """The distinctive words of an error text."""
    return {t for t in _TOKEN.findall(text.lower()) if len(t) >= 3 and t not in _STOPWORDS}


def overlap(a: str, b: str) -> int:
    """How many key terms two texts share (the recall match score)."""
    return len(key_terms(a) & key_terms(b))


def similar(a: str, b: str) -> bool:
    """True when two error signatures describe the same error (see module doc)."""
    terms_a, terms_b = key_terms(a), key_terms(b)
    if not terms_a or not terms_b:
        return " ".join(a.lower().split()) == " ".join(b.lower().split())
    shared = len(terms_a & terms_b)
    dice = 2 * shared / (len(terms_a) + len(terms_b))
    cover = shared / min(len(terms_a), len(terms_b))
    return dice >= 0.6 or (shared >= 3 and cover >= 0.8)
