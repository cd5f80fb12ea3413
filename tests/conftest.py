"""Suite-wide isolation: no test sees the user's home, real database, config or clock."""

from __future__ import annotations

import inspector_install
import pytest
from isolation import isolate

pytest_plugins = ["pg_fixtures"]  # the PostgreSQL server fixtures (tests/pg_fixtures.py)

#: Tests that take seconds by nature (they start processes or servers, drive the app, or build large data):
#: marked ``slow`` so ``pytest -m "not slow"`` is the quick inner loop. A path prefix covers a folder, a file,
#: or one test function (every parametrization of it). Every ``tui`` and ``postgres`` test is slow as well,
#: except those in ``QUICK``. docs/quality.md ("The test suite") says how the split was measured.
SLOW: tuple[str, ...] = (
    "tests/reliability/",  # real processes beside each other, kills at write points, fuzzing real processes
    "tests/mcp/",  # a real `mneme mcp` per test
    "tests/test_bench.py",
    "tests/test_piped_output.py",
    "tests/test_hook_recipe.py",
    "tests/test_cold_imports.py",
    "tests/test_import_hygiene.py",  # a fresh interpreter per package
    "tests/test_evaluation.py::test_main_prints_a_table",
    "tests/test_json_shapes.py",  # every command as a process
    "tests/legion/test_sync_large.py",
    "tests/legion/test_legion_speed.py",
    "tests/legion/test_legion_cells.py::test_any_record_survives_render_and_parse",
    "tests/legion/test_skill_importance_branch.py",  # git repositories
    "tests/learning/test_learning_process.py",
    "tests/core/test_core_cli.py::test_subprocess_round_trip_and_errors",
    "tests/core/test_audit_actor.py",
    "tests/core/test_core_index_refresh.py::test_cli_reports_a_damaged_snapshot_in_one_line",
    "tests/core/test_core_concurrency.py",
    "tests/core/test_persistence_open.py::test_many_processes",
    "tests/core/test_core_index_refresh.py::test_something_other_than_a_file_at_the_snapshot_path_is_replaced",
    "tests/secrets_and_purge/test_mcp.py",  # a real `mneme mcp`
    "tests/test_budget.py::test_a_budgeted_handshake_never_exceeds_its_budget",
    "tests/curation/test_fast_path.py",  # generated stores of a few thousand memories
)
#: Quick tests from the slow folders, kept in the fast subset so that it still drives the app with Pilot (a
#: snapshot and keys) and a real ``mneme mcp`` once each.
QUICK: tuple[str, ...] = (
    "tests/tui/test_compat.py",
    "tests/tui/test_snapshots.py::test_recall_empty_store",
    "tests/tui/test_focus.py::test_escape_only_leaves_the_query",
    "tests/mcp/test_protocol_surface.py::test_every_tool_has_a_title_annotations_and_plain_descriptions",
    "tests/mcp/test_mcp_review.py::test_the_tools_enums_and_annotations_are_curations",
)
#: The files of the longest single tests (10-40 s each on 2 idle cores), run first: with ``-n 2`` a long test
#: left for the end stretches the wall time while the other worker has nothing left to do.
FIRST: tuple[str, ...] = (
    "tests/test_bench.py",
    "tests/pg/test_pg_backend.py",
    "tests/pg/test_pg_bench.py",
    "tests/mcp/test_mcp_faults.py",
    "tests/legion/test_sync_large.py",
    "tests/core/test_core_concurrency.py",
)
FIXED_ACTOR = "tester@ci"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start the MCP Inspector's npm install in the background (in the controller, before any worker)."""
    inspector_install.start(session.config)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop and delete the background install, if this process started one."""
    inspector_install.finish()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: takes seconds (processes, servers, the app, large data); `-m 'not slow'` is the quick subset"
    )
    config.addinivalue_line("markers", "tui: drives the Textual app with Pilot (tests/tui)")
    config.addinivalue_line("markers", "postgres: runs against a real PostgreSQL server (skipped without one)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``tui``, ``postgres`` and ``slow`` tests by where they live and what they use, so new tests in the
    same places are marked without anyone remembering to; then move the files in ``FIRST`` to the front (in
    their order, each file's tests kept together and in order)."""
    for item in items:
        nodeid = _nodeid(item)
        callspec = getattr(item, "callspec", None)
        postgres = (
            nodeid.startswith("tests/pg/")
            or "pg_server" in getattr(item, "fixturenames", ())
            or (callspec is not None and callspec.params.get("db_backend") == "postgresql")
        )
        if nodeid.startswith("tests/tui/"):
            item.add_marker(pytest.mark.tui)
        if postgres:
            item.add_marker(pytest.mark.postgres)
        if (postgres or nodeid.startswith(("tests/tui/", *SLOW))) and not nodeid.startswith(QUICK):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: next((n for n, path in enumerate(FIRST) if _nodeid(item).startswith(path)), len(FIRST)))


def _nodeid(item: pytest.Item) -> str:
    """The item's node id from the repository's root (``tests/...``), however pytest was started."""
    return item.nodeid if item.nodeid.startswith("tests/") else f"tests/{item.nodeid}"


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
    isolate(monkeypatch, home)
    yield home


@pytest.fixture
def store(tmp_path):
    """A fresh Store in a temp file."""
    from mneme_tui.memory.store import Store

    return Store(tmp_path / "mneme.db")
