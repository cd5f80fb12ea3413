"""Safe reading and writing of memory files beside other writers: folder lock, append, checked replace.

Other writers exist: agents and editors append to ``.planning/memory/*.md`` without our lock. So
(``modify_file``), under ``.planning/memory/.lock`` (an exclusive lock with a timeout):

1. read the file and note its state (size, ``mtime_ns``, SHA-256), parse it, apply the change;
2. when the change only adds text at the end (a record appended to a table that ends the file), open
   the file for appending, check its size and mtime are still what was read, and append: no rewrite;
3. otherwise write a temp file ``.NAME.PID.HEX.tmp`` beside it (same mode and group), fsync it, check
   just before the swap that the file is still what was read, ``os.replace`` it in and fsync the folder;
   rows appended meanwhile are folded into the temp file first, and bytes another writer appended to
   the old file during the swap are carried over to the new one; a rewrite that makes the file no
   longer (prune) is done in place instead, journalled (:mod:`mneme_tui.legion.markdown.inplace`);
4. when the file changed in any other way since it was read, start again from the new content;
5. re-read and verify. If that fails, the old bytes go back only when the file is still exactly what
   we wrote (never older bytes over newer ones), and a :class:`LegionWriteError` carrying the full
   record text is raised, so nothing is lost. A file that did not parse is never rewritten.

Symlinks whose target leaves the memory folder (and dangling ones) are refused; a lock file that is a
symlink is refused. Temp files left by a killed writer are removed by the next write of that file
(when their process is gone, or they are older than a minute).

Fault injection (tests only): ``MNEME_FAULT=<point>`` makes the process ``os._exit(99)`` on reaching
that write point, as a ``kill -9`` there would; ``MNEME_FAULT_TRACE=<file>`` appends the name of every
point reached to that file. Points: ``tmp:NAME`` (temp file or in-place journal written, file not yet
changed), ``inplace:NAME`` (an in-place rewrite's bytes written, not yet truncated), ``replaced:NAME``
(swapped in, truncated or padded, not verified), ``append:NAME`` (about to append), plus ``prune:written`` (both prune
files written, journal not yet dropped) and ``sync:exported`` (files written, store not yet linked).

Reads never lock and never create anything: a missing folder or file reads as an empty document.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from mneme_tui.errors import ERR_IO, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.markdown.document import Document, parse, unparseable
from mneme_tui.legion.markdown.folder_lock import DEFAULT_LOCK_TIMEOUT, memory_lock
from mneme_tui.legion.markdown.inplace import fsync_dir, journalled_view, shrink_in_place, write_all, write_point
from mneme_tui.legion.markdown.safe_paths import safe_path
from mneme_tui.legion.markdown.schemas import DEFAULT_BRANCH
from mneme_tui.legion.markdown.temp_files import write_temp

MAX_REDO = 20
"""How many times a write starts again because another writer changed the file meanwhile."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest memory or summary file read (64 MiB, about 500,000 outcome rows); larger ones are refused."""
LATE_APPEND_GRACE = 0.02
"""Seconds a replaced file's old copy is watched for a late append (an appender that opened it before the swap)."""

T = TypeVar("T")


class LegionWriteError(MnemeError):
    """A memory write that did not happen; ``record_text`` holds everything needed to add it by hand."""

    def __init__(self, code: str, message: str, record_text: str = "") -> None:
        full = f"{message}\n{record_text}" if record_text else message
        super().__init__(code, full)
        self.record_text = record_text


# ------------------------------------------------------------------------------------ reading
@dataclass(frozen=True)
class FileState:
    """A file as read: its bytes (None when missing), size, mtime_ns and SHA-256."""

    data: bytes | None
    size: int = -1
    mtime_ns: int = -1
    digest: str = ""


def read_state(path: Path) -> FileState:
    """The file's bytes and state (through :func:`safe_path`); missing -> ``FileState(None)``.

    A file over ``MAX_FILE_BYTES`` is refused (MnemeError) before it is read.
    """
    try:
        with open(safe_path(path), "rb") as handle:
            stat = os.fstat(handle.fileno())
            if stat.st_size > MAX_FILE_BYTES:
                raise MnemeError(
                    ERR_VALIDATION_FAILED,
                    f"{path.name} is {stat.st_size:,} bytes, over the "
                    f"{MAX_FILE_BYTES:,}-byte limit for a memory file; not read",
                )
            data = handle.read()
            stat = os.fstat(handle.fileno())
    except (FileNotFoundError, NotADirectoryError):
        return FileState(None)
    data = journalled_view(path, data)  # a rewrite in place that was interrupted reads as it will end
    return FileState(data, stat.st_size, stat.st_mtime_ns, hashlib.sha256(data).hexdigest())


