"""App-wide behaviour: help, command palette, sync, watching the database, launch and the demo."""

from __future__ import annotations

import argparse
from pathlib import Path

from provenances import SYNCED

from mneme_tui.legion.mirror.sync import SyncReport
from mneme_tui.memory.store import Store
from mneme_tui.tui import app as app_module
from mneme_tui.tui.app import MODE_SCREENS, MnemeApp
from mneme_tui.tui.screens.base import screen_bindings
from mneme_tui.tui.screens.dialogs import ConfirmScreen
from mneme_tui.tui.screens.help import HelpScreen
from mneme_tui.tui.screens.memories import MemoriesScreen
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.paged_table import PagedTable

from .conftest import SIZE, plain, wait_until


async def test_help_lists_every_key(demo_app):
    async with demo_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(demo_app.screen, HelpScreen)
        table = demo_app.screen.query_one("#help-body").content
        keys = " ".join(str(cell) for cell in table.columns[0]._cells)
        texts = " ".join(str(cell) for cell in table.columns[1]._cells)
        for mode in MODE_SCREENS:
            assert mode.MODE_KEY in keys and mode.MODE_TITLE in texts
            for binding in screen_bindings(mode):
                assert (binding.tooltip or binding.description) in texts
        for binding in screen_bindings(MnemeApp):
            assert (binding.tooltip or binding.description) in texts
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(demo_app.screen, HelpScreen)


async def test_command_palette_lists_every_action(demo_app):
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "2")
        await settle(pilot)
        titles = [command.title for command in demo_app.get_system_commands(demo_app.screen)]
        for mode in MODE_SCREENS:
            assert f"Go to {mode.MODE_TITLE}" in titles
        assert "Legion sync" in titles and "Help: every key" in titles
        for binding in screen_bindings(MemoriesScreen):
            assert f"Memories: {binding.description}" in titles
        command = next(c for c in demo_app.get_system_commands(demo_app.screen) if c.title == "Memories: Status")
        await command.callback()
        await settle(pilot)
        assert demo_app.screen.filter.status == "superseded"


async def test_mode_keys_and_mouse_switch_screens(demo_app):
    async with demo_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert list(MnemeApp.MODES) == ["recall", "memories", "briefing", "prune", "graduation", "review"]
        for mode in MODE_SCREENS:
            await pilot.press("escape") if mode.MODE_NAME == "recall" else None
            await pilot.press(mode.MODE_KEY)
            await settle(pilot)
            assert demo_app.current_mode == mode.MODE_NAME
        await pilot.click("ModeBar", offset=(2, 0))  # "1 Recall"
        await settle(pilot)
        assert demo_app.current_mode == "recall"


async def test_sync_key_runs_the_sync_in_a_worker(demo_app, monkeypatch):
    seen = []

    def recording_sync(store, legion, repo):
        seen.append((legion.memory_dir, repo))
        return SyncReport(repo, str(legion.memory_dir), synced=True, message="nothing changed")

    monkeypatch.setattr(app_module, "legion_sync", recording_sync)
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "s")
        await settle(pilot)
        assert isinstance(demo_app.screen, ConfirmScreen)  # the demo's first sync would write markdown files
        body = plain(demo_app.screen.query_one("#confirm-body"))
        assert "PATTERNS.md: import " in body and "export " in body and seen == []
        await pilot.press("y")
        await settle(pilot)
        assert seen == [(demo_app.ctx.legion_dir, "atlas-api")]
        assert any(n.message == "Legion sync: nothing changed." for n in demo_app._notifications)
        await pilot.press("s")  # asked once a session
        await settle(pilot)
        assert not isinstance(demo_app.screen, ConfirmScreen) and len(seen) == 2


