"""Only the UI loads Textual and Rich: every other package imports without them, in a fresh interpreter
(like harlequin's test_import_hygiene). Building the CLI's parser does not load Textual either."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import pytest

import mneme_tui

UI = {"tui", "cli", "__main__"}  # the Textual app, and the command line that launches it
NON_UI = sorted(f"mneme_tui.{info.name}" for info in pkgutil.iter_modules(mneme_tui.__path__) if info.name not in UI)

PROBE = """
import importlib, json, pkgutil, sys
top = importlib.import_module(NAME)
for info in pkgutil.walk_packages(getattr(top, "__path__", []), NAME + "."):
    if not info.name.endswith(".__main__"):  # a script: importing it would run it
        importlib.import_module(info.name)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))))
"""


def _ui_modules_loaded_by(code: str) -> list[str]:
    """The textual/rich modules loaded after running ``code`` in a new interpreter."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_package_but_the_ui_is_covered() -> None:
    assert {"mneme_tui.memory", "mneme_tui.legion", "mneme_tui.config", "mneme_tui.demo"} <= set(NON_UI)
    assert not {"mneme_tui.tui", "mneme_tui.cli"} & set(NON_UI)


@pytest.mark.parametrize("name", NON_UI)
def test_package_and_all_its_modules_import_without_textual_or_rich(name: str) -> None:
    assert _ui_modules_loaded_by(f"NAME = {name!r}\n{PROBE}") == []


def test_cli_parser_does_not_import_textual() -> None:
    code = (
        "import json, sys\nfrom mneme_tui.cli import build_parser\nbuild_parser()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'textual')))"
    )
    assert _ui_modules_loaded_by(code) == []
