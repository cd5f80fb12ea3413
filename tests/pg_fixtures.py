"""Fixtures for tests against a real PostgreSQL (registered by ``pytest_plugins`` in tests/conftest.py).

``pg_server``: one throwaway server per test session, which under xdist means one per worker process (each
in its own temp folder and socket folder, so workers never collide). It skips with a one-line reason where
the server binaries are missing. ``pg_database``: a new empty database on it for each test, dropped after.

``db_target``: where a test's store lives, once per backend (``sqlite``: a file in the test's temp folder;
``postgresql``: a new database copied from a migrated template, so a test pays for ``CREATE DATABASE …
TEMPLATE`` and not for the migrations). ``new_db_target(name)`` makes more of them on the same backend.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pg_server import PgDatabase, PgServer, find_bin_dir, start, unavailable_reason

from mneme_tui.config import DbTarget

_database_numbers = itertools.count(1)
TEMPLATE = "mneme_template"
BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A running PostgreSQL server for this session (worker); stopped and deleted at the end."""
    bin_dir = find_bin_dir()
    reason = unavailable_reason(bin_dir)
    if bin_dir is None or reason:
        pytest.skip(reason)
    server = start(bin_dir)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_database(pg_server: PgServer) -> Iterator[PgDatabase]:
    """An empty database of its own for one test, on the session's server."""
    name = f"test_{next(_database_numbers)}"
    database = pg_server.create_database(name)
    try:
        yield database
    finally:
        pg_server.drop_database(name)


@pytest.fixture(scope="session")
def pg_template(pg_server: PgServer) -> str:
    """A database migrated to the current schema once per server, copied for each test."""
    from mneme_tui.memory.store import Store

    store = Store(pg_server.create_database(TEMPLATE).url)
    store.close()
    return TEMPLATE


@pytest.fixture(params=BACKENDS)
def db_backend(request: pytest.FixtureRequest) -> str:
    """The backend a test runs on: ``sqlite`` or ``postgresql``."""
    return request.param


@pytest.fixture
def new_db_target(
    request: pytest.FixtureRequest, db_backend: str, tmp_path: Path
) -> Iterator[Callable[[str], DbTarget]]:
    """A factory of fresh store targets on the test's backend: ``make(name)`` → a path or a URL."""
    if db_backend == "sqlite":
        yield lambda name: tmp_path / f"{name}.db"
        return
    server: PgServer = request.getfixturevalue("pg_server")  # skips without server binaries
    template: str = request.getfixturevalue("pg_template")
    made: list[str] = []

    def make(name: str) -> DbTarget:
        database = server.create_database(f"{name}_{next(_database_numbers)}", template)
        made.append(database.name)
        return database.url

    yield make
    for name in made:
        server.drop_database(name)


@pytest.fixture
def db_target(new_db_target: Callable[[str], DbTarget]) -> DbTarget:
    """Where this test's store lives, on each backend in turn."""
    return new_db_target("mneme")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: the test looks at SQLite itself (the file, PRAGMAs, sqlite3)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the PostgreSQL run of tests marked ``sqlite_only``."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if (
            callspec is not None
            and callspec.params.get("db_backend") == "postgresql"
            and item.get_closest_marker("sqlite_only")
        ):
            item.add_marker(pytest.mark.skip(reason="SQLite only: looks at the SQLite database itself"))
