"""A rebuildable on-disk copy of the in-memory index, so a cold process skips re-tokenising every memory.

The snapshot lives in the cache folder (``config.cache_dir()``), is keyed by the database's ``db_uuid``
and records the revision ``seq`` it reflects; loading it and then applying the rows changed since that
seq gives exactly the index a full load would. Another database's snapshot, or one made with another
text analysis (``TermFeatures.key``), is quietly replaced.

The file is one header and the index's arrays, raw and 64-byte aligned, so loading is a memory map
(copy-on-write: the index may update rows in place, the file never changes) rather than a parse. It
holds the token postings and the analysed terms' postings too, so the first recall builds nothing.

A CRC-32 covers the header and one the data. The header's is checked on every load, with the arrays'
shapes; the data's (a pass over every byte: half a second at a million memories) only when the file is
not known good. A full check of the file, at its writing or at a load, leaves a stamp beside it (``.checked``:
the file's inode, size, change times and data CRC); a load whose file still has that identity skips the pass.
The stamp counts only when it was written in a later clock tick than the file's last change, so a change
in the same tick (timestamps are coarse) is never missed: as git treats "racily clean" files. A truncated,
damaged or foreign-format file is detected, deleted (the next refresh writes a new one) and reported once as
a warning on the ``mneme_tui`` logger (one line on stderr by default). Writes go to a temporary file that is
renamed over the old one. A snapshot in an older format (written before an upgrade) is
replaced without a warning.

Layout: ``MAGIC``, then little-endian u32 format version, header length, header CRC, data CRC; the
header (JSON: revision, repos, kinds, the analysis key and each array's dtype, shape, offset and room);
padding to 64; the data: each array, the room after it (zeros, for rows written after the snapshot: see
``growing``), padding to 64. The room is not written: the writer seeks past it, leaving a hole that reads
as zeros (a tenth of the file at a million memories, which a file system with sparse files does not store).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import mmap
import os
import struct
import threading
import time
import zlib
from pathlib import Path
from stat import S_ISREG
from typing import Any

import numpy as np

from mneme_tui import config
from mneme_tui.memory.growing import MIN_ROOM
from mneme_tui.memory.index import MemoryIndex
from mneme_tui.memory.snapshot_vocab import SnapshotVocab, word_table

FORMAT_VERSION = 6
MAGIC = b"MNEMEIDX"
_PREFIX = struct.Struct("<8sIIII")  # magic, format version, header length, header crc, data crc
_ALIGN = 64
MIN_ROWS = 5_000
"""Smaller stores load from SQLite fast enough; no snapshot is written for them."""
SUFFIX = ".idx"
CHECKED_SUFFIX = ".checked"
_CRC_CHUNK = 4 << 20
GROWING_ROWS = ("ids", "vectors", "repo_codes", "kind_codes", "status_codes", "created_days", "access")
"""The index's row columns: written with room after them (``growing``)."""
GROWING_ENTRIES = ("term_start", "term_ids", "term_tf", "term_len")
"""The analysed terms' arrays (``doc_start``, ``doc_terms``, ``doc_tf``, ``doc_len``): with room too."""
_STAMP_TRIES = 20

log = logging.getLogger("mneme_tui.index_snapshot")


class DamagedSnapshot(Exception):
    """The snapshot file exists but cannot be used as it is (the message says why)."""


class OutdatedSnapshot(Exception):
    """The snapshot was written in an older format: replaced by the next save, nothing to report."""


def snapshot_path(db_path: Path) -> Path:
    """The snapshot file of the database at ``db_path``."""
    digest = hashlib.sha256(str(Path(db_path).resolve()).encode("utf-8")).hexdigest()[:16]
    return config.cache_dir() / f"index-{digest}{SUFFIX}"


def server_snapshot_path(key: str) -> Path:
    """The snapshot file of a server's database (PostgreSQL), named by a digest of its identity (``db_uuid``,
    database, schema: a new database at the same URL is another file); the URL, with its password, is in no
    file name and nowhere in the file."""
    return config.cache_dir() / f"index-server-{key[:16]}{SUFFIX}"


def discard_files(path: Path) -> None:
    """Delete the snapshot at ``path`` and the files beside it (its stamp, a temporary file)."""
    for stale in path.parent.glob(f"{path.stem}*") if path.parent.is_dir() else ():
        stale.unlink(missing_ok=True)


