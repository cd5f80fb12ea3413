"""``decode_id_embeddings`` on hand-made binary COPY data: the header's corners and the errors.

(PostgreSQL's own output is decoded in test_pg_server.py; these cases need no server.)
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from mneme_tui.errors import ERR_DATABASE, MnemeError
from mneme_tui.memory.persistence.pg_copy import SIGNATURE, decode_id_embeddings
from mneme_tui.memory.vectors import DIMENSIONS, embed_blobs

TRAILER = struct.pack(">h", -1)


def header(flags: int = 0, extension: bytes = b"") -> bytes:
    return SIGNATURE + struct.pack(">ii", flags, len(extension)) + extension


def row(memory_id: int, blob: bytes | None) -> bytes:
    embedding = struct.pack(">i", -1) if blob is None else struct.pack(">i", len(blob)) + blob
    return struct.pack(">hiq", 2, 8, memory_id) + embedding


def test_no_rows_decode_to_empty_arrays_of_the_right_shape() -> None:
    ids, matrix = decode_id_embeddings(header() + TRAILER)
    assert ids.shape == (0,) and ids.dtype == np.int64
    assert matrix.shape == (0, DIMENSIONS) and matrix.dtype == np.float32


def test_a_header_extension_is_skipped() -> None:
    (blob,) = embed_blobs(["header extension"])
    ids, matrix = decode_id_embeddings(header(extension=b"future") + row(9, blob) + TRAILER)
    assert ids.tolist() == [9] and matrix.tobytes() == blob


@pytest.mark.parametrize(
    "data, problem",
    [
        (b"PGCOPY", "too short"),
        (b"NOTCOPY\n\xff\r\n" + bytes(9) + TRAILER, "bad signature"),
        (header(flags=1 << 16) + TRAILER, "OIDs"),
        (header() + row(1, bytes(256)), "trailer"),
        (header() + row(1, bytes(256))[:-10] + TRAILER, "truncated"),
        (header() + row(1, bytes(256))[:12] + TRAILER, "truncated"),
        (header() + struct.pack(">hi", 1, 8) + bytes(8) + TRAILER, "not (id bigint, embedding bytea)"),
        (header() + struct.pack(">hiiii", 2, 4, 7, 0, 0) + TRAILER, "not (id bigint, embedding bytea)"),
    ],
)
def test_data_that_is_not_id_embedding_rows_is_one_database_error(data: bytes, problem: str) -> None:
    with pytest.raises(MnemeError) as error:
        decode_id_embeddings(data)
    assert error.value.code == ERR_DATABASE and problem in error.value.message and "\n" not in error.value.message
