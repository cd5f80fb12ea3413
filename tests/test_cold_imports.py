"""A command imports only what it uses: measured in a fresh interpreter, as an agent's shell call starts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = (
    "numpy",
    "numpy.ma",
    "peewee",
    "rich",
    "textual",
    "mcp",
    "mneme_tui.memory.learning",
    "mneme_tui.memory.store",
    "mneme_tui.legion.skill.api",
    "mneme_tui.legion.markdown.legion_records",
    "snowballstemmer",
    "subprocess",
    "detect_secrets",
)


def loaded_by(argv: list[str], cwd: Path) -> set[str]:
    """The heavy modules in ``sys.modules`` after ``mneme ARGV`` ran in a fresh interpreter."""
    code = (
        "import contextlib, io, json, sys\n"
        "from mneme_tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main({argv!r})\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_version_loads_no_numpy_store_or_ui(tmp_path: Path) -> None:
    assert loaded_by(["--version"], tmp_path) == set()


def test_help_loads_no_numpy_store_legion_or_ui(tmp_path: Path) -> None:
    assert loaded_by(["--help"], tmp_path) == set()


def test_legion_help_loads_the_legion_options_only_then(tmp_path: Path) -> None:
    """The ``legion`` group's options need Legion modules: they are added when ``legion`` is used."""
    loaded = loaded_by(["legion", "recall", "--help"], tmp_path)
    assert "mneme_tui.legion.markdown.legion_records" in loaded
    assert not loaded & {"numpy", "peewee", "textual", "mcp"}, loaded


def test_recall_loads_no_tui_sdk_legion_or_learning(tmp_path: Path) -> None:
    """``mneme recall`` needs numpy and peewee; its plain table still uses rich (cli/output.py's tables),
    its ``--json`` does not."""
    db = str(tmp_path / "mneme.db")
    subprocess.run(
        [sys.executable, "-m", "mneme_tui", "save", "hello world", "--db", db],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    never = {
        "textual",
        "mcp",
        "numpy.ma",
        "mneme_tui.memory.learning",
        "mneme_tui.legion.skill.api",
        "mneme_tui.legion.markdown.legion_records",
        "snowballstemmer",
        "subprocess",
        "detect_secrets",
    }  # secrets: writes only
    loaded = loaded_by(["recall", "hello", "--db", db], tmp_path)
    assert not loaded & never, loaded
    loaded = loaded_by(["recall", "hello", "--db", db, "--json"], tmp_path)
    assert not loaded & (never | {"rich"}), loaded
