"""The TUI over a PostgreSQL store: the header shows the URL without its password, and another client's
writes appear through the same revision check as on SQLite."""

from __future__ import annotations

from pathlib import Path

from provenances import SYNCED

from mneme_tui.memory.store import Store
from mneme_tui.tui.app import MnemeApp
from mneme_tui.tui.context import AppContext
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.paged_table import PagedTable

SIZE = (160, 40)


async def test_tui_on_postgresql_hides_the_password_and_sees_other_clients(pg_database, tmp_path: Path):
    url = f"postgresql://{pg_database.user}:hunter2@/{pg_database.name}?host={pg_database.host}&port={pg_database.port}"
    store = Store(url)
    store.mint_many(
        [dict(content=f"memory {i}", provenance=SYNCED, kind="reflection", repo_id="atlas-api") for i in range(5)]
    )
    app = MnemeApp(
        AppContext(store=store, repo="atlas-api", legion_dir=None, claude_home=tmp_path / "home"),
        poll_interval=0.2,
        cursor_blink=False,
    )
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("escape", "2")
            await settle(pilot)
            assert "hunter2" not in str(app.ctx.db_path) and str(app.ctx.db_path).startswith("postgresql://")
            table = app.screen.query_one("#memories-table", PagedTable)
            other = Store(url)
            try:
                other.mint("written elsewhere", provenance=SYNCED, kind="pitfall", repo_id="atlas-api")
            finally:
                other.close()
            for _ in range(40):
                await pilot.pause(0.1)
                if table.row_count and "written elsewhere" in table.get_row(table.row_keys[0])[-1].plain:
                    break
            assert "written elsewhere" in table.get_row(table.row_keys[0])[-1].plain
    finally:
        store.close()
