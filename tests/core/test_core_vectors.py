"""Deterministic local vectors (spec §4.1): tokenizer, projection, blob format (TC-MEM-01, TC-MEM-04)."""

from __future__ import annotations

import hashlib
import math
import struct

import numpy as np
import pytest

from mneme_reference import decode_blob, raw_rows, ref_embed, ref_token_projection
from mneme_tui.memory import vectors
from mneme_tui.memory.store import Store


def test_tc_mem_01_save_allocates_id_and_stores_unit_vector_blob(store: Store):
    first = store.save("Use connection_context in every worker thread")
    second = store.save("WAL mode lets readers work while a writer commits")
    assert isinstance(first.id, int) and first.id >= 1
    assert second.id > first.id
    rows = raw_rows(store.path)
    assert [row["id"] for row in rows] == [first.id, second.id]
    for row in rows:
        blob = row["embedding"]
        assert isinstance(blob, bytes) and len(blob) == 256
        vector = struct.unpack("<64f", blob)
        assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0, abs_tol=1e-6)
        expected = ref_embed(row["content"])
        assert max(abs(a - b) for a, b in zip(vector, expected)) < 1e-6


def test_tc_mem_04_identical_text_gives_identical_unit_vector(store: Store):
    text = "Identical text yields the identical vector, every time."
    a = store.save(text)
    b = store.save(text, kind="decision", topic="Other", repo_id="nomos")
    blobs = {row["id"]: row["embedding"] for row in raw_rows(store.path)}
    assert blobs[a.id] == blobs[b.id]
    vector = np.frombuffer(blobs[a.id], dtype="<f4")
    assert vector.shape == (64,)
    assert abs(float(np.linalg.norm(vector.astype(np.float64))) - 1.0) < 1e-6
    # and the function itself is deterministic and independent of call history
    assert np.array_equal(vectors.embed(text), vectors.embed(text))
    assert vectors.to_blob(vectors.embed(text)) == blobs[a.id]


def test_blob_is_little_endian_float32(store: Store):
    memory = store.save("little endian float32 blob")
    blob = raw_rows(store.path)[0]["embedding"]
    little = struct.unpack("<64f", blob)
    assert np.array_equal(np.array(little, dtype=np.float32), vectors.embed(memory.content))
    assert vectors.to_blob(np.array(little, dtype=np.float32)) == blob
    assert np.array_equal(vectors.from_blob(blob), np.array(little, dtype=np.float32))


def test_projection_reproduced_independently_for_two_tokens():
    """ "hello world": the sum of the two tokens' nibble projections, normalised (documented in vectors.py)."""
    total = [0.0] * 64
    for token in ("hello", "world"):
        digest = hashlib.sha256(token.encode("utf-8")).digest()
        for i in range(64):
            byte = digest[i // 2]
            nibble = byte >> 4 if i % 2 == 0 else byte & 0x0F
            total[i] += (nibble - 7.5) / 7.5
    norm = math.sqrt(sum(v * v for v in total))
    expected = [v / norm for v in total]
    got = vectors.embed("hello world")
    assert got.dtype == np.float32 and got.shape == (64,)
    assert max(abs(float(a) - b) for a, b in zip(got, expected)) < 1e-6
    # punctuation and case do not change the tokens
    assert np.array_equal(vectors.embed("Hello, WORLD!"), got)
    # order does not matter (a sum), repetition does
    assert np.array_equal(vectors.embed("world hello"), got)  # exact integer sums
    assert not np.allclose(vectors.embed("hello hello world"), got, atol=1e-3)


def test_single_token_projection_matches_digest():
    digest = hashlib.sha256(b"sqlite").digest()
    projection = vectors.token_vector("sqlite")
    assert projection[0] == ((digest[0] >> 4) - 7.5) / 7.5
    assert projection[1] == ((digest[0] & 0x0F) - 7.5) / 7.5
    assert projection[63] == ((digest[31] & 0x0F) - 7.5) / 7.5
    assert list(projection) == ref_token_projection("sqlite")


@pytest.mark.parametrize("text", ["!!! ---", "___", "   ...   ", "—–·•", "\t\n"])
def test_no_token_content_is_zero_vector_not_nan(text):
    vector = vectors.embed(text)
    assert vector.shape == (64,)
    assert not np.isnan(vector).any()
    assert np.array_equal(vector, np.zeros(64, dtype=np.float32))
    assert vectors.to_blob(vector) == b"\x00" * 256


def test_no_token_memory_is_stored_with_zero_blob_and_never_recalled(store: Store):
    store.save("!!! ---")
    store.save("a real memory about caches")
    assert raw_rows(store.path)[0]["embedding"] == b"\x00" * 256
    for cross in (False, True):
        results = store.recall("caches memory", repo="global", cross_repo=cross, limit=50, profile="spec")
        assert [r.memory.content for r in results] == ["a real memory about caches"]
        for result in results:
            assert all(not math.isnan(v) for v in result.components.values())


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("connection_context", ["connection", "context"]),
        ("Hello, World!", ["hello", "world"]),
        ("Straße café ÜBER", ["straße", "café", "über"]),
        ("日本語 テキスト", ["日本語", "テキスト"]),
        ("x86_64 v2.0 INT-734", ["x86", "64", "v2", "0", "int", "734"]),
        ("app.py [Store.save, _flush]", ["app", "py", "store", "save", "flush"]),
        ("🧠 emoji-only 🚀", ["emoji", "only"]),
        ("", []),
    ],
)
def test_tokenize(text, tokens):
    assert vectors.tokenize(text) == tokens


def test_tokenize_keeps_repeats_in_order():
    assert vectors.tokenize("a b a B") == ["a", "b", "a", "b"]


def test_from_blob_of_missing_or_malformed_blob_is_zero():
    for blob in (None, b"", b"\x00" * 10, b"\x01" * 255):
        vector = vectors.from_blob(blob)
        assert vector.shape == (64,) and not vector.any()


def test_unicode_vector_matches_reference():
    text = "Ünïcödé 数据库 naïve façade"
    assert max(abs(float(a) - b) for a, b in zip(vectors.embed(text), ref_embed(text))) < 1e-6
    assert decode_blob(vectors.to_blob(vectors.embed(text))) == [float(v) for v in vectors.embed(text)]
