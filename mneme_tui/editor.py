"""Edit text in the user's editor: ``$VISUAL``, else ``$EDITOR``, else ``vi`` (no Textual here).

The TUI's ``e`` runs it while the app is suspended; the text goes through a private temp file (mode 0600 in
a 0700 folder) that is removed afterwards.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

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
    the one trailing newline editors add. A failing, missing or file-removing editor raises MnemeError."""
    command = editor_command()
    shown = printable(shlex.join(command))
    with tempfile.TemporaryDirectory(prefix="mneme-edit-") as folder:  # created 0700
        path = Path(folder) / name
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text + "\n")
        try:
            finished = subprocess.run([*command, str(path)], check=False)
        except OSError as exc:
            raise MnemeError(ERR_IO, f"cannot run the editor {shown}: {exc.strerror or exc}; nothing changed") from None
        if finished.returncode != 0:
            raise MnemeError(ERR_IO, f"the editor {shown} exited with status {finished.returncode}; nothing changed")
        try:
            with open(path, encoding="utf-8", newline="") as handle:
                edited = handle.read(MAX_CONTENT_CHARS + 2)
        except FileNotFoundError:
            raise MnemeError(ERR_IO, f"the editor {shown} removed the file; nothing changed") from None
        except UnicodeDecodeError:
            raise MnemeError(ERR_VALIDATION_FAILED, "the edited text is not UTF-8; nothing changed") from None
    return strip_one_newline(edited)