def save(index: MemoryIndex, path: Path, db_uuid: str) -> bool:
    """Write the snapshot atomically; False (and nothing written) when the folder is not writable.

    The postings (token and analysed-term) are built, when rows changed since they were, by a helper thread
    while the other arrays are written: they go last in the file, and the header, written at the end into
    room kept for it, gives their shapes (the build sorts without the GIL, the write copies without it)."""
    with index.lock:  # held while writing: rows updated in place must not change under the write
        if index._postings_built_for < index.size:
            index._postings_stale = True  # the snapshot holds postings for every row
        postings = _PostingsBuild(index)
        try:
            tokens, lengths = index._row_tokens.flat()
            terms = index.terms
            arrays: dict[str, np.ndarray] = {
                "ids": index.ids,
                "vectors": index.vectors,
                "repo_codes": index.repo_codes,
                "kind_codes": index.kind_codes,
                "status_codes": index.status_codes,
                "created_days": index.created_days,
                "access": index.access,
                **word_table("vocab", index.vocab),
                "tokens": tokens,
                "token_start": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                **word_table("term_vocab", terms.vocab),
                "term_start": terms.doc_start,
                "term_ids": terms.doc_terms,
                "term_tf": terms.doc_tf,
                "term_len": terms.doc_len,
            }
            header: dict[str, Any] = {
                "db_uuid": db_uuid,
                "seq": index.seq,
                "size": index.size,
                "update_seq": index.update_seq,
                "repos": sorted(index.repos, key=index.repos.__getitem__),
                "kinds": sorted(index.kinds, key=index.kinds.__getitem__),
                "term_key": terms.key,
                "arrays": {},
            }
            rooms = _rooms(index.size, terms.doc_terms.size, tokens.size)
            try:
                return _write(path, header, arrays, rooms, postings)
            except OSError:
                return False
        finally:
            postings.wait()  # never running on past the lock, however the write ended


POSTINGS = ("postings_rows", "postings_start", "term_post_rows", "term_post_tf", "term_post_start")
"""The arrays a snapshot ends with, built (when needed) while the others are written."""


class _PostingsBuild:
    """The token postings and the analysed terms' postings of every row, built by a helper thread."""

    def __init__(self, index: MemoryIndex) -> None:
        self._index = index
        self._arrays: dict[str, np.ndarray] = {}
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._build, name="mneme-snapshot-postings", daemon=True)
        self._thread.start()

    def _build(self) -> None:
        try:
            index = self._index
            index._ensure_postings()
            # the analysed terms' postings too (rebuilt first if rows were added): a cold bm25 recall sorts nothing
            self._arrays = dict(
                zip(POSTINGS, (index._postings_rows, index._postings_start, *index.terms.postings()), strict=True)
            )
        except BaseException as exc:  # raised again by result(), in the writer's thread
            self._error = exc

    def wait(self) -> None:
        self._thread.join()

    def result(self) -> dict[str, np.ndarray]:
        """The five arrays (``POSTINGS``), once built; the build's error, if it failed."""
        self.wait()
        if self._error is not None:
            raise self._error
        return self._arrays


