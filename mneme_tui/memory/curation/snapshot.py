"""The catalogue kept on disk, so a cold review (a new process) reads from the database only what changed since.

The file lives beside the index snapshot, named after it (``index-<digest>-catalogue.npz``: a purge's scrub,
which deletes every file starting with the index snapshot's name, deletes it too), and is keyed by the database's
``db_uuid`` and the revision it reflects. It holds the rows and what the finders found over them (the proposals
of each partition, ``partitions.py``): restoring it and then reading the rows changed since that revision gives
exactly the catalogue a full read would, and finding again only in the partitions those rows are in gives exactly
the proposals a full review would (``tests/curation/test_snapshot.py``). Every key in it is ``text.stable_hash``,
the same in every process.

It is one uncompressed NumPy ``.npz`` (a zip file: every array carries a CRC-32, checked as it is read; no
pickles), written to a temporary file that is renamed over the old one. Only a regular file is read. A file
that cannot be used as it is (truncated, damaged, not a catalogue, arrays that do not fit) is deleted, reported
once as a warning on the ``mneme_tui`` logger and rebuilt by the next review; another database's, another
format's or one made with other text features is quietly replaced."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, fields
from itertools import accumulate, pairwise
from pathlib import Path
from stat import S_ISREG
from typing import Any

import numpy as np
import peewee

from mneme_tui.memory import index_snapshot
from mneme_tui.memory.curation import text_features as T
from mneme_tui.memory.curation.catalogue import MIN_SKELETON_WORDS, Catalogue, Rows, empty_rows
from mneme_tui.memory.curation.partitions import KeptState, current_states, restore_states
from mneme_tui.memory.persistence.repositories import database_uuid

FORMAT = 2
"""2: no shingle sets (they are made from the texts when a comparison needs them)."""
FEATURES = T.stable_hash(
    json.dumps(
        [
            T.SIGNATURE_SIZE,
            T.BANDS,
            T.A.tolist(),
            T.B.tolist(),
            MIN_SKELETON_WORDS,
            sorted(T.NEGATORS),
            sorted(T.NEGATION_PREFIXES),
        ]
    )
)
"""What the features depend on: a snapshot made with other MinHash functions or claim words is replaced."""
MIN_ROWS = index_snapshot.MIN_ROWS
"""Smaller stores are read from the database fast enough: no snapshot is written for them."""
RESAVE_ROWS = 1_000
"""A new snapshot is written once the revision moved by more than this (or a tenth of the store) since the last."""
SUFFIX = "-catalogue.npz"
TEXT_CHUNK = 50_000
"""Texts encoded at a time when the snapshot is written."""
_LISTS = ("repos", "texts")
"""The columns of ``Rows`` that are Python lists (kept as arrays: see ``_arrays``)."""
_READ_ERRORS = (
    OSError,
    EOFError,
    ValueError,
    KeyError,
    TypeError,
    IndexError,
    OverflowError,
    zipfile.BadZipFile,
    UnicodeDecodeError,
)
"""What reading a damaged, truncated or foreign file raises (a CRC mismatch is a ``BadZipFile``)."""

Encode = Callable[[list[Any]], dict[str, list[Any]]]
"""Makes lists of plain values (one per field) of a finder's results (``proposals._kept``)."""
Decode = Callable[[dict[str, list[Any]]], list[Any]]
"""Makes the results again from those lists (``proposals._unkept``)."""

log = logging.getLogger("mneme_tui.curation_snapshot")


class DamagedSnapshot(Exception):
    """The file's arrays do not fit together (the message says how)."""


@dataclass
class Saved:
    """A catalogue as kept on disk: its rows, the revision (highest id, update seq) they reflect, and the
    finders' results over those rows (``partitions.current_states``)."""

    rows: Rows
    max_id: int
    update_seq: int
    states: list[KeptState]


def snapshot_path(db_path: Path) -> Path:
    """The catalogue snapshot of the database at ``db_path`` (beside its index snapshot)."""
    index = index_snapshot.snapshot_path(db_path)
    return index.with_name(index.stem + SUFFIX)


