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
3. truncate the file after the last moved byte (or pad it: below), fsync, drop the journal.

A kill at any point is repaired by the next holder of the folder lock (:func:`finish_rewrites`): while
the digest still matches, the truncate has not happened and the step is redone; otherwise it is
finished. Readers see the file as it will be (:func:`journalled_view`), never a torn middle state.

The cut in step 3 is the one place where bytes could be lost: a row appended between the last look at
the file's end and the truncate would be cut. An ``O_APPEND`` writer always writes at the current end,
beyond every byte this rewrite has seen, and every other step only overwrites bytes it has seen. So:

- the file is cut only under a Linux write lease (``F_SETLEASE``), granted only while no other
  descriptor is open on the file; while it is held, another process's ``open()`` waits until it is
  released. Under the lease the size is checked again and the file cut: nobody can write in between;
- when the lease cannot be had (another process holds the file open, or leases are not available:
  another OS, a network file system, a file owned by another user), the file keeps its length: the
  bytes after the new content become spaces at the end of its last line, before its newline, where a
  markdown table ignores them (:func:`unpadded` takes them off again on the next prune). A shrink that
  would leave more than ``MAX_PADDING`` bytes of padding is refused before anything is written.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

if sys.platform != "win32":
    import fcntl

FAULT_ENV = "MNEME_FAULT"
FAULT_TRACE_ENV = "MNEME_FAULT_TRACE"
JOURNAL_SUFFIX = ".rewrite-journal"
CHUNK = 1 << 20
MAX_PADDING = 1 << 20
"""Most bytes of spaces a shrink leaves in a file another process holds open (1 MiB); more is refused."""
LEASE_TRIES = 3
"""How often the final cut tries for the lease before it pads instead (a short-lived opener may be done)."""
LEASE_RETRY_SECONDS = 0.002
_F_SETLEASE = getattr(fcntl, "F_SETLEASE", 1024) if sys.platform == "linux" else 0
_F_SETSIG = getattr(fcntl, "F_SETSIG", 10) if sys.platform == "linux" else 0


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
        view = view[os.write(fd, view) :]
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
        checked = current[self.end : self.check_end]
        return len(current) >= self.check_end and hashlib.sha256(checked).hexdigest() == self.check_digest


def _encode(step: _Step) -> bytes:
    head = {
        "offset": step.offset,
        "unread": step.unread,
        "check_end": step.check_end,
        "check_digest": step.check_digest,
        "size": len(step.data),
    }
    return json.dumps(head).encode("ascii") + b"\n" + step.data


def _decode(raw: bytes) -> _Step | None:
    head_line, _, data = raw.partition(b"\n")
    try:
        head = json.loads(head_line)
        step = _Step(int(head["offset"]), data, int(head["unread"]), int(head["check_end"]), str(head["check_digest"]))
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
    return current[: step.offset] + step.data + current[step.unread :]


def _read_from(fd: int, start: int) -> bytes:
    parts = []
    while chunk := os.pread(fd, CHUNK, start):
        parts.append(chunk)
        start += len(chunk)
    return b"".join(parts)


def _run(path: Path, fd: int, offset: int, data: bytes, unread: int, mode: int) -> None:
    """Journal and write each step (module doc) until no appended bytes are left to move; cut or pad."""
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
        moved = _end_at(fd, end, unread)
        if not moved:
            break
        offset, data, unread = end, moved, unread + len(moved)
    write_point(f"replaced:{path.name}")
    journal.unlink(missing_ok=True)
    fsync_dir(path.parent)


def _end_at(fd: int, end: int, size: int) -> bytes:
    """Make the file end after byte ``end`` of its first ``size``; b"" when done, else the bytes to move first.

    Cut under a lease when one can be had, else pad (module doc): bytes past ``size`` are never touched.
    """
    for _ in range(LEASE_TRIES):
        moved = _read_from(fd, size)
        if moved or end == size:
            return moved
        lease = _take_lease(fd)
        if lease is None:
            break
        if lease:
            try:
                cut = os.fstat(fd).st_size == size  # nobody can write now: an append before the lease shows here
                if cut:
                    os.ftruncate(fd, end)
            finally:
                _release_lease(fd)
            if cut:
                os.fsync(fd)
                return b""
        else:
            time.sleep(LEASE_RETRY_SECONDS)
    _pad(fd, end, size)
    return b""