async def test_a_declined_sync_writes_nothing(demo_app, monkeypatch):
    seen = []
    monkeypatch.setattr(
        app_module,
        "legion_sync",
        lambda store, legion, repo: (
            seen.append(repo) or SyncReport(repo, str(legion.memory_dir), synced=True, message="ok")
        ),
    )
    before = {path.name: path.read_bytes() for path in demo_app.ctx.legion_dir.glob("*.md")}
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "s")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert seen == [] and any("Sync cancelled" in n.message for n in demo_app._notifications)
    assert {path.name: path.read_bytes() for path in demo_app.ctx.legion_dir.glob("*.md")} == before


async def test_confirm_sync_false_turns_the_question_off(demo_app, monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(
        app_module,
        "legion_sync",
        lambda store, legion, repo: (
            seen.append(repo) or SyncReport(repo, str(legion.memory_dir), synced=True, message="ok")
        ),
    )
    config_file = tmp_path / "quiet.toml"
    config_file.write_text("confirm_sync = false\n")
    monkeypatch.setenv("MNEME_CONFIG", str(config_file))
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "s")
        await settle(pilot)
        assert seen == ["atlas-api"]


async def test_writes_by_another_process_refresh_the_list_and_keep_the_cursor(make_app):
    store = Store(Path("watched.db"))
    store.mint_many(
        [dict(content=f"memory {i}", provenance=SYNCED, kind="reflection", repo_id="atlas-api") for i in range(30)]
    )
    app = make_app(store, poll_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "2")
        await settle(pilot)
        table = app.screen.query_one("#memories-table", PagedTable)
        await pilot.press("down", "down", "down")
        key = table.cursor_key
        other = Store(Path("watched.db"))  # another connection, as another process would have
        try:
            other.mint("written elsewhere", provenance=SYNCED, kind="pitfall", repo_id="atlas-api")
            other.dismiss([1])
        finally:
            other.close()
        await wait_until(
            pilot, lambda: table.row_count and "written elsewhere" in table.get_row(table.row_keys[0])[-1].plain
        )
        assert "written elsewhere" in table.get_row(table.row_keys[0])[-1].plain
        assert "1" not in table.row_keys
        assert table.cursor_key == key


async def test_sync_key_mirrors_the_legion_files_into_the_store(demo_app):
    store = demo_app.ctx.store
    before = store.count(repo_id="atlas-api")
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "s")
        await settle(pilot)
        await pilot.press("y")  # the first sync that writes markdown files asks
        for _ in range(50):
            await settle(pilot)
            if not demo_app.sync_running:
                break
        messages = [n.message for n in demo_app._notifications]
        assert any(m.startswith("Legion sync:") for m in messages), messages
    assert store.count(repo_id="atlas-api") > before


def test_launch_demo_never_touches_the_users_database(monkeypatch, tmp_path):
    from mneme_tui.tui import launch as launch_module

    seen = {}

    def fake_run(self):
        seen["db"] = self.ctx.db_path
        seen["legion"] = self.ctx.legion_dir
        seen["demo"] = self.ctx.demo
        seen["count"] = self.ctx.store.count()

    monkeypatch.setattr(MnemeApp, "run", fake_run)
    user_db = Path(__import__("os").environ["MNEME_DB"])
    assert launch_module.launch(argparse.Namespace(db=None, demo=True)) == 0
    assert seen["demo"] and seen["count"] > 100
    assert not user_db.exists()
    assert not seen["db"].exists()  # the temporary workspace is gone afterwards
    assert seen["legion"].name == "memory"


def test_launch_opens_the_given_database(monkeypatch, tmp_path):
    from mneme_tui.tui import launch as launch_module

    seen = {}
    monkeypatch.setattr(MnemeApp, "run", lambda self: seen.setdefault("ctx", self.ctx))
    monkeypatch.setenv("MNEME_LEGION_DIR", str(tmp_path / "legion"))
    launch_module.launch(argparse.Namespace(db=str(tmp_path / "chosen.db"), demo=False))
    assert seen["ctx"].db_path == tmp_path / "chosen.db"
    assert seen["ctx"].legion_dir == tmp_path / "legion"
