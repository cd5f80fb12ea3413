"""Fixtures for the Mneme core tests (issue 2): a working folder outside git, a CLI runner, the db path.

The independent reference implementation lives in ``mneme_reference.py`` next to this file.
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # so tests can `import mneme_reference` in any import mode


@pytest.fixture(autouse=True)
def neutral_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run every core test from a folder outside any git work tree, with a wide, colourless terminal."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    for name in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setenv("MNEME_PROFILE", "spec")  # the TC-MEM tests check the spec's formula, not the default profile
    return cwd


# ------------------------------------------------------------------------------------------ CLI
@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)

    def assert_one_error_line(self, code: int = 1, *needles: str) -> str:
        """Exit ``code``, nothing on stdout, exactly one line on stderr containing every needle."""
        assert self.code == code, (self.code, self.out, self.err)
        assert self.out == "", self.out
        assert self.err.endswith("\n") and self.err.count("\n") == 1, repr(self.err)
        assert "Traceback" not in self.err
        assert "\x1b" not in self.err
        for needle in needles:
            assert needle in self.err, (needle, self.err)
        return self.err


@pytest.fixture
def store(db_target):
    """A fresh Store on each backend (``db_target``)."""
    from mneme_tui.memory.store import Store

    opened = Store(db_target)
    yield opened
    opened.close()


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, db_backend: str, request):
    """Run ``mneme ARGS...`` in-process; returns exit code, stdout and stderr. On PostgreSQL ``MNEME_DB`` is
    the test's database URL; on SQLite it stays the suite-wide file (``db_path``)."""
    from mneme_tui.cli import main

    if db_backend == "postgresql":
        monkeypatch.setenv("MNEME_DB", str(request.getfixturevalue("db_target")))

    def run(*argv: str, stdin: str | bytes | None = None) -> CliResult:
        capsys.readouterr()
        if stdin is not None:
            raw = stdin if isinstance(stdin, bytes) else stdin.encode()
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse usage errors and --help
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def db_path(isolated_environment: Path, db_backend: str) -> Path:
    """The database file the CLI uses by default (``MNEME_DB`` from the suite-wide fixture). A test that
    looks at the SQLite file itself runs on SQLite only."""
    if db_backend != "sqlite":
        pytest.skip("looks at the SQLite database file")
    return isolated_environment / "mneme.db"
