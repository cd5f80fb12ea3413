"""The memory folder's exclusive lock (``.lock`` for writers, ``.sync.lock`` for a whole sync) and its ``.gitignore``.

Taking the writers' lock finishes any in-place rewrite a kill interrupted and removes stale temp files.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mneme_tui.errors import ERR_IO, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.markdown.inplace import finish_rewrites
from mneme_tui.legion.markdown.safe_paths import safe_folder
from mneme_tui.legion.markdown.temp_files import clean_stale_temps

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

LOCK_NAME = ".lock"
SYNC_LOCK_NAME = ".sync.lock"
"""Held for a whole ``legion sync`` so two syncs never export one memory twice (writes use ``.lock``)."""
DEFAULT_LOCK_TIMEOUT = 10.0


def _try_lock(fd: int) -> bool:
    try:
        if sys.platform == "win32":
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _unlock(fd: int) -> None:
    if sys.platform == "win32":
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)


LOCK_IGNORE = f"# written by mneme: its lock files are not project content\n{LOCK_NAME}\n{SYNC_LOCK_NAME}\n.gitignore\n"
"""The ``.gitignore`` a memory folder gets when it has none: the locks (and this file) stay out of ``git status``."""


def ignore_lock_files(folder: Path) -> None:
    """Keep the lock files out of ``git status``: write ``folder/.gitignore`` when the folder has none (a
    ``.gitignore`` already there is the project's and is left alone). Best effort: a failure changes nothing."""
    path = folder / ".gitignore"
    if path.exists() or path.is_symlink():
        return
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(LOCK_IGNORE)
    except OSError:
        pass


@contextmanager
def memory_lock(folder: Path, timeout: float = DEFAULT_LOCK_TIMEOUT, name: str = LOCK_NAME) -> Iterator[None]:
    """Hold an exclusive lock on ``folder/name`` (creating the folder and lock file; never via a symlink).

    Holding the writers' lock (``.lock``) starts by finishing any in-place rewrite a kill interrupted.
    """
    safe_folder(folder).mkdir(parents=True, exist_ok=True)
    ignore_lock_files(folder)
    lock_path = folder / name
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        if lock_path.is_symlink():
            raise MnemeError(ERR_VALIDATION_FAILED, f"{lock_path} is a symlink; refusing to lock through it") from None
        raise MnemeError(ERR_IO, f"cannot open {lock_path}: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + timeout
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                raise MnemeError(ERR_IO, f"timed out after {timeout:g}s waiting for {lock_path}")
            time.sleep(0.005)
        if name == LOCK_NAME:  # only the writers' lock guards the files; a sync's own lock does not
            finish_rewrites(folder)
        clean_stale_temps(folder)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)
