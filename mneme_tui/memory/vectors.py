"""Deterministic local vectors (spec §4.1): tokens → SHA-256 → 64 numbers → unit length.

The projection, exactly (so another implementation can reproduce it):
1. ``tokenize``: lowercase the text (Python ``str.lower``) and take every maximal run of Unicode letters
   and digits (regex ``[^\\W_]+``); underscores and punctuation separate words.
2. For each token occurrence, take ``d = SHA-256(token as UTF-8)`` (32 bytes). Dimension ``i`` (0..63)
   receives ``(n_i - 7.5) / 7.5`` where ``n_i`` is the high nibble of byte ``d[i // 2]`` for even ``i``
   and its low nibble for odd ``i``. Contributions of all occurrences are summed.
3. Divide by the Euclidean norm and store as 64 little-endian float32 (256 bytes).
Text with no tokens (or whose sum is exactly zero) gets the zero vector: its cosine with anything is 0.

Arithmetic: the sum is computed exactly, as the integer vector ``w = Σ (2·n_i − 15)`` (15 times the sum
of step 2, so the same direction), and the stored vector is ``w / sqrt(w·w)`` in float64, rounded to
float32. Exact sums make a vector independent of token order and make the batched
:func:`embed_blobs` give the same bytes as :func:`embed` by construction.
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
_LONG_SEGMENT = 512  # embed_blobs sums longer token lists one by one
EMBED_BATCH = 5_000
"""Texts ``embed_blobs`` embeds together: big enough to share their lines, small enough to keep its arrays
at a few MB (100,000 texts at once peaked at 370 MB, in batches at 20 MB and no slower)."""


def tokenize(text: str) -> list[str]:
    """Lowercase Unicode alphanumeric words of ``text``, in order, with repeats."""
    return _TOKEN.findall(text.lower())


tokenize_lowered = _TOKEN.findall
"""``tokenize`` for text that is already lowercase (saves a copy in hot loops)."""


def token_vector(token: str) -> np.ndarray:
    """The 64-dim contribution ``(n_i - 7.5) / 7.5`` of one token (float64)."""
    return _token_weights(token) / 15.0


@lru_cache(maxsize=200_000)
def _token_weights(token: str) -> np.ndarray:
    """``2·n_i − 15`` of one token: its contribution times 15, as exact integers (read-only int64)."""
    weights = _weight_table([token.encode("utf-8")])[0].astype(np.int64)
    weights.flags.writeable = False
    return weights


def embed_tokens(tokens: list[str]) -> np.ndarray:
    """Unit-length float32 vector of a token list (zero vector when there is nothing to embed)."""
    total = np.zeros(DIMENSIONS, dtype=np.int64)
    for token in tokens:
        total += _token_weights(token)
    return _unit(total[None, :])[0]


def embed(text: str) -> np.ndarray:
    """Unit-length float32 vector of ``text`` (spec §4.1)."""
    return embed_tokens(tokenize(text))


def embed_blobs(texts: list[str]) -> list[bytes]:
    """``to_blob(embed(text))`` for many texts at once, bit for bit (the sums are exact integers).

    Tokens never span a newline, so a text's sum is the sum of its lines' sums; each distinct line is
    tokenised once (mirrored records share most of their ``Field: value`` lines). Texts are taken
    ``EMBED_BATCH`` at a time, so the working arrays stay small however many texts there are.
    """
    blobs: list[bytes] = []
    for start in range(0, len(texts), EMBED_BATCH):
        blobs += _embed_batch(texts[start : start + EMBED_BATCH])
    return blobs


def _embed_batch(texts: list[str]) -> list[bytes]:
    lines_of = [text.split("\n") for text in texts]
    lines = list(dict.fromkeys(chain.from_iterable(lines_of)))
    line_sums = _segment_sums(*_token_rows([_utf8_tokens(line) for line in lines]))
    row_of = {line: row for row, line in enumerate(lines)}
    sums = _segment_sums(line_sums, *_flatten(lines_of, row_of))
    return [vector.tobytes() for vector in _unit(sums).astype(_BLOB_DTYPE)]


def _unit(sums: np.ndarray) -> np.ndarray:
    """Rows of exact int64 sums scaled to unit length (float32); all-zero rows stay zero."""
    squares = np.einsum("ij,ij->i", sums, sums)  # exact in int64: |w_i| <= 15 * tokens
    norms = np.sqrt(squares.astype(np.float64))
    norms[norms == 0.0] = 1.0
    return (sums / norms[:, None]).astype(np.float32)


def _utf8_tokens(text: str) -> list[bytes]:
    """``tokenize(text)`` as UTF-8 bytes; lowercase ASCII text takes a faster, equivalent path: its
    tokens are exactly the runs of ``[a-z0-9]``, which is what ``[^\\W_]+`` matches in ASCII text."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered.encode("ascii").translate(_ASCII_NON_WORD_TO_SPACE).split()
    return [token.encode("utf-8") for token in _TOKEN.findall(lowered)]


