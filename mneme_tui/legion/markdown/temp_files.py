"""Temp files beside a memory file: written fsynced with the file's mode and group, and removed when stale.

A temp file is named ``.NAME.PID.HEX.tmp``; one left by a killed writer is removed by the next write of
that file or the next taking of the folder lock (when its process is gone, or it is older than a minute).
"""

from __future__ import annotations

import os
import re
import sys
import time
import uuid
from contextlib import suppress
from pathlib import Path

from mneme_tui.legion.markdown.inplace import write_all

STALE_TEMP_SECONDS = 60.0
_TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[0-9a-f]{8}\.tmp$")


def _pid_alive(pid: int) -> bool:
    if sys.platform == "win32":
        return True  # only the age rule applies there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def clean_stale_temps(folder: Path, name: str | None = None) -> None:
    """Remove ``.NAME.PID.HEX.tmp`` files (of ``name``, or any) whose process is gone or older than a minute."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        match = _TEMP_NAME.match(entry.name)
        if not match or name not in (None, match.group("name")) or not entry.is_file(follow_symlinks=False):
            continue
        try:
            old = time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS
            if old or not _pid_alive(int(match.group("pid"))):
                os.unlink(entry.path)
        except OSError:
            continue


def write_temp(path: Path, data: bytes, like: Path | None = None) -> Path:
    """Write ``data`` to a fsynced temp file beside ``path`` with ``path``'s mode and group.

    A new file takes those of ``like`` (the file whose rows it holds) when given and present.
    """
    clean_stale_temps(path.parent, path.name)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    current = None
    for source in (path, like):
        if source is not None and current is None:
            with suppress(FileNotFoundError):
                current = os.stat(source)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        if current is not None:
            if hasattr(os, "fchown"):
                with suppress(OSError):
                    os.fchown(fd, -1, current.st_gid)
            if hasattr(os, "fchmod"):
                os.fchmod(fd, current.st_mode & 0o7777)
        write_all(fd, data)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    return tmp
