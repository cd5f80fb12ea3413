"""Edit text in the user's editor: ``$VISUAL``, else ``$EDITOR``, else ``vi`` (no Textual here).

The TUI's ``e`` runs it while the app is suspended; the text goes through a private temp file (mode 0600 in
a 0700 folder) that is removed afterwards, whatever happens: an error, an editor that leaves a folder or a
FIFO there, a SIGHUP or SIGTERM.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from stat import S_ISREG
from types import FrameType
from typing import Any

from mneme_tui.display import printable
from mneme_tui.errors import ERR_CONFIG, ERR_IO, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.validation import MAX_CONTENT_CHARS, strip_one_newline


def editor_command() -> list[str]:
    """``$VISUAL``, else ``$EDITOR``, else ``vi``, split like a shell would (``code --wait``)."""
    chosen = os.environ.get("VISUAL", "").strip() or os.environ.get("EDITOR", "").strip() or "vi"
    try:
        command = shlex.split(chosen)
    except ValueError as exc:
        raise MnemeError(ERR_CONFIG, f"cannot read the editor command {printable(chosen)}: {exc}") from None
    return command or ["vi"]


def edit_text(text: str, name: str = "memory.md") -> str:
    """Run the editor on ``text`` (in a temp file called ``name``) and return what it left there, without
    the one trailing newline editors add. A failing, missing or file-removing editor, or one that leaves
    something other than a regular file (a folder, a FIFO), raises MnemeError. The temp folder is removed on
    every way out, a SIGHUP or SIGTERM during the edit included (the signal then takes its course)."""
    command = editor_command()
    with _signals_clean_up():
        try:
            folder = tempfile.mkdtemp(prefix="mneme-edit-")  # created 0700
        except OSError as exc:
            raise MnemeError(ERR_IO, f"cannot create a temp folder for the edit: {exc.strerror or exc}") from None
        try:
            edited = _edit_in(Path(folder) / name, text, command)
        finally:
            _remove(folder)
    return strip_one_newline(edited)


def _edit_in(path: Path, text: str, command: list[str]) -> str:
    """Write ``text`` to the new file ``path``, run the editor on it and read what it left there."""
    shown = printable(shlex.join(command))
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with open(descriptor, "w", encoding="utf-8", newline="") as handle:
        handle.write(text + "\n")
    try:
        finished = subprocess.run([*command, str(path)], check=False)
    except OSError as exc:
        raise MnemeError(ERR_IO, f"cannot run the editor {shown}: {exc.strerror or exc}; nothing changed") from None
    if finished.returncode != 0:
        raise MnemeError(ERR_IO, f"the editor {shown} exited with status {finished.returncode}; nothing changed")
    try:  # without blocking: a FIFO left at the path must not hang the read
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise MnemeError(ERR_IO, f"the editor {shown} removed the file; nothing changed") from None
    except OSError as exc:
        raise MnemeError(ERR_IO, f"cannot read the edited file: {exc.strerror or exc}; nothing changed") from None
    if not S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise MnemeError(ERR_IO, f"the editor {shown} left something other than a file; nothing changed")
    with open(descriptor, encoding="utf-8", newline="") as handle:
        try:
            return handle.read(MAX_CONTENT_CHARS + 2)
        except UnicodeDecodeError:
            raise MnemeError(ERR_VALIDATION_FAILED, "the edited text is not UTF-8; nothing changed") from None


class _Stopped(BaseException):
    """A SIGHUP or SIGTERM arrived during the edit: unwinds (removing the temp folder), then re-delivered."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


STOP_SIGNALS = (signal.SIGHUP, signal.SIGTERM)


@contextmanager
def _signals_clean_up() -> Iterator[None]:
    """While the block runs, a SIGHUP or SIGTERM unwinds it (so the temp folder is removed) and is then
    handled as it would have been. Signal handlers exist only in the main thread; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise _Stopped(signum)

    previous = {signum: signal.signal(signum, stop) for signum in STOP_SIGNALS}
    try:
        yield
    except _Stopped as stopped:
        _restore(previous)
        signal.raise_signal(stopped.signum)  # the previous handler (or the default: exit) runs now
        raise MnemeError(ERR_IO, "the edit was interrupted by a signal; nothing changed") from None
    finally:
        _restore(previous)


def _restore(previous: dict[signal.Signals, Any]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def _remove(folder: str) -> None:
    """Remove the temp folder and whatever the editor left in it; ERR_IO naming it when that fails (an
    immutable file), so the memory's text is never left behind unsaid."""
    try:
        shutil.rmtree(folder)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise MnemeError(
            ERR_IO,
            f"cannot remove the edit's temp folder {printable(folder)} ({printable(str(exc))}); remove it by hand",
        ) from None