_ASCII_NON_WORD_TO_SPACE = bytes(c if chr(c) in "0123456789abcdefghijklmnopqrstuvwxyz" else 32 for c in range(256))


def _token_rows(token_lists: list[list[bytes]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The weight table of the distinct tokens, and the lists as rows of it (see :func:`_flatten`)."""
    vocabulary = list(dict.fromkeys(chain.from_iterable(token_lists)))
    row_of = {token: row for row, token in enumerate(vocabulary)}
    return (_weight_table(vocabulary), *_flatten(token_lists, row_of))


def _flatten(lists: list[list], row_of: dict) -> tuple[np.ndarray, np.ndarray]:
    """All items of all lists as row numbers (``row_of``), and each list's length."""
    lengths = np.fromiter(map(len, lists), dtype=np.intp, count=len(lists))
    flat = np.fromiter(map(row_of.__getitem__, chain.from_iterable(lists)), dtype=np.intp, count=int(lengths.sum()))
    return flat, lengths


def _segment_sums(table: np.ndarray, flat: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Exact int64 sums of ``table`` rows, one per segment (``lengths[i]`` consecutive entries of ``flat``).

    Short segments are summed position by position across all of them at once (sorted longest first, the
    segments still that long are a prefix); a segment longer than ``_LONG_SEGMENT`` is summed on its own.
    """
    sums = np.zeros((len(lengths), DIMENSIONS), dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    for row in np.flatnonzero(lengths > _LONG_SEGMENT):
        sums[row] = table[flat[starts[row] : starts[row] + lengths[row]]].sum(axis=0, dtype=np.int64)
    short = np.flatnonzero((lengths > 0) & (lengths <= _LONG_SEGMENT))
    if not len(short):
        return sums
    order = short[np.argsort(-lengths[short], kind="stable")]
    descending = lengths[order]
    partial = np.zeros((len(order), DIMENSIONS), dtype=np.int64)
    for position in range(int(descending[0])):
        active = int(np.searchsorted(-descending, -position, side="left"))  # segments longer than position
        partial[:active] += table[flat[starts[order[:active]] + position]]
    sums[order] = partial
    return sums


def _weight_table(tokens: list[bytes]) -> np.ndarray:
    """``2·n_i − 15`` of every (UTF-8) token as rows of one int8 array."""
    digests = b"".join(hashlib.sha256(token).digest() for token in tokens)
    digest = np.frombuffer(digests, dtype=np.uint8).reshape(len(tokens), DIMENSIONS // 2)
    nibbles = np.empty((len(tokens), DIMENSIONS), dtype=np.int8)
    nibbles[:, 0::2] = digest >> 4
    nibbles[:, 1::2] = digest & 0x0F
    return nibbles * np.int8(2) - np.int8(15)


def to_blob(vector: np.ndarray) -> bytes:
    """256-byte little-endian float32 encoding of a 64-dim vector."""
    return np.asarray(vector, dtype=_BLOB_DTYPE).tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    """Decode a stored embedding blob; a missing or malformed blob decodes as the zero vector."""
    if not blob or len(blob) != BLOB_BYTES:
        return np.zeros(DIMENSIONS, dtype=np.float32)
    return np.frombuffer(blob, dtype=_BLOB_DTYPE).astype(np.float32)
