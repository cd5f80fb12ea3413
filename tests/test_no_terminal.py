"""`mneme` with no command and no terminal (an agent's shell tool) prints the help and exits 2, never the TUI."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("argv", [[], ["--demo"]])
def test_no_command_without_a_terminal_prints_the_usage_and_exits_2(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mneme_tui", *argv], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("usage: mneme")
    assert "recall" in done.stderr and "handshake" in done.stderr
    assert done.stderr.rstrip().endswith("give a command (see above)")


def test_textual_is_not_imported_without_a_terminal() -> None:
    code = "import sys; from mneme_tui.cli import main; status = main([]); print(status, 'textual' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["2", "False"]