def refresh(catalogue: Catalogue, db: peewee.Database, path: Path | None, decode: Decode) -> None:
    """``catalogue.refresh(db)``; a cold catalogue first starts from the snapshot at ``path`` (None: no
    snapshot, a server's store), its finders' results made again by ``decode`` from what ``encode`` kept."""
    if path is not None and catalogue.revision < 0:
        saved = load(path, database_uuid(db), decode)
        if saved is not None:
            catalogue.restore(saved.rows, saved.max_id, saved.update_seq)
            restore_states(catalogue, saved.states)
    catalogue.refresh(db)


def save_when_due(catalogue: Catalogue, db: peewee.Database, path: Path | None, encode: Encode) -> None:
    """Write a new snapshot at ``path`` once enough has changed since the last (``RESAVE_ROWS``, as the index's);
    call it after the finders ran, so their results are kept with the rows (as the lists ``encode`` makes of
    them)."""
    size = catalogue.rows.ids.size
    if path is None or size < MIN_ROWS or catalogue.revision - catalogue.saved_revision <= max(RESAVE_ROWS, size // 10):
        return
    if save(catalogue, path, database_uuid(db), encode):
        catalogue.saved_revision = catalogue.revision


def save(catalogue: Catalogue, path: Path, db_uuid: str, encode: Encode) -> bool:
    """Write the catalogue's snapshot atomically; False (nothing written) when the folder is not writable."""
    states = [
        [
            list(slot),
            column,
            depends,
            list(marks.items()),
            list(found),
            [len(items) for items in found.values()],
            encode([item for items in found.values() for item in items]),
        ]
        for slot, column, depends, marks, found in current_states(catalogue)
    ]
    repos = sorted(set(catalogue.rows.repos))
    header = {
        "format": FORMAT,
        "features": FEATURES,
        "db_uuid": db_uuid,
        "max_id": catalogue.max_id,
        "update_seq": catalogue.update_seq,
        "repos": repos,
    }
    arrays = _arrays(catalogue.rows, repos)
    arrays["header"] = np.frombuffer(json.dumps(header).encode("utf-8"), np.uint8)
    arrays["states"] = np.frombuffer(json.dumps(states).encode("utf-8"), np.uint8)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(prefix=".catalogue-", suffix=".npz", dir=path.parent)
    except OSError:
        return False
    try:
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, allow_pickle=False, **arrays)
        os.replace(temp_name, path)
    except OSError:
        Path(temp_name).unlink(missing_ok=True)
        return False
    return True


