"""Safe reading and writing of memory files: folder lock, atomic replace, verify, restore.

Write protocol (``modify_file``): take ``.planning/memory/.lock`` (``fcntl.flock``, with a timeout),
re-read and parse the file, apply the change, write a temp file in the same folder, fsync it,
``os.replace`` it over the original, fsync the folder, re-read and verify. If anything fails the old
bytes are put back (or the new file removed) and a :class:`LegionWriteError` carrying the full record
text is raised, so nothing is lost. A file that did not parse is never rewritten.

Reads never lock and never create anything: a missing folder or file reads as an empty document.
"""

from __future__ import annotations

import fcntl
import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from mneme_tui.errors import ERR_IO, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.document import Document, parse, unparseable
from mneme_tui.legion.schemas import DEFAULT_BRANCH

LOCK_NAME = ".lock"
DEFAULT_LOCK_TIMEOUT = 10.0

T = TypeVar("T")


class LegionWriteError(MnemeError):
    """A memory write that did not happen; ``record_text`` holds everything needed to add it by hand."""

    def __init__(self, code: str, message: str, record_text: str = "") -> None:
        full = f"{message}\n{record_text}" if record_text else message
        super().__init__(code, full)
        self.record_text = record_text


@contextmanager
def memory_lock(folder: Path, timeout: float = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder/.lock`` (creating the folder and lock file)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise MnemeError(ERR_IO, f"timed out after {timeout:g}s waiting for {folder / LOCK_NAME}")
                time.sleep(0.005)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def load_document(path: Path, *, default_branch: str = DEFAULT_BRANCH) -> Document:
    """Parse a memory file; missing -> empty document (``exists=False``); unreadable -> one warning."""
    try:
        data = read_bytes(path)
    except OSError as exc:
        return unparseable(path.name, "", f"cannot read it: {exc.strerror or exc}")
    if data is None:
        return Document(path.name, exists=False)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        doc = unparseable(path.name, "", "it is not UTF-8 text")
        return doc
    return parse(text, path.name, default_branch=default_branch)


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to a temp file beside ``path``, fsync, and ``os.replace`` it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def restore(path: Path, original: bytes | None) -> None:
    """Put ``original`` back (or remove a file that did not exist before)."""
    if original is None:
        path.unlink(missing_ok=True)
    else:
        atomic_write(path, original.decode("utf-8"))


def modify_file(
    path: Path,
    change: Callable[[Document], T],
    *,
    template: str,
    verify: Callable[[Document, T], bool],
    record_text: str,
    default_branch: str = DEFAULT_BRANCH,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> T:
    """Apply ``change`` to the parsed file under the folder lock and write it safely (see module doc).

    ``template`` is the text a missing file starts from. When ``change`` leaves the text unchanged
    nothing is written. ``verify(reread_document, result)`` must confirm the change landed.
    """
    try:
        with memory_lock(path.parent, lock_timeout):
            original = read_bytes(path)
            before = template if original is None else original.decode("utf-8")
            document = parse(before, path.name, default_branch=default_branch)
            if not document.parseable:
                raise LegionWriteError(
                    ERR_VALIDATION_FAILED,
                    f"{document.warnings[0]} The file was not rewritten; add this record by hand:",
                    record_text,
                )
            result = change(document)
            after = document.render()
            if original is not None and after == before:
                return result
            try:
                atomic_write(path, after)
                reread = load_document(path, default_branch=default_branch)
                landed = reread.render() == after and verify(reread, result)
            except OSError as exc:
                _safe_restore(path, original)
                raise LegionWriteError(
                    ERR_IO, f"could not write {path}: {exc.strerror or exc}; add this record by hand:", record_text
                ) from None
            if not landed:
                _safe_restore(path, original)
                raise LegionWriteError(
                    ERR_IO, f"verification of {path.name} failed; the file was restored. Record not stored:",
                    record_text,
                )
            return result
    except UnicodeDecodeError:
        raise LegionWriteError(
            ERR_VALIDATION_FAILED, f"{path.name} is not UTF-8 text; not rewritten. Record not stored:", record_text
        ) from None
    except LegionWriteError:
        raise
    except MnemeError as exc:
        raise LegionWriteError(exc.code, f"{exc.message}; record not stored:", record_text) from None
    except OSError as exc:
        raise LegionWriteError(
            ERR_IO, f"could not write {path}: {exc.strerror or exc}; record not stored:", record_text
        ) from None


def _safe_restore(path: Path, original: bytes | None) -> None:
    try:
        restore(path, original)
    except OSError:
        pass