def _unchanged(path: Path, state: FileState) -> bool:
    """True when ``path`` still holds exactly what ``state`` describes (size, mtime_ns, hash)."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return state.data is None
    if state.data is None or (stat.st_size, stat.st_mtime_ns) != (state.size, state.mtime_ns):
        return False
    return read_state(path).digest == state.digest


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist."""
    return read_state(path).data


def load_document(path: Path, *, default_branch: str = DEFAULT_BRANCH) -> Document:
    """Parse a memory file; missing -> empty document (``exists=False``); unreadable -> one warning."""
    try:
        data = read_bytes(path)
    except MnemeError as exc:
        return unparseable(path.name, "", exc.message)
    except OSError as exc:
        return unparseable(path.name, "", f"cannot read it: {exc.strerror or exc}")
    if data is None:
        return Document(path.name, exists=False)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return unparseable(path.name, "", "it is not UTF-8 text")
    return parse(text, path.name, default_branch=default_branch)


# ------------------------------------------------------------------------------------ writing
def atomic_write(path: Path, text: str, *, like: Path | None = None) -> None:
    """Write ``text`` to a temp file beside ``path``, fsync, and ``os.replace`` it into place.

    A new file takes the mode and group of ``like`` when given (the file whose rows it holds).
    """
    path = safe_path(path)
    tmp = write_temp(path, text.encode("utf-8"), like)
    try:
        write_point(f"tmp:{path.name}")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def _grown_by_append(path: Path, state: FileState) -> FileState | None:
    """``path``'s new state when another writer only appended to it since ``state``; else None."""
    current = read_state(path)
    if state.data is None or current.data is None or current.size <= state.size:
        return None
    if not current.data.startswith(state.data):
        return None
    return current


def replace_if_unchanged(
    path: Path, data: bytes, state: FileState, *, fold_appends: bool = True, like: Path | None = None
) -> bool:
    """Swap ``data`` in for ``path`` if it still is what ``state`` describes; False (nothing written) if not.

    Rows another writer appended meanwhile (the file grew, its old bytes unchanged) are appended to
    ``data`` too, keeping their place at the end, rather than redoing the whole change (unless
    ``fold_appends`` is False: a change that reshaped a table header; then False, to redo it). Bytes appended
    to the old file while it is swapped out (within ``LATE_APPEND_GRACE``) are carried over.
    A change that makes the file no longer is written in place instead (same inode, journalled:
    :mod:`mneme_tui.legion.markdown.inplace`), so a process holding the file open for appending keeps its rows.
    A new file takes the mode and group of ``like`` when given.
    """
    path = safe_path(path)
    if state.data is not None and len(data) <= state.size and hasattr(os, "pwrite"):
        if not (_unchanged(path, state) or (fold_appends and _grown_by_append(path, state) is not None)):
            return False
        shrink_in_place(path, data, state.size)
        return True
    tmp = write_temp(path, data, like)
    old_fd = -1
    try:
        write_point(f"tmp:{path.name}")
        for _ in range(MAX_REDO):
            if _unchanged(path, state):
                break
            grown = _grown_by_append(path, state) if fold_appends else None
            if grown is None:
                return False
            assert grown.data is not None
            _append_bytes(tmp, grown.data[state.size :])
            state = grown
        else:
            return False
        if state.data is not None and sys.platform != "win32":  # Windows cannot replace a file held open
            old_fd = os.open(path, os.O_RDONLY)
        os.replace(tmp, path)
        write_point(f"replaced:{path.name}")
        if old_fd >= 0:
            time.sleep(LATE_APPEND_GRACE)
            late_size = os.fstat(old_fd).st_size - state.size
            if late_size > 0:
                os.lseek(old_fd, state.size, os.SEEK_SET)
                _append_bytes(path, os.read(old_fd, late_size))
    finally:
        if old_fd >= 0:
            os.close(old_fd)
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return True


