"""Review and pin over a PostgreSQL store (a real throwaway server): the proposals, accept, undo and pin
behave as on SQLite, and the password never shows."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from provenances import SAVED

from mneme_tui.memory.store import Store
from mneme_tui.tui.app import MnemeApp
from mneme_tui.tui.context import AppContext
from mneme_tui.tui.screens.review import ReviewScreen
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.paged_table import PagedTable

from .conftest import SIZE

TEXT = "Freeze MNEME_NOW in every snapshot test so ages never change."


async def test_review_and_pin_on_postgresql(pg_database, tmp_path: Path):
    url = f"postgresql://{pg_database.user}:hunter2@/{pg_database.name}?host={pg_database.host}&port={pg_database.port}"
    store = Store(url)
    ids = [
        store.mint(
            TEXT,
            provenance=SAVED,
            kind="decision",
            topic="Testing",
            repo_id="atlas-api",
            created_at=datetime(2026, 2, day),
        ).id
        for day in (1, 2)
    ]
    app = MnemeApp(
        AppContext(store=store, repo="atlas-api", legion_dir=None, claude_home=tmp_path / "home"),
        poll_interval=None,
        cursor_blink=False,
    )
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("escape", "6")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and [p.kind for p in screen.shown.proposals] == ["duplicate"]
            await pilot.press("a")
            await settle(pilot)
            assert [store.get(i).status for i in ids] == ["superseded", "active"]
            await pilot.press("u")
            await settle(pilot)
            assert [store.get(i).status for i in ids] == ["active", "active"]
            await pilot.press("2")
            await settle(pilot)
            table = app.screen.query_one("#memories-table", PagedTable)
            await pilot.press("p")
            await settle(pilot)
            assert store.pinned_ids() == {int(table.cursor_key or 0)}
            assert all("hunter2" not in n.message for n in app._notifications)
    finally:
        store.close()
