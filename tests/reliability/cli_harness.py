"""Running ``mneme`` in-process the way a terminal does, and the invariants every bad input must keep.

``run`` swaps in byte-backed streams with Python's real error handlers (stdout strict, stderr
``backslashreplace``, stdin ``surrogateescape`` as in the C locale), so a lone surrogate that would break a
real terminal breaks here too; pytest's capsys uses strict stderr, which a real process never has.
Any exception other than SystemExit escapes ``run``: that is the traceback the tests forbid.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mneme_tui.cli import main


@dataclass
class Run:
    code: int
    out: str
    err: str

    def assert_one_error_line(self, code: int = 1, *needles: str) -> str:
        """Exit ``code`` and exactly one line on stderr containing every needle (no traceback)."""
        assert self.code == code, (self.code, self.out, self.err)
        assert self.err.endswith("\n") and self.err.count("\n") == 1, repr(self.err)
        assert "Traceback" not in self.err
        for needle in needles:
            assert needle in self.err, (needle, self.err)
        return self.err


def _stream(data: bytes = b"", errors: str = "strict") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors, newline="")


def run(argv: Sequence[str], stdin: bytes = b"") -> Run:
    """``mneme ARGV`` in this process; returns exit status, stdout and stderr."""
    out, err = _stream(), _stream(errors="backslashreplace")
    saved_stdin = sys.stdin
    sys.stdin = _stream(stdin, errors="surrogateescape")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse: usage errors (2), --help / --version (0)
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin = saved_stdin
    return Run(code, _text(out), _text(err))


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8", errors="backslashreplace")  # type: ignore[attr-defined]


def run_process(argv: Sequence[str | bytes], stdin: bytes = b"", env: dict[str, str] | None = None) -> Run:
    """``mneme ARGV`` as a real process (for argv bytes that are not UTF-8)."""
    command: list[str | bytes] = [sys.executable, "-m", "mneme_tui", *argv]
    done = subprocess.run(command, input=stdin, capture_output=True, timeout=120, env=env)
    return Run(
        done.returncode,
        done.stdout.decode("utf-8", "backslashreplace"),
        done.stderr.decode("utf-8", "backslashreplace"),
    )


def database_state() -> str:
    """A hash of every row of every table of the store at ``$MNEME_DB`` (memories in all statuses and repos,
    their audit, provenance, Legion records, ...), read with sqlite3 itself, read-only: stricter than what
    ``mneme list`` prints, and without running a command per look."""
    path = Path(os.environ["MNEME_DB"])
    assert path.is_file(), f"no database at {path}"
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        digest = hashlib.sha256()
        tables = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
        for (table,) in tables:
            digest.update(table.encode())
            for row in connection.execute(f'SELECT * FROM "{table}" ORDER BY rowid'):
                digest.update(repr(row).encode())
    finally:
        connection.close()
    return digest.hexdigest()


def folder_state(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_no_traceback(result: Run, before: str, after: str) -> None:
    """The fuzz invariant: a known exit status; on error one stderr line and an unchanged database."""
    assert result.code in (0, 1, 2), result
    assert "Traceback" not in result.err, result.err
    if result.code != 0:
        assert result.err.count("\n") == 1 and result.err.endswith("\n"), repr(result.err)
        assert before == after, "the database changed although the command failed"