def _append_bytes(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def append_if_unchanged(path: Path, tail: bytes, state: FileState) -> bool:
    """Append ``tail`` to ``path`` if its size and mtime are still those of ``state``; False if not."""
    path = safe_path(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
    try:
        stat = os.fstat(fd)
        if (stat.st_size, stat.st_mtime_ns) != (state.size, state.mtime_ns):
            return False
        write_point(f"append:{path.name}")
        write_all(fd, tail)
    finally:
        os.close(fd)
    return True


def write_if_unchanged(
    path: Path, state: FileState, before: str, after: str, *, fold_appends: bool = True, like: Path | None = None
) -> bool:
    """Append when ``after`` only adds to ``before`` (an existing file), else replace; both checked.

    A new file takes the mode and group of ``like`` when given.
    """
    if state.data is not None and after.startswith(before) and before.endswith("\n"):
        return append_if_unchanged(path, after[len(before) :].encode("utf-8"), state)
    return replace_if_unchanged(path, after.encode("utf-8"), state, fold_appends=fold_appends, like=like)


def restore_if_ours(path: Path, original: bytes | None, written: bytes) -> bool:
    """Put ``original`` back (or remove a new file) only while ``path`` still holds ``written`` exactly.

    Never puts older bytes over newer ones: if anyone wrote after us, the file is left alone (False).
    """
    try:
        state = read_state(path)
        if state.data != written:
            return False
        if original is None:
            path.unlink(missing_ok=True)
            return True
        return replace_if_unchanged(path, original, state)
    except (OSError, MnemeError):
        return False


def _header_texts(document: Document) -> list[str]:
    """The table header lines of ``document`` (a change that alters one reshapes its table)."""
    return [segment.text for segment in document.segments if segment.kind == "header"]


def modify_file(
    path: Path,
    change: Callable[[Document], T],
    *,
    template: str,
    verify: Callable[[Document, T], bool],
    record_text: Callable[[], str],
    default_branch: str = DEFAULT_BRANCH,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> T:
    """Apply ``change`` to the parsed file under the folder lock and write it safely (see module doc).

    ``template`` is the text a missing file starts from. When ``change`` leaves the text unchanged
    nothing is written. ``verify(reread_document, result)`` must confirm the change landed. ``change``
    may run more than once (on fresh content) when another writer changes the file meanwhile.
    ``record_text()`` is the text a failure carries: the records as they would have been written.
    """
    try:
        with memory_lock(path.parent, lock_timeout):
            for _ in range(MAX_REDO):
                state = read_state(path)
                before = template if state.data is None else state.data.decode("utf-8")
                document = _parsed_for_change(path, before, default_branch, record_text)
                headers = _header_texts(document)
                result = change(document)
                after = document.render()
                if state.data is not None and after == before:
                    return result
                # rows appended meanwhile fit the old header only: a reshaped header redoes the change
                fold = _header_texts(document) == headers
                if _write_verified(
                    path,
                    state,
                    before,
                    after,
                    fold=fold,
                    default_branch=default_branch,
                    verify=verify,
                    result=result,
                    record_text=record_text,
                ):
                    return result
            raise LegionWriteError(
                ERR_IO, f"{path.name} kept changing while it was being written; record not stored:", record_text()
            )
    except UnicodeDecodeError:
        raise LegionWriteError(
            ERR_VALIDATION_FAILED, f"{path.name} is not UTF-8 text; not rewritten. Record not stored:", record_text()
        ) from None
    except LegionWriteError:
        raise
    except MnemeError as exc:
        raise LegionWriteError(exc.code, f"{exc.message}; record not stored:", record_text()) from None
    except OSError as exc:
        raise LegionWriteError(
            ERR_IO, f"could not write {path}: {exc.strerror or exc}; record not stored:", record_text()
        ) from None


def _parsed_for_change(path: Path, text: str, default_branch: str, record_text: Callable[[], str]) -> Document:
    """``text`` parsed for a change; a file that does not parse is never written into (spec §7)."""
    document = parse(text, path.name, default_branch=default_branch)
    if not document.parseable:
        raise LegionWriteError(
            ERR_VALIDATION_FAILED,
            f"{document.warnings[0]} The file was not rewritten; add this record by hand:",
            record_text(),
        )
    return document


def _write_verified(
    path: Path,
    state: FileState,
    before: str,
    after: str,
    *,
    fold: bool,
    default_branch: str,
    verify: Callable[[Document, T], bool],
    result: T,
    record_text: Callable[[], str],
) -> bool:
    """Write ``after`` over ``before`` and confirm with ``verify(reread, result)``: True when it landed, False
    when another writer changed the file first (the change is to be redone on its new content); a failed write
    or a verification that fails raises (the file restored when it is still ours)."""
    try:
        if not write_if_unchanged(path, state, before, after, fold_appends=fold):
            return False
        reread = load_document(path, default_branch=default_branch)
        ok = reread.parseable and verify(reread, result)
    except OSError as exc:
        raise LegionWriteError(
            ERR_IO, f"could not write {path}: {exc.strerror or exc}; add this record by hand:", record_text()
        ) from None
    if not ok:
        restored = restore_if_ours(path, state.data, after.encode("utf-8"))
        outcome = "the file was restored" if restored else "another writer changed it since, so it was left as is"
        raise LegionWriteError(
            ERR_IO, f"verification of {path.name} failed; {outcome}. Record not stored:", record_text()
        )
    return True
