"""The MCP tests' workspaces: a folder outside git with a source file; the database is ``mneme.db`` in it.

Most tests get a fresh workspace and start their own server. The tests that only read an empty store or are
refused share one server (``empty_server``, one per test process) on one empty workspace, and leave it empty."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from isolation import UNSET, isolated_variables
from mcp.client.session import ClientSession
from mcp_session import REPO, in_own_task, make_workspace, server


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder outside git (the current folder); the database is ``mneme.db`` in it."""
    work = make_workspace(tmp_path / "work")
    monkeypatch.chdir(work)
    monkeypatch.setenv("MNEME_REPO", REPO)
    return work


@pytest.fixture(scope="session")
def empty_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_workspace(tmp_path_factory.mktemp("empty-workspace"))


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def empty_server(
    fixed_actor: str, empty_folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ClientSession]:
    """One live ``mneme mcp`` on ``empty_folder``, shared by the tests that leave its store empty. It starts
    before any test's own environment, so it gets the same isolation (a temp home, the fixed clock) of its own."""
    machine = {name: value for name, value in os.environ.items() if name not in UNSET}
    home = tmp_path_factory.mktemp("home")
    env = {**machine, **isolated_variables(home), "MNEME_ACTOR": fixed_actor, "MNEME_REPO": REPO}
    async with in_own_task(server(empty_folder, env)) as session:
        yield session


@pytest.fixture
def empty_workspace(empty_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``empty_folder`` as the current folder, for the in-process CLI beside ``empty_server``."""
    monkeypatch.chdir(empty_folder)
    monkeypatch.setenv("MNEME_REPO", REPO)
    return empty_folder
