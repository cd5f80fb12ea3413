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


def to_blob(vector: np.ndarray) -> bytes:
    """256-byte little-endian float32 encoding of a 64-dim vector."""
    return np.asarray(vector, dtype=_BLOB_DTYPE).tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    """Decode a stored embedding blob; a missing or malformed blob decodes as the zero vector."""
    if not blob or len(blob) != BLOB_BYTES:
        return np.zeros(DIMENSIONS, dtype=np.float32)
    return np.frombuffer(blob, dtype=_BLOB_DTYPE).astype(np.float32)
