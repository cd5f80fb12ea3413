"""Suite-wide isolation: no test sees the user's home, real database, config or clock."""

from __future__ import annotations

import pytest

pytest_plugins = ["pg_fixtures"]  # the PostgreSQL server fixtures (tests/pg_fixtures.py)

FIXED_NOW = "2026-11-29T12:00:00"
FIXED_ACTOR = "tester@ci"


@pytest.fixture(autouse=True, scope="session")
def fixed_actor():
    """Who every test's changes are recorded as made by, from the session's start (session-scoped fixtures such
    as the TUI's demo template write audit rows too), so output and snapshots never show this machine's user."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MNEME_ACTOR", FIXED_ACTOR)
        yield FIXED_ACTOR


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point HOME, XDG folders and MNEME_* at a fresh temp folder and fix the clock."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(home / name.lower()))
    monkeypatch.setenv("MNEME_NOW", FIXED_NOW)
    monkeypatch.setenv("MNEME_DB", str(home / "mneme.db"))
    monkeypatch.setenv("MNEME_CONFIG", str(home / "config.toml"))
    for name in ("MNEME_REPO", "MNEME_PROFILE", "MNEME_LEGION_DIR"):
        monkeypatch.delenv(name, raising=False)
    yield home


@pytest.fixture
def store(tmp_path):
    """A fresh Store in a temp file."""
    from mneme_tui.memory.store import Store

    return Store(tmp_path / "mneme.db")
