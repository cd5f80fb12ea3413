"""Deterministic local vectors (spec §4.1): tokens → SHA-256 → 64 floats → unit length.

The projection, exactly (so another implementation can reproduce it):
1. ``tokenize``: lowercase the text (Python ``str.lower``) and take every maximal run of Unicode letters
   and digits (regex ``[^\\W_]+``); underscores and punctuation separate words.
2. For each token occurrence, take ``d = SHA-256(token as UTF-8)`` (32 bytes). Dimension ``i`` (0..63)
   receives ``(n_i - 7.5) / 7.5`` where ``n_i`` is the high nibble of byte ``d[i // 2]`` for even ``i``
   and its low nibble for odd ``i``. Contributions of all occurrences are summed (float64).
3. Divide by the Euclidean norm and store as 64 little-endian float32 (256 bytes).
Text with no tokens (or whose sum is exactly zero) gets the zero vector: its cosine with anything is 0.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from itertools import chain

import numpy as np

DIMENSIONS = 64
BLOB_BYTES = DIMENSIONS * 4
_TOKEN = re.compile(r"[^\W_]+")
_BLOB_DTYPE = np.dtype("<f4")


def tokenize(text: str) -> list[str]:
    """Lowercase Unicode alphanumeric words of ``text``, in order, with repeats."""
    return _TOKEN.findall(text.lower())


tokenize_lowered = _TOKEN.findall
"""``tokenize`` for text that is already lowercase (saves a copy in hot loops)."""


@lru_cache(maxsize=200_000)
def token_vector(token: str) -> np.ndarray:
    """The 64-dim contribution of one token (read-only float64 array)."""
    digest = np.frombuffer(hashlib.sha256(token.encode("utf-8")).digest(), dtype=np.uint8)
    nibbles = np.empty(DIMENSIONS, dtype=np.float64)
    nibbles[0::2] = digest >> 4
    nibbles[1::2] = digest & 0x0F
    vector = (nibbles - 7.5) / 7.5
    vector.flags.writeable = False
    return vector


def embed_tokens(tokens: list[str]) -> np.ndarray:
    """Unit-length float32 vector of a token list (zero vector when there is nothing to embed)."""
    total = np.zeros(DIMENSIONS, dtype=np.float64)
    for token in tokens:
        total += token_vector(token)
    norm = float(np.linalg.norm(total))
    if norm == 0.0:
        return np.zeros(DIMENSIONS, dtype=np.float32)
    return (total / norm).astype(np.float32)


def embed(text: str) -> np.ndarray:
    """Unit-length float32 vector of ``text`` (spec §4.1)."""
    return embed_tokens(tokenize(text))


def embed_blobs(texts: list[str]) -> list[bytes]:
    """``to_blob(embed(text))`` for many texts at once, bit for bit.

    Every text's token vectors are still added one by one in token order (position ``j`` of all
    texts in one vectorised step, which is the same float64 addition per element), the norm is taken
    per text as ``np.linalg.norm`` computes it for a 1-D real vector (``sqrt(x.dot(x))``), and the
    division is the same element-wise float64 division.
    """
    totals = _sum_token_vectors([_utf8_tokens(text) for text in texts])
    norms = np.array([np.sqrt(total.dot(total)) for total in totals], dtype=np.float64)  # np.linalg.norm of 1-D
    zero = norms == 0.0
    norms[zero] = 1.0  # a zero sum stays the zero vector
    vectors = (totals / norms[:, None]).astype(_BLOB_DTYPE)
    vectors[zero] = 0.0
    return [vector.tobytes() for vector in vectors]


def _utf8_tokens(text: str) -> list[bytes]:
    """``tokenize(text)`` as UTF-8 bytes; lowercase ASCII text takes a faster, equivalent path: its
    tokens are exactly the runs of ``[a-z0-9]``, which is what ``[^\\W_]+`` matches in ASCII text."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered.encode("ascii").translate(_ASCII_NON_WORD_TO_SPACE).split()
    return [token.encode("utf-8") for token in _TOKEN.findall(lowered)]


_ASCII_NON_WORD_TO_SPACE = bytes(c if chr(c) in "0123456789abcdefghijklmnopqrstuvwxyz" else 32 for c in range(256))


def _sum_token_vectors(token_lists: list[list[bytes]]) -> np.ndarray:
    """float64 sums (one row per list) that add each list's token vectors in order, like ``embed_tokens``."""
    sums = np.zeros((len(token_lists), DIMENSIONS), dtype=np.float64)
    vocabulary = list(dict.fromkeys(chain.from_iterable(token_lists)))
    if not vocabulary:
        return sums
    table = _token_table(vocabulary)
    row_of = {token: row for row, token in enumerate(vocabulary)}
    lengths = np.fromiter(map(len, token_lists), dtype=np.intp, count=len(token_lists))
    flat = np.fromiter(map(row_of.__getitem__, chain.from_iterable(token_lists)), dtype=np.intp,
                       count=int(lengths.sum()))
    order = np.argsort(-lengths, kind="stable")  # longest first: the rows still going are a prefix
    starts = (np.cumsum(lengths) - lengths)[order]
    descending = lengths[order]
    for position in range(int(descending[0])):
        active = int(np.searchsorted(-descending, -position, side="left"))  # rows longer than position
        sums[:active] += table[flat[starts[:active] + position]]
    totals = np.empty_like(sums)
    totals[order] = sums
    return totals


def _token_table(tokens: list[bytes]) -> np.ndarray:
    """``token_vector`` of every (UTF-8) token as rows of one array (the same nibble arithmetic, vectorised)."""
    digests = b"".join(hashlib.sha256(token).digest() for token in tokens)
    digest = np.frombuffer(digests, dtype=np.uint8).reshape(len(tokens), DIMENSIONS // 2)
    nibbles = np.empty((len(tokens), DIMENSIONS), dtype=np.float64)
    nibbles[:, 0::2] = digest >> 4
    nibbles[:, 1::2] = digest & 0x0F
    return (nibbles - 7.5) / 7.5


def to_blob(vector: np.ndarray) -> bytes:
    """256-byte little-endian float32 encoding of a 64-dim vector."""
    return np.asarray(vector, dtype=_BLOB_DTYPE).tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    """Decode a stored embedding blob; a missing or malformed blob decodes as the zero vector."""
    if not blob or len(blob) != BLOB_BYTES:
        return np.zeros(DIMENSIONS, dtype=np.float32)
    return np.frombuffer(blob, dtype=_BLOB_DTYPE).astype(np.float32)
