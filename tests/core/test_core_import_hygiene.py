"""memory/ and legion/ never import Textual or Rich, and building the CLI parser never imports Textual
(checked in a fresh interpreter, like harlequin's test_import_hygiene)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

PROBE = """
import importlib, json, pkgutil, sys
for name in MODULES:
    importlib.import_module(name)
if WALK_LEGION:
    import mneme_tui.legion as legion
    for info in pkgutil.iter_modules(legion.__path__, "mneme_tui.legion."):
        importlib.import_module(info.name)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "rich"))
print(json.dumps(loaded))
"""


def _loaded_after(modules: list[str], walk_legion: bool = False) -> list[str]:
    code = f"MODULES = {modules!r}\nWALK_LEGION = {walk_legion!r}\n{PROBE}"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_memory_core_imports_neither_textual_nor_rich():
    modules = [
        "mneme_tui.config", "mneme_tui.errors", "mneme_tui.display",
        "mneme_tui.memory.kinds", "mneme_tui.memory.vectors", "mneme_tui.memory.persistence.database",
        "mneme_tui.memory.index", "mneme_tui.memory.ranking", "mneme_tui.memory.records",
        "mneme_tui.memory.store",
    ]
    assert _loaded_after(modules) == []


@pytest.mark.skipif(importlib.util.find_spec("mneme_tui.legion") is None, reason="no legion package yet")
def test_legion_imports_neither_textual_nor_rich():
    assert _loaded_after(["mneme_tui.memory.store", "mneme_tui.memory.ranking", "mneme_tui.legion"],
                         walk_legion=True) == []


def test_cli_parser_does_not_import_textual():
    code = "from mneme_tui.cli import build_parser\nbuild_parser()\n"
    result = subprocess.run(
        [sys.executable, "-c", code + "import sys, json\n"
         "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'textual')))"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
