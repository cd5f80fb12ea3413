"""Memories behaviour: dismiss/undo in the database, marks, filters, paging, detail, literal toasts."""

from __future__ import annotations

import threading
from pathlib import Path

from provenances import SYNCED

from mneme_tui.memory.store import Store
from mneme_tui.tui.memory_list import PAGE_SIZE
from mneme_tui.tui.screens.memories import MemoriesScreen
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.paged_table import PagedTable

from .conftest import SIZE, plain


def _screen_text(app) -> str:
    """The text of the table area as painted (from the SVG screenshot)."""
    import html
    import re

    svg = app.export_screenshot()
    return html.unescape(" ".join(re.findall(r">([^<>]+)</text>", svg))).replace("\xa0", " ")


def _table(app) -> PagedTable:
    return app.screen.query_one("#memories-table", PagedTable)


async def _open(pilot) -> MemoriesScreen:
    await pilot.press("escape", "2")
    await settle(pilot)
    assert isinstance(pilot.app.screen, MemoriesScreen)
    return pilot.app.screen


def _many(count: int, path: str = "many.db", other_every: int = 0) -> Store:
    store = Store(Path(path))
    store.mint_many(
        [
            dict(
                content=f"memory number {i}",
                provenance=SYNCED,
                kind="reflection",
                topic=f"T{i % 7}",
                repo_id="other" if other_every and i % other_every == 0 else "atlas-api",
            )
            for i in range(count)
        ]
    )
    return store


async def test_dismiss_then_undo_changes_the_database_and_back(demo, make_app, monkeypatch):
    store = Store(demo.db_path)
    app = make_app(store, legion_dir=demo.legion_dir)
    written = threading.Event()
    original = Store.dismiss

    def held_dismiss(self, ids, reason="dismissed"):
        written.wait(5)  # hold the write so the optimistic in-place change can be seen
        return original(self, ids, reason=reason)

    monkeypatch.setattr(Store, "dismiss", held_dismiss)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        key = _table(app).cursor_key
        memory_id = int(key)
        assert store.get(memory_id).status == "active"
        shown_before = _screen_text(app).count("tombstoned")  # the filter chip says it once
        await pilot.press("d")
        assert _table(app).get_row(key)[1].plain == "tombstoned"  # shown at once, in place
        await pilot.pause()
        assert _screen_text(app).count("tombstoned") == shown_before + 1  # and painted (only that row redrawn)
        assert store.get(memory_id).status == "active"
        written.set()
        await settle(pilot)
        assert store.get(memory_id).status == "tombstoned"
        assert key not in _table(app).row_keys  # the active list no longer holds it
        await pilot.press("u")
        await settle(pilot)
        assert store.get(memory_id).status == "active"
        assert _table(app).cursor_key == key  # back, with the cursor on it
        history = store.history(memory_id)
        assert [(h.from_status, h.to_status) for h in history] == [("active", "tombstoned"), ("tombstoned", "active")]


async def test_a_failed_undo_keeps_the_undo_and_a_later_one_restores(make_app, monkeypatch):
    from mneme_tui.errors import ERR_DATABASE, MnemeError

    store = _many(5)
    app = make_app(store)
    original = Store.undo
    fails = iter([True, False])  # the first undo fails (the database is busy), the second goes through

    def undo_once_failing(self, change, reason="undo"):
        if next(fails):
            raise MnemeError(ERR_DATABASE, "database is locked")
        return original(self, change, reason=reason)

    monkeypatch.setattr(Store, "undo", undo_once_failing)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        key = _table(app).cursor_key
        await pilot.press("d")
        await settle(pilot)
        assert store.get(int(key)).status == "tombstoned" and len(screen.undo_stack) == 1
        await pilot.press("u")
        await settle(pilot)
        assert any("database is locked" in n.message for n in app._notifications)
        assert store.get(int(key)).status == "tombstoned" and len(screen.undo_stack) == 1  # rolled back
        await pilot.press("u")
        await settle(pilot)
        assert store.get(int(key)).status == "active" and screen.undo_stack == []


async def test_marked_memories_are_dismissed_together(make_app):
    store = _many(10)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        first, second = _table(app).row_keys[:2]
        await pilot.press("space", "space")
        assert screen.marked == {int(first), int(second)}
        await pilot.press("d")
        await settle(pilot)
        assert {store.get(int(first)).status, store.get(int(second)).status} == {"tombstoned"}
        assert screen.marked == set()
        await pilot.press("u")
        await settle(pilot)
        assert {store.get(int(first)).status, store.get(int(second)).status} == {"active"}


