"""Shrinking a memory file in place (same inode), made crash-safe by a journal, plus the write primitives.

A process that keeps OUTCOMES.md open in append mode (an agent's long-lived handle) writes into
whatever inode it opened. A rewrite that swaps a new file in (temp file + rename) leaves that process
writing into the unlinked old inode, and its rows are lost. So a rewrite that makes the file shorter
(prune removes rows) is done in the file itself, under the folder lock:

1. write the journal ``.NAME.rewrite-journal`` (atomically, with the file's mode): the bytes to put at
   an offset, where the bytes appended since the file was read start (``unread``), and a digest of the
   file between the end of those bytes and its end, which no step but the final truncate changes;
2. write the bytes at the offset; then move the bytes other writers appended meanwhile (``unread`` to
   the end of the file) to just after them, journalling each move the same way, until no new bytes came;
3. truncate the file after the last moved byte, fsync, drop the journal.

A kill at any point is repaired by the next holder of the folder lock (:func:`finish_rewrites`): while
the digest still matches, the truncate has not happened and the step is redone; otherwise it is
finished. Readers see the file as it will be (:func:`journalled_view`), never a torn middle state.
Only the few microseconds between the last look at the file's end and the truncate are open: a byte
another process appends exactly then is cut.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

FAULT_ENV = "MNEME_FAULT"
FAULT_TRACE_ENV = "MNEME_FAULT_TRACE"
JOURNAL_SUFFIX = ".rewrite-journal"
CHUNK = 1 << 20


def write_point(name: str) -> None:
    """A named point in a write where a crash is simulated in tests (see :mod:`mneme_tui.legion.markdown.storage`)."""
    trace = os.environ.get(FAULT_TRACE_ENV)
    if trace:
        with open(trace, "a", encoding="utf-8") as handle:
            handle.write(name + "\n")
    if os.environ.get(FAULT_ENV) == name:
        os._exit(99)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` and fsync it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def fsync_dir(folder: Path) -> None:
    """fsync a folder so a rename or unlink in it is durable (best effort)."""
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


def write_durably(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to a fsynced temp file beside ``path`` with ``mode`` and rename it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        write_all(fd, data)
    finally:
        os.close(fd)
    try:
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def journal_path(path: Path) -> Path:
    """Where the in-place rewrite of ``path`` keeps its journal."""
    return path.with_name(f".{path.name}{JOURNAL_SUFFIX}")


@dataclass(frozen=True)
class _Step:
    """One journalled step: put ``data`` at ``offset``; appended bytes not yet moved start at ``unread``."""

    offset: int
    data: bytes
    unread: int
    check_end: int
    check_digest: str

    @property
    def end(self) -> int:
        return self.offset + len(self.data)

    def pending(self, current: bytes) -> bool:
        """True while the truncate that ends the rewrite has not happened (the checked bytes are intact)."""
        if self.end == self.unread:
            return True  # nothing to cut: redoing the step is always right
        checked = current[self.end:self.check_end]
        return len(current) >= self.check_end and hashlib.sha256(checked).hexdigest() == self.check_digest


def _encode(step: _Step) -> bytes:
    head = {"offset": step.offset, "unread": step.unread, "check_end": step.check_end,
            "check_digest": step.check_digest, "size": len(step.data)}
    return json.dumps(head).encode("ascii") + b"\n" + step.data


def _decode(raw: bytes) -> _Step | None:
    head_line, _, data = raw.partition(b"\n")
    try:
        head = json.loads(head_line)
        step = _Step(int(head["offset"]), data, int(head["unread"]), int(head["check_end"]),
                     str(head["check_digest"]))
    except (ValueError, KeyError, TypeError):
        return None  # written atomically, so never partial; anything else is not ours to act on
    return step if len(data) == int(head["size"]) and step.end <= step.unread else None


def _read_step(path: Path) -> _Step | None:
    """The journal of ``path``, when it is a regular file of ours (never read through a symlink)."""
    try:
        fd = os.open(journal_path(path), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:  # missing, or a symlink (ELOOP): not a journal mneme wrote
        return None
    try:
        return _decode(_read_from(fd, 0))
    finally:
        os.close(fd)


def journalled_view(path: Path, current: bytes) -> bytes:
    """``current`` (the bytes of ``path``) as they will be once an unfinished in-place rewrite is done."""
    step = _read_step(path)
    if step is None or not step.pending(current):
        return current
    return current[:step.offset] + step.data + current[step.unread:]


def _read_from(fd: int, start: int) -> bytes:
    parts = []
    while chunk := os.pread(fd, CHUNK, start):
        parts.append(chunk)
        start += len(chunk)
    return b"".join(parts)


def _run(path: Path, fd: int, offset: int, data: bytes, unread: int, mode: int) -> None:
    """Journal and write each step (module doc) until no appended bytes are left to move; truncate."""
    journal = journal_path(path)
    while True:
        size = os.fstat(fd).st_size
        end = offset + len(data)
        checked = os.pread(fd, size - end, end) if size > end else b""
        write_durably(journal, _encode(_Step(offset, data, unread, size, hashlib.sha256(checked).hexdigest())), mode)
        write_point(f"tmp:{path.name}")
        os.pwrite(fd, data, offset)
        os.fsync(fd)
        write_point(f"inplace:{path.name}")
        moved = _read_from(fd, unread)
        if not moved and (end == unread or _truncated_at_end(fd, unread, end)):
            break
        offset, data, unread = end, moved, unread + len(moved)
    write_point(f"replaced:{path.name}")
    journal.unlink(missing_ok=True)
    fsync_dir(path.parent)


def _truncated_at_end(fd: int, size: int, end: int) -> bool:
    """Cut the file to ``end`` if it is still ``size`` bytes long (True); False when it grew meanwhile.

    The yield starts a fresh time slice, so the check and the cut follow each other within microseconds:
    an append in between is the one thing this cannot keep.
    """
    if hasattr(os, "sched_yield"):
        os.sched_yield()
    if os.fstat(fd).st_size != size:
        return False
    os.ftruncate(fd, end)
    os.fsync(fd)
    return True


def shrink_in_place(path: Path, data: bytes, old_size: int) -> None:
    """Make ``path`` hold ``data`` followed by whatever was appended after its first ``old_size`` bytes.

    ``len(data) <= old_size``; the caller holds the folder lock and has checked the file (module doc).
    """
    fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    try:
        _run(path, fd, 0, data, old_size, os.fstat(fd).st_mode & 0o7777)
    finally:
        os.close(fd)


def finish_rewrite(path: Path) -> None:
    """Finish (or just drop) the journal an interrupted in-place rewrite of ``path`` left (under the lock)."""
    journal = journal_path(path)
    step = _read_step(path)
    if step is not None:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        try:
            if step.pending(_read_from(fd, 0)):
                _run(path, fd, step.offset, step.data, step.unread, os.fstat(fd).st_mode & 0o7777)
        finally:
            os.close(fd)
    journal.unlink(missing_ok=True)


def finish_rewrites(folder: Path) -> None:
    """Finish every interrupted in-place rewrite in ``folder`` (the lock holder calls this first)."""
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.name.endswith(JOURNAL_SUFFIX)]
    except OSError:
        return
    for name in names:
        target = folder / name[1:-len(JOURNAL_SUFFIX)]
        try:
            finish_rewrite(target)
        except FileNotFoundError:
            journal_path(target).unlink(missing_ok=True)
