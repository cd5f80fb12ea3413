"""Loading embeddings from PostgreSQL in bulk: binary ``COPY`` of ``(id bigint, embedding bytea)`` rows
decoded straight into numpy arrays (no per-row ORM objects).

PostgreSQL's binary COPY format: an 11-byte signature, an int32 of flags, an int32 header-extension length
and the extension; then per row an int16 field count and, per field, an int32 byte length (-1 for NULL)
and the bytes; then an int16 -1. Every integer is big-endian.

When every row is an 8-byte id and a 256-byte embedding (the store's normal case), the rows have one fixed
size and decode as one numpy structured array. Otherwise (a NULL or odd-sized embedding somewhere) the
rows are walked one by one. As in the in-memory index, an embedding that is not exactly 256 bytes counts
as the zero vector.
"""

from __future__ import annotations

import io
import struct
from typing import Protocol

import numpy as np

from mneme_tui.errors import ERR_DATABASE, MnemeError
from mneme_tui.memory.vectors import BLOB_BYTES, DIMENSIONS

SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_HEADER = struct.Struct(">11sii")
_TRAILER = b"\xff\xff"
_OIDS_FLAG = 1 << 16
_FIELD_COUNT = struct.Struct(">h")
_LENGTH = struct.Struct(">i")
_ID = struct.Struct(">q")
_ZERO_BLOB = bytes(BLOB_BYTES)
_FIXED_ROW = np.dtype(
    [("fields", ">i2"), ("id_length", ">i4"), ("id", ">i8"), ("blob_length", ">i4"), ("blob", "<f4", (DIMENSIONS,))]
)
"""One row when the id is a bigint and the embedding exactly ``BLOB_BYTES`` long (274 bytes, no padding)."""


class CopyCursor(Protocol):
    """What :func:`copy_binary` needs of a cursor (psycopg2's has it)."""

    def copy_expert(self, sql: str, file: io.BytesIO) -> None: ...


def copy_binary(cursor: CopyCursor, select_sql: str) -> bytes:
    """The binary COPY output of ``select_sql`` (a SELECT statement), in one bytes object."""
    buffer = io.BytesIO()
    cursor.copy_expert(f"COPY ({select_sql}) TO STDOUT WITH (FORMAT binary)", buffer)
    return buffer.getvalue()


def decode_id_embeddings(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Decode binary COPY rows of ``(id bigint, embedding bytea)``.

    Returns the ids (int64, shape ``(n,)``) and the embeddings (float32, shape ``(n, 64)``), in row order;
    a NULL embedding or one that is not 256 bytes long decodes as zeros. Raises ERR_DATABASE when ``data``
    is not binary COPY output of two such columns.
    """
    body = memoryview(data)[_header_length(data) :]
    if bytes(body[-2:]) != _TRAILER:
        raise MnemeError(ERR_DATABASE, "binary COPY data ends without its trailer (truncated?)")
    body = body[:-2]
    if len(body) % _FIXED_ROW.itemsize == 0:
        rows = np.frombuffer(body, dtype=_FIXED_ROW)
        if (rows["fields"] == 2).all() and (rows["id_length"] == 8).all() and (rows["blob_length"] == BLOB_BYTES).all():
            return rows["id"].astype(np.int64), np.ascontiguousarray(rows["blob"], dtype=np.float32)
    return _decode_rows(body)


def _header_length(data: bytes) -> int:
    """The number of bytes before the first row, after checking the signature and flags."""
    if len(data) < _HEADER.size:
        raise MnemeError(ERR_DATABASE, f"binary COPY data too short ({len(data)} bytes)")
    signature, flags, extension = _HEADER.unpack_from(data)
    if signature != SIGNATURE:
        raise MnemeError(ERR_DATABASE, "not binary COPY data (bad signature)")
    if flags & _OIDS_FLAG:
        raise MnemeError(ERR_DATABASE, "binary COPY data with OIDs is not supported")
    return _HEADER.size + extension


def _decode_rows(body: memoryview) -> tuple[np.ndarray, np.ndarray]:
    """Walk rows of any shape (NULLs, odd lengths) one by one."""
    ids: list[int] = []
    blobs: list[bytes] = []
    offset = 0
    try:
        while offset < len(body):
            (fields,) = _FIELD_COUNT.unpack_from(body, offset)
            (id_length,) = _LENGTH.unpack_from(body, offset + 2)
            if fields != 2 or id_length != 8:
                raise MnemeError(ERR_DATABASE, f"binary COPY row at byte {offset} is not (id bigint, embedding bytea)")
            ids.append(_ID.unpack_from(body, offset + 6)[0])
            (blob_length,) = _LENGTH.unpack_from(body, offset + 14)
            offset += 18 + max(blob_length, 0)
            if offset > len(body):
                raise _truncated(offset)
            blobs.append(bytes(body[offset - blob_length : offset]) if blob_length == BLOB_BYTES else _ZERO_BLOB)
    except struct.error:
        raise _truncated(offset) from None
    matrix = np.frombuffer(b"".join(blobs), dtype="<f4").astype(np.float32).reshape(len(ids), DIMENSIONS)
    return np.array(ids, dtype=np.int64), matrix


def _truncated(offset: int) -> MnemeError:
    return MnemeError(ERR_DATABASE, f"binary COPY data truncated at byte {offset}")
