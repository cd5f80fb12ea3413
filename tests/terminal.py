"""Running ``mneme`` with its output on a pseudo-terminal, as a person sees it (tests import this module)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path


def on_terminal(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """``python -m mneme_tui ARGV`` with stdout and stderr on a pseudo-terminal: everything it wrote, decoded.
    The process must exit 0."""
    main, child = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "mneme_tui", *argv], stdout=child, stderr=child, cwd=cwd, env=env)
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    assert process.wait() == 0, out
    return out.decode()