def _pad(fd: int, end: int, size: int) -> None:
    """Turn bytes ``end`` to ``size`` into spaces before the line ending of the content's last line."""
    tail = os.pread(fd, min(end, 2), end - min(end, 2))
    ending = b"\r\n" if tail.endswith(b"\r\n") else b"\n" if tail.endswith(b"\n") else b""
    os.pwrite(fd, b" " * (size - end) + ending, end - len(ending))
    os.fsync(fd)


def unpadded(line: str) -> str:
    """``line`` without the padding :func:`_pad` may have put at its end, keeping what markdown reads.

    Spaces after a row's closing pipe and on a blank line go; a prose line keeps at most two (a hard break).
    """
    body = line.rstrip("\r\n")
    trimmed = body.rstrip(" ")
    kept = "" if not trimmed or trimmed.endswith("|") else body[len(trimmed) :][:2]
    return trimmed + kept + line[len(body) :]


def _take_lease(fd: int) -> bool | None:
    """Take a write lease on ``fd``: True when held, False when another descriptor is open on the file,
    None when leases are not available (not Linux, the file system or the owner refuses them).

    A lease break is signalled to the holder (SIGIO by default, which would end the process); it is
    sent as SIGURG instead, which is ignored unless a handler was installed (then no lease is taken).
    """
    if sys.platform != "linux" or signal.getsignal(signal.SIGURG) not in (signal.SIG_DFL, signal.SIG_IGN):
        return None
    try:
        fcntl.fcntl(fd, _F_SETSIG, signal.SIGURG)
        fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_WRLCK)
    except OSError as exc:
        return False if exc.errno == errno.EAGAIN else None
    return True


def _release_lease(fd: int) -> None:
    fcntl.fcntl(fd, _F_SETLEASE, fcntl.F_UNLCK)


def open_holders(path: Path) -> list[str]:
    """Other processes that have ``path`` open, as ``pid 42 (python3, appending)``; read from /proc (Linux)."""
    try:
        target = os.stat(path)
        pids = [name for name in os.listdir("/proc") if name.isdigit() and int(name) != os.getpid()]
    except OSError:
        return []
    holders = []
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue  # gone, or not ours to look at
        for number in fds:
            try:
                found = os.stat(f"/proc/{pid}/fd/{number}")
            except OSError:
                continue
            if (found.st_dev, found.st_ino) == (target.st_dev, target.st_ino):
                holders.append(_describe_holder(pid, number))
                break
    return holders


def _describe_holder(pid: str, number: str) -> str:
    try:
        name = Path(f"/proc/{pid}/comm").read_text(encoding="utf-8").strip()
        info = Path(f"/proc/{pid}/fdinfo/{number}").read_text(encoding="utf-8")
        flags = int(next(line.split()[1] for line in info.splitlines() if line.startswith("flags:")), 8)
    except (OSError, StopIteration, ValueError, IndexError):
        return f"pid {pid}"
    how = "appending" if flags & os.O_APPEND else ("reading", "writing", "reading and writing")[flags & 3]
    return f"pid {pid} ({name}, {how})"


def _refuse_large_padding(path: Path, fd: int, padding: int) -> None:
    """Raise (before anything is written) when the shrink could not cut ``path`` and would pad it too much."""
    lease = _take_lease(fd)
    if lease:
        _release_lease(fd)
        return
    if lease is None:
        why = "file leases are not available for it here, so mneme cannot tell that no other process writes it"
    else:
        holders = open_holders(path)
        why = f"{', '.join(holders) if holders else 'another process'} has it open"
    raise OSError(
        errno.EBUSY,
        f"{why}; shrinking it without cutting would leave {padding:,} bytes of padding "
        f"(the limit is {MAX_PADDING:,}). Nothing was changed: close it and run again",
        str(path),
    )


def shrink_in_place(path: Path, data: bytes, old_size: int) -> None:
    """Make ``path`` hold ``data`` followed by whatever was appended after its first ``old_size`` bytes.

    ``len(data) <= old_size``; the caller holds the folder lock and has checked the file (module doc).
    The only descriptor this process holds on ``path`` meanwhile is its own (a lease needs that). A shrink
    that may have to pad more than ``MAX_PADDING`` bytes raises :class:`OSError` (EBUSY) first.
    """
    fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    try:
        if old_size - len(data) > MAX_PADDING:
            _refuse_large_padding(path, fd, old_size - len(data))
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
        target = folder / name[1 : -len(JOURNAL_SUFFIX)]
        try:
            finish_rewrite(target)
        except FileNotFoundError:
            journal_path(target).unlink(missing_ok=True)