async def test_filters_change_the_rows(demo, make_app):
    store = Store(demo.db_path)
    app = make_app(store, legion_dir=demo.legion_dir)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        scoped = store.status_counts(repo_id="atlas-api", include_global=True)
        assert screen.page.total == scoped["active"]
        await pilot.press("f")  # superseded
        await settle(pilot)
        assert screen.filter.status == "superseded"
        rows = [_table(app).get_row(k) for k in _table(app).row_keys]
        assert rows and {r[1].plain for r in rows} == {"superseded"}
        await pilot.press("r")  # the repo picker: this repo (+global), then all repos
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert screen.page.total == store.status_counts()["superseded"]
        screen.set_kind("pitfall")
        await settle(pilot)
        assert {_table(app).get_row(k)[2].plain for k in _table(app).row_keys} <= {"pitfall"}
        assert screen.page.total == store.count(status="superseded", kind="pitfall")
        await pilot.press("o")  # oldest first
        await settle(pilot)
        assert screen.filter.order == "oldest"


async def test_paging_through_a_long_list(make_app):
    store = _many(PAGE_SIZE * 2 + 50)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        total = screen.page.total
        assert len(_table(app).row_keys) == PAGE_SIZE
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.page.filter.offset == PAGE_SIZE
        await pilot.press("end")
        await settle(pilot)
        await pilot.press("down")  # past the last row: the next page
        await settle(pilot)
        assert screen.page.filter.offset == PAGE_SIZE * 2
        assert len(_table(app).row_keys) == total - PAGE_SIZE * 2
        await pilot.press("up")  # past the first row: the previous page, cursor on its last row
        await settle(pilot)
        assert screen.page.filter.offset == PAGE_SIZE
        assert _table(app).cursor_row == PAGE_SIZE - 1


async def test_enter_opens_the_detail_with_history(make_app):
    store = _many(3)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await pilot.press("enter")
        await settle(pilot)
        from mneme_tui.tui.screens.memory_screen import MemoryScreen

        assert isinstance(app.screen, MemoryScreen)
        body = plain(app.screen.query_one(".detail-body"))
        assert "history" in body and "no status changes recorded" in body
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MemoriesScreen)


async def test_toast_and_cells_show_markup_literally(make_app):
    store = Store(Path("markup.db"))
    store.mint(
        "x [@click=app.quit] y", provenance=SYNCED, kind="pitfall", topic="[/b] [@click=app.quit]", repo_id="atlas-api"
    )
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        row = _table(app).get_row(_table(app).row_keys[0])
        shown = row[-1].plain  # literal, cut with … at the text column's edge
        assert "[/b] [@click=app.quit] · x [@click=app.quit] y".startswith(shown.removesuffix("…"))
        assert shown.startswith("[/b] [@click=app.quit] · x [@click")
        await pilot.press("d")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("[/b] [@click=app.quit]" in m for m in messages)
        assert all(not n.markup for n in app._notifications)
        assert app.is_running


async def test_empty_store_says_so(empty_app):
    async with empty_app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        assert screen.page.total == 0
        await pilot.press("d", "u", "enter", "space")
        await settle(pilot)
        assert empty_app.is_running


# ------------------------------------------------------------------------------- readability (issue 13)
def _readable_store(path: str = "readable.db") -> Store:
    store = Store(Path(path))
    store.mint(
        "Busy timeout must be set before the first write",
        kind="pitfall",
        topic="SQLite",
        repo_id="atlas-api",
        provenance=SYNCED,
    )
    store.mint(
        "Global rule: never swallow exceptions", kind="axiom", topic="Errors", repo_id="global", provenance=SYNCED
    )
    store.mint(
        "Invoices are rendered with WeasyPrint", kind="fact", topic="Billing", repo_id="billing-svc", provenance=SYNCED
    )
    popular = store.mint(
        "Popular note about caching", kind="pattern", topic="Cache", repo_id="atlas-api", provenance=SYNCED
    )
    for task in ("T-1", "T-2", "T-3"):
        store.reinforce(task, [popular.id])
    return store


def _ids(app) -> list[int]:
    return [int(key) for key in _table(app).row_keys]


async def test_detail_pane_follows_the_highlighted_row(make_app):
    from mneme_tui.tui.widgets.memory_detail import MemoryDetail

    store = _readable_store()
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot)
        detail = screen.query_one("#memories-detail", MemoryDetail)
        first = _ids(app)[0]
        assert detail.shown_id == first
        await pilot.press("down")
        await settle(pilot)
        assert detail.shown_id == _ids(app)[1]
        assert store.get(_ids(app)[1]).content in plain(detail.query_one(".detail-body"))


