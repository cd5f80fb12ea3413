"""Fixtures for tests against a real PostgreSQL (registered by ``pytest_plugins`` in tests/conftest.py).

``pg_server``: one throwaway server per test session, which under xdist means one per worker process (each
in its own temp folder and socket folder, so workers never collide). It skips with a one-line reason where
the server binaries are missing. ``pg_database``: a new empty database on it for each test, dropped after.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from pg_server import PgDatabase, PgServer, find_bin_dir, start, unavailable_reason

_database_numbers = itertools.count(1)


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
