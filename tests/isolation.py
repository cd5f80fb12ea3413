"""What every test runs in: a temp HOME, temp XDG folders and database, and the fixed clock (conftest.py applies
it to each test; a server shared by several tests is started with it)."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXED_NOW = "2026-11-29T12:00:00"
UNSET = ("MNEME_REPO", "MNEME_PROFILE", "MNEME_LEGION_DIR")
"""The variables no test inherits from the machine."""


def isolated_variables(home: Path) -> dict[str, str]:
    """HOME, the XDG folders and MNEME_DB / MNEME_CONFIG pointed into ``home``, and the fixed clock."""
    variables = {"HOME": str(home), "MNEME_NOW": FIXED_NOW}
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        variables[name] = str(home / name.lower())
    variables["MNEME_DB"] = str(home / "mneme.db")
    variables["MNEME_CONFIG"] = str(home / "config.toml")
    return variables


def isolate(patch: pytest.MonkeyPatch, home: Path) -> None:
    """Apply :func:`isolated_variables` of ``home`` and unset ``UNSET`` through ``patch``."""
    for name, value in isolated_variables(home).items():
        patch.setenv(name, value)
    for name in UNSET:
        patch.delenv(name, raising=False)