def _rooms(size: int, entries: int, tokens: int) -> dict[str, int]:
    """The rows of room (zeros) written after each growing array, so that a process catching up on rows
    written since the snapshot appends them into its copy-on-write map (``growing``) instead of copying it:
    an eighth of the rows (the snapshot is rewritten after a tenth), and for the per-term arrays and the rows'
    token ids twice the average number of entries per row."""
    rows = max(MIN_ROOM, size // 8)
    per_row = max(1, -(-2 * entries // max(size, 1)))
    tokens_per_row = max(1, -(-2 * tokens // max(size, 1)))
    return {
        **dict.fromkeys((*GROWING_ROWS, "term_start", "term_len", "token_start"), rows),
        "term_ids": rows * per_row,
        "term_tf": rows * per_row,
        "tokens": rows * tokens_per_row,
    }


def _write(
    path: Path, header: dict[str, Any], arrays: dict[str, np.ndarray], rooms: dict[str, int], postings: _PostingsBuild
) -> bool:
    """Write the file from the arrays themselves (no copy of the data in memory), each followed by its room
    (a hole: zeros not written), the postings last; then the header and the data CRC into the room kept for
    them at the start, rename the file into place and stamp it as checked."""
    import tempfile  # only writers pay for it

    path.parent.mkdir(parents=True, exist_ok=True)
    head_room = _head_room(header, arrays)
    handle, temp_name = tempfile.mkstemp(prefix=".index-", suffix=SUFFIX, dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.seek(_PREFIX.size + head_room)
            offset, data_crc = 0, 0

            def put(name: str, array: np.ndarray) -> None:
                nonlocal offset, data_crc
                data = np.ascontiguousarray(array).reshape(-1)
                room = rooms.get(name, 0)
                header["arrays"][name] = [data.dtype.str, list(np.shape(array)), offset, room]
                part = data.data.cast("B")
                data_crc = zlib.crc32(part, data_crc)
                stream.write(part)
                gap = _gap(room * data.itemsize * math.prod(np.shape(array)[1:]), data.nbytes)
                data_crc = _zeros_crc(gap, data_crc)
                stream.seek(gap, os.SEEK_CUR)  # a hole: it reads as zeros, and the file system need not store it
                offset += data.nbytes + gap

            for name, array in arrays.items():
                put(name, array)
            for name, array in postings.result().items():
                put(name, array)
            stream.truncate()  # the file ends after the last array's room
            head = json.dumps(header).encode("utf-8")
            if len(head) > head_room:  # cannot happen (the room is for the widest entries): no snapshot, then
                raise OSError(f"the snapshot's header ({len(head)} bytes) outgrew its room ({head_room})")
            head += b" " * (head_room - len(head))  # JSON allows the spaces; the data starts where it was put
            stream.seek(0)
            stream.write(_PREFIX.pack(MAGIC, FORMAT_VERSION, len(head), zlib.crc32(head), data_crc) + head)
            written = os.fstat(stream.fileno()).st_ino
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    final = path.stat()
    if final.st_ino == written:  # not yet replaced by another writer's file
        _stamp(path, final, data_crc)
    path.with_suffix(".npz").unlink(missing_ok=True)  # the previous format's file, if any
    return True


def _head_room(header: dict[str, Any], arrays: dict[str, np.ndarray]) -> int:
    """Bytes kept for the header before the data: its length with every array's entry at its widest (a
    21-digit shape, offset and room, a 24-character dtype), so the real one fits, padded to the alignment."""
    widest, dtype = 10**20, "x" * 24
    entries = [[dtype, [widest] * max(np.ndim(array), 1), widest, widest] for array in arrays.values()]
    entries += [[dtype, [widest], widest, widest]] * len(POSTINGS)
    longest = len(json.dumps({**header, "arrays": dict(zip([*arrays, *POSTINGS], entries, strict=True))}))
    return longest + (-(longest + _PREFIX.size) % _ALIGN)


def _gap(room: int, used: int) -> int:
    """Bytes of zeros after an array of ``used`` bytes: its ``room`` and the padding to the next alignment."""
    return room + (-(used + room) % _ALIGN)


def _zeros_crc(count: int, crc: int) -> int:
    """``crc`` carried over ``count`` zero bytes."""
    chunk = memoryview(bytes(min(count, _CRC_CHUNK)))
    while count > 0:
        crc = zlib.crc32(chunk[: min(count, len(chunk))], crc)
        count -= len(chunk)
    return crc


_MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError)
"""What reading a header of the right checksum but the wrong shape raises (``"arrays": []``, a huge shape)."""


def load(path: Path, db_uuid: str) -> MemoryIndex | None:
    """The index stored at ``path`` for this database, or None when there is no usable snapshot.

    Only a regular file is read (opened without blocking: a FIFO or device at the path never hangs a recall),
    and the checks read the very file that was opened. A damaged snapshot, or anything else at the path, is
    deleted and reported once (a warning on the ``mneme_tui`` logger)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:  # unreadable
        _discard(path, f"cannot be read ({exc})")
        return None
    try:
        return _load_open(path, descriptor, db_uuid)
    finally:
        os.close(descriptor)


def _load_open(path: Path, descriptor: int, db_uuid: str) -> MemoryIndex | None:
    """``load`` on the file open as ``descriptor``."""
    identity = os.fstat(descriptor)
    if not S_ISREG(identity.st_mode):
        _discard(path, "is not a regular file")
        return None
    try:
        mapped = mmap.mmap(descriptor, 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError) as exc:  # an empty file cannot be mapped
        _discard(path, f"cannot be read ({exc})")
        return None
    try:
        header, arrays, buffers, data_start, data_crc = _read(mapped)
        if not _is_checked(path, identity, data_crc):
            if _file_crc(descriptor, data_start) != data_crc:
                raise DamagedSnapshot("has damaged data")
            _stamp(path, identity, data_crc)
        if header["db_uuid"] != db_uuid:
            return None  # another database once lived at this path: the next save replaces it
        index = MemoryIndex()
        if header["term_key"] != index.terms.key:
            return None  # made with another text analysis: rebuilt from the database
        _adopt_rooms(index, arrays, buffers)
        return _index(index, header, arrays)
    except OutdatedSnapshot:
        return None
    except DamagedSnapshot as exc:
        _discard(path, str(exc))
    except _MALFORMED as exc:
        _discard(path, f"has a malformed header ({type(exc).__name__}: {str(exc)[:200]})")
    return None


def _read(mapped: mmap.mmap) -> tuple[dict[str, Any], dict[str, np.ndarray], dict[str, np.ndarray], int, int]:
    """The header, the arrays and the same with the room after them (views of the copy-on-write map), where
    the data starts and its CRC, after checking the header's checksum and that every array lies inside the
    file (not the data's checksum)."""
    if len(mapped) < _PREFIX.size:
        raise DamagedSnapshot("is truncated")
    magic, version, head_length, head_crc, data_crc = _PREFIX.unpack_from(mapped)
    if magic != MAGIC:
        raise DamagedSnapshot("is not a mneme index snapshot")
    if version < FORMAT_VERSION:
        raise OutdatedSnapshot
    if version != FORMAT_VERSION:
        raise DamagedSnapshot(f"has format {version}, not {FORMAT_VERSION}")
    data_start = _PREFIX.size + head_length
    if len(mapped) < data_start:
        raise DamagedSnapshot("is truncated")
    head = mapped[_PREFIX.size : data_start]
    if zlib.crc32(head) != head_crc:
        raise DamagedSnapshot("has a damaged header")
    header = json.loads(head)
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), dict):
        raise DamagedSnapshot("has a malformed header (no table of arrays)")
    arrays, buffers = {}, {}
    for name, (dtype, shape, offset, room) in header["arrays"].items():
        kind = np.dtype(dtype)
        if not all(isinstance(n, int) and n >= 0 for n in [*shape, offset, room]) or kind.hasobject or not shape:
            raise DamagedSnapshot(f"has a malformed header (array {str(name)[:40]!r})")
        count = math.prod([shape[0] + room, *shape[1:]])
        if data_start + offset + count * kind.itemsize > len(mapped):
            raise DamagedSnapshot("is truncated")
        buffer = np.frombuffer(mapped, dtype=kind, count=count, offset=data_start + offset)
        buffers[name] = buffer.reshape([shape[0] + room, *shape[1:]])  # the rows in use, then the room
        arrays[name] = buffers[name][: shape[0]]
    return header, arrays, buffers, data_start, data_crc


def _file_crc(descriptor: int, start: int) -> int:
    """CRC-32 of the open file from ``start``, read in chunks (through the map, every page would stay
    resident)."""
    crc, position = 0, start
    while chunk := os.pread(descriptor, _CRC_CHUNK, position):
        crc = zlib.crc32(chunk, crc)
        position += len(chunk)
    return crc


def _checked_path(path: Path) -> Path:
    return path.with_suffix(CHECKED_SUFFIX)


def _identity(stat: os.stat_result, data_crc: int) -> str:
    return f"{stat.st_ino} {stat.st_size} {stat.st_mtime_ns} {stat.st_ctime_ns} {data_crc}"


def _is_checked(path: Path, stat: os.stat_result, data_crc: int) -> bool:
    """True when the stamp says this very file (same identity and data CRC) was fully checked in a clock
    tick after its last change, so any later change would show in its identity."""
    stamp = _checked_path(path)
    try:
        return stamp.read_text(encoding="ascii") == _identity(stat, data_crc) and (
            stat.st_ctime_ns < stamp.stat().st_mtime_ns
        )
    except (OSError, ValueError):
        return False


def _stamp(path: Path, stat: os.stat_result, data_crc: int) -> None:
    """Record that the file with this identity was fully checked (nothing when the folder is read-only).

    A stamp from the clock tick of the file's last change does not count, so it is rewritten (for up to
    ~20 ms) until the clock has moved on; failing that, the next load checks the data and stamps it."""
    stamp = _checked_path(path)
    temp = stamp.with_name(f".{stamp.name}.{os.getpid()}")
    try:
        for _ in range(_STAMP_TRIES):
            temp.write_text(_identity(stat, data_crc), encoding="ascii")
            os.replace(temp, stamp)
            if stamp.stat().st_mtime_ns > stat.st_ctime_ns:
                return
            time.sleep(0.001)
    except OSError:
        temp.unlink(missing_ok=True)


def _index(index: MemoryIndex, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> MemoryIndex:
    """Fill ``index`` from a snapshot's header and arrays (DamagedSnapshot when they do not fit)."""
    size = int(header["size"])
    index.seq, index.size, index.update_seq = int(header["seq"]), size, int(header["update_seq"])
    for name in GROWING_ROWS:
        if arrays[name].shape[0] != size or arrays[name].dtype != getattr(index, name).dtype:
            raise DamagedSnapshot(f"has a wrong {name} array")
        setattr(index, name, arrays[name])
    index.repos = {str(name): code for code, name in enumerate(header["repos"])}
    for code, kind in enumerate(header["kinds"]):
        if index._kind_code(str(kind)) != code:
            raise DamagedSnapshot("has a wrong kind table")
    index.vocab = SnapshotVocab(*_word_arrays(arrays, "vocab"), new_ids=True)
    tokens, token_start = arrays["tokens"], arrays["token_start"]
    postings_rows, postings_start = arrays["postings_rows"], arrays["postings_start"]
    if (
        token_start.size != size + 1
        or token_start[0] != 0
        or token_start[-1] != tokens.size
        or postings_start.size != len(index.vocab) + 1
        or postings_start[-1] != postings_rows.size
        or postings_rows.size != tokens.size
    ):
        raise DamagedSnapshot("has wrong token postings")
    index._postings_rows, index._postings_start = postings_rows, postings_start
    index._postings_built_for, index._postings_stale = size, False
    terms = index.terms
    terms.vocab = SnapshotVocab(*_word_arrays(arrays, "term_vocab"), new_ids=False)
    terms.doc_start, terms.doc_terms = arrays["term_start"], arrays["term_ids"]
    terms.doc_tf, terms.doc_len = arrays["term_tf"], arrays["term_len"]
    if terms.size != size or terms.doc_start.size != size + 1 or terms.doc_terms.size != terms.doc_start[-1]:
        raise DamagedSnapshot("has wrong analysed terms")
    try:
        terms.use_postings(arrays["term_post_rows"], arrays["term_post_tf"], arrays["term_post_start"])
    except ValueError as exc:
        raise DamagedSnapshot(f"has wrong term postings ({exc})") from None
    return index


def _adopt_rooms(index: MemoryIndex, arrays: dict[str, np.ndarray], buffers: dict[str, np.ndarray]) -> None:
    """Give the growing arrays their room in the map (``growing``): rows caught up on are written into it."""
    for name in GROWING_ROWS:
        arrays[name] = index.growing.adopt(name, buffers[name], arrays[name].shape[0])
    for name, term_name in zip(GROWING_ENTRIES, ("doc_start", "doc_terms", "doc_tf", "doc_len"), strict=True):
        arrays[name] = index.terms.growing.adopt(term_name, buffers[name], arrays[name].shape[0])
    tokens, starts = arrays["tokens"].shape[0], arrays["token_start"].shape[0]
    index._row_tokens.adopt(buffers["tokens"], tokens, buffers["token_start"], starts)


def _discard(path: Path, reason: str) -> None:
    """Delete a damaged snapshot and say so once; the next refresh writes a good one."""
    log.warning("mneme: warning: the index cache %s %s; rebuilding it from the database", path, reason)
    with contextlib.suppress(OSError):  # a read-only cache folder: the snapshot is simply not used
        path.unlink(missing_ok=True)
        _checked_path(path).unlink(missing_ok=True)


def _word_arrays(arrays: dict[str, np.ndarray], name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    blob, starts, order = arrays[name], arrays[f"{name}_start"], arrays[f"{name}_order"]
    if starts.size != order.size + 1 or starts[0] != 0 or starts[-1] != blob.size:
        raise DamagedSnapshot(f"has a wrong {name} table")
    return blob, starts, order