async def test_text_filter_and_go_to_id(make_app):
    from mneme_tui.tui.screens.memory_screen import MemoryScreen

    store = _readable_store()
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot)
        await pilot.press("slash")
        await settle(pilot)
        await pilot.press(*"BUSY", "enter")
        await settle(pilot)
        assert screen.filter.text == "BUSY"
        assert [store.get(i).topic for i in _ids(app)] == ["SQLite"]  # any case, content or topic
        await pilot.press("slash", "ctrl+u", "enter")  # empty clears
        await settle(pilot)
        assert screen.filter.text == "" and len(_ids(app)) == 3
        await pilot.press("slash", "x", "escape")  # esc cancels: the filter stays as it was
        await settle(pilot)
        assert screen.filter.text == "" and not screen.query_one("#memories-find").display
        assert _table(app).has_focus
        await pilot.press("g", "3", "enter")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and app.screen.memory_id == 3
        app.pop_screen()
        await settle(pilot)
        await pilot.press("g", "9", "9", "enter")
        await settle(pilot)
        assert app.screen is screen  # an unknown id says so and stays


async def test_repo_filter_picks_one_repo_or_global(make_app):
    store = _readable_store()
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot)
        assert {store.get(i).repo_id for i in _ids(app)} == {"atlas-api", "global"}
        screen.action_pick_repo()
        await settle(pilot)
        labels = [str(option.prompt) for option in app.screen.query_one("#choice-list").options]
        assert labels == ["atlas-api +global", "all repos", "atlas-api", "billing-svc", "global"]
        await pilot.press("down", "down", "down", "down", "enter")  # global only
        await settle(pilot)
        assert screen.filter.repo == "global"
        assert {store.get(i).repo_id for i in _ids(app)} == {"global"}
        assert "repo  global " in plain(screen.query_one("#memories-filters")) + " "
        screen.action_pick_repo()
        await settle(pilot)
        await pilot.press("up", "enter")  # billing-svc on its own
        await settle(pilot)
        assert {store.get(i).repo_id for i in _ids(app)} == {"billing-svc"}


async def test_header_click_sorts_and_access_sort_shows_the_access_column(make_app):
    store = _readable_store()
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot)
        table = _table(app)
        await pilot.click("#memories-table", offset=(4, 0))  # the id header
        await settle(pilot)
        assert screen.filter.order == "id" and _ids(app) == sorted(_ids(app))
        screen.action_cycle_order()  # id → kind → topic → repo → access
        for _ in range(3):
            screen.action_cycle_order()
        await settle(pilot)
        assert screen.filter.order == "access"
        labels = [str(column.label) for column in table.columns.values()]
        assert "access" in labels and "age" not in labels
        top = table.get_row(table.row_keys[0])
        assert store.get(_ids(app)[0]).access_count == 3 and top[labels.index("access")].plain == "3"
        screen.action_cycle_order()  # back to newest: the age column returns
        await settle(pilot)
        assert "age" in [str(column.label) for column in table.columns.values()]


async def test_kind_picker_shows_counts(make_app):
    store = _readable_store()
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot)
        screen.action_pick_kind()
        await settle(pilot)
        labels = [str(option.prompt) for option in app.screen.query_one("#choice-list").options]
        assert labels[0] == "any kind  3"
        assert "pitfall  1" in labels and "axiom  1" in labels and "fact  0" in labels


async def test_imported_rows_show_their_legion_ids(make_app, tmp_path):
    from mneme_tui.legion.markdown.schemas import OUTCOMES
    from mneme_tui.legion.mirror.sync import sync

    legion = tmp_path / "memory"
    legion.mkdir()
    rows = "".join(
        f"| O-00{n} | 2026-01-1{n} | main | 1 | 01-0{n} | agent-a | e2e | failure | 2 | e2e | same summary |\n"
        for n in range(1, 4)
    )
    (legion / "OUTCOMES.md").write_text(OUTCOMES.template + rows, encoding="utf-8")
    store = Store(Path("legion-ids.db"))
    sync(store, legion, "atlas-api")
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot)
        texts = [_table(app).get_row(key)[-1].plain for key in _table(app).row_keys]
        assert sorted(text.split()[0] for text in texts) == ["O-001", "O-002", "O-003"]
