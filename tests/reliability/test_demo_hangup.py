"""``mneme --demo`` removes its temp folder when the terminal goes away (SIGHUP), not only on ``q``."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this platform")
def test_demo_folder_is_removed_on_hangup(tmp_path: Path) -> None:
    temp_root = tmp_path / "tmp"
    temp_root.mkdir()
    controller, terminal = pty.openpty()
    env = {**os.environ, "TMPDIR": str(temp_root), "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    demo = subprocess.Popen(
        [sys.executable, "-m", "mneme_tui", "--demo"],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=env,
        start_new_session=True,
    )
    os.close(terminal)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list(temp_root.glob("mneme-demo-*/mneme.db")):
            try:
                os.read(controller, 65536)  # keep the terminal drained, as a terminal would
            except OSError:
                break
        folders = list(temp_root.glob("mneme-demo-*"))
        assert folders, "the demo never created its workspace"
        demo.send_signal(signal.SIGHUP)
        demo.wait(timeout=60)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        os.close(controller)
    assert demo.returncode in (-signal.SIGHUP, 128 + signal.SIGHUP)
    assert not list(temp_root.glob("mneme-demo-*")), "the demo's temp folder was left behind"