def load(path: Path, db_uuid: str, decode: Decode) -> Saved | None:
    """The catalogue kept at ``path`` for this database, or None (no file, another database, format or
    features). Anything unusable at the path is deleted and reported once."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        _discard(path, f"cannot be read ({exc.strerror or exc})")
        return None
    try:
        with os.fdopen(descriptor, "rb") as stream:
            if not S_ISREG(os.fstat(stream.fileno()).st_mode):
                _discard(path, "is not a regular file")
                return None
            return _read(stream, db_uuid, decode)
    except DamagedSnapshot as exc:
        _discard(path, str(exc))
    except _READ_ERRORS as exc:
        _discard(path, f"is damaged ({type(exc).__name__})")
    return None


def _read(stream: Any, db_uuid: str, decode: Decode) -> Saved | None:
    """The snapshot in the open file ``stream`` (every array read whole, so each one's CRC is checked)."""
    with np.load(stream, allow_pickle=False) as stored:
        header = json.loads(stored["header"].tobytes())
        if not isinstance(header, dict):
            raise DamagedSnapshot("has a malformed header")
        if (header.get("format"), header.get("features"), header.get("db_uuid")) != (FORMAT, FEATURES, db_uuid):
            return None  # another format, other features or another database: the next save replaces it
        arrays = {name: stored[name] for name in stored.files if name not in ("header", "states")}
        states = [_state(kept, decode) for kept in json.loads(stored["states"].tobytes())]
    return Saved(
        _rows(arrays, [str(repo) for repo in header["repos"]]), int(header["max_id"]), int(header["update_seq"]), states
    )


def _state(state: list[Any], decode: Decode) -> KeptState:
    """One finder's results as ``save`` kept them."""
    slot, column, depends, marks, keys, counts, kept = state
    items = decode(kept)
    if sum(counts) != len(items) or len(keys) != len(counts):
        raise DamagedSnapshot("has kept proposals that do not fit their partitions")
    ends = list(accumulate(counts))
    found = {int(key): items[start:end] for key, start, end in zip(keys, [0, *ends[:-1]], ends)}
    return tuple(slot), str(column), str(depends), {int(key): int(mark) for key, mark in marks}, found


def _arrays(rows: Rows, repos: list[str]) -> dict[str, np.ndarray]:
    """The rows as arrays: the numeric columns as they are, repos as codes into ``repos``, the texts as one
    UTF-8 blob with each text's length."""
    arrays = {column.name: getattr(rows, column.name) for column in fields(Rows) if column.name not in _LISTS}
    code = {repo: number for number, repo in enumerate(repos)}
    arrays["repo_codes"] = np.fromiter(map(code.__getitem__, rows.repos), np.int64, len(rows.repos))
    arrays["text_blob"] = _text_blob(rows.texts)
    arrays["text_lengths"] = np.fromiter(map(len, rows.texts), np.int64, len(rows.texts))
    return arrays


def _text_blob(texts: list[str]) -> np.ndarray:
    """The texts' UTF-8 bytes, one after another, encoded a chunk at a time twice (once to measure, once to
    copy) so that the whole text is never held twice."""
    pieces = range(0, len(texts), TEXT_CHUNK)
    sizes = [len(_encoded(texts[at : at + TEXT_CHUNK])) for at in pieces]
    blob = np.empty(sum(sizes), np.uint8)
    for at, start, size in zip(pieces, accumulate([0, *sizes]), sizes):
        blob[start : start + size] = np.frombuffer(_encoded(texts[at : at + TEXT_CHUNK]), np.uint8)
    return blob


def _encoded(texts: list[str]) -> bytes:
    return "".join(texts).encode("utf-8", "surrogatepass")


def _rows(arrays: dict[str, np.ndarray], repos: list[str]) -> Rows:
    """``Rows`` from a snapshot's arrays; DamagedSnapshot when they do not fit together."""
    template, size = empty_rows(), arrays["ids"].size
    columns: dict[str, Any] = {}
    for column in fields(Rows):
        if column.name in _LISTS:
            continue
        value, like = arrays[column.name], getattr(template, column.name)
        if value.dtype != like.dtype or value.shape != (size, *like.shape[1:]):
            raise DamagedSnapshot(f"has a wrong {column.name} array")
        columns[column.name] = value
    codes, lengths = arrays["repo_codes"], arrays["text_lengths"]
    if codes.shape != (size,) or lengths.shape != (size,):
        raise DamagedSnapshot("has columns of different lengths")
    if size and (codes.min() < 0 or codes.max() >= len(repos) or lengths.min() < 0):
        raise DamagedSnapshot("has wrong repo codes or text lengths")
    whole = arrays["text_blob"].tobytes().decode("utf-8", "surrogatepass")
    ends = np.cumsum(lengths).tolist()
    if (ends[-1] if ends else 0) != len(whole):
        raise DamagedSnapshot("has wrong texts")
    columns["texts"] = [whole[start:end] for start, end in pairwise([0, *ends])]
    columns["repos"] = [repos[code] for code in codes.tolist()]
    return Rows(**columns)


def _discard(path: Path, reason: str) -> None:
    """Delete an unusable snapshot and say so once; the next review writes a good one."""
    log.warning("mneme: warning: the review cache %s %s; rebuilding it from the database", path, reason)
    with contextlib.suppress(OSError):  # a read-only cache folder: the snapshot is simply not used
        path.unlink(missing_ok=True)
