"""``p`` pins and unpins, in the Memories list and in a memory's detail, through Store.pin / Store.unpin."""

from __future__ import annotations

from pathlib import Path

from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.memory_screen import PIN_MARK, MemoryScreen
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.paged_table import PagedTable

from .conftest import SIZE, plain


def _store(path: str = "pin.db") -> tuple[Store, int, int]:
    store = Store(Path(path))
    first = store.save("Freeze MNEME_NOW in snapshot tests", kind="decision", topic="Testing", repo_id="atlas-api")
    second = store.save(
        "WAL mode and a busy timeout for every writer", kind="decision", topic="SQLite", repo_id="atlas-api"
    )
    return store, first.id, second.id


def _toasts(app) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_p_in_the_memories_list_pins_and_unpins_the_highlighted_memory(make_app):
    store, first, second = _store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "2")
        await settle(pilot)
        table = app.screen.query_one("#memories-table", PagedTable)
        assert table.cursor_key == str(second)  # newest first
        await pilot.press("p")
        await settle(pilot)
        assert store.pinned_ids() == {second}
        assert table.get_row(str(second))[0].plain == f"{PIN_MARK} {second}"
        assert table.get_row(str(first))[0].plain == str(first)
        assert any(m.startswith(f"Pinned #{second} ") for m in _toasts(app))
        assert store.history(second)[-1].reason == "pinned"
        await pilot.press("p")
        await settle(pilot)
        assert store.pinned_ids() == set()
        assert table.get_row(str(second))[0].plain == str(second)
        assert any(m.startswith(f"Unpinned #{second}:") for m in _toasts(app))


async def test_p_in_the_detail_view_pins_and_shows_it_in_the_title(make_app):
    store, first, _ = _store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = MemoryScreen(first)
        await app.push_screen(screen)
        await settle(pilot)
        title = screen.query_one("#memory-title")
        assert plain(title) == f"Memory #{first}"
        await pilot.press("p")
        await settle(pilot)
        assert store.pinned_ids() == {first} and screen.pinned
        assert plain(title) == f"Memory #{first}  {PIN_MARK} pinned"
        await pilot.press("p")
        await settle(pilot)
        assert store.pinned_ids() == set() and plain(title) == f"Memory #{first}"
        assert [entry.reason for entry in store.history(first)][-2:] == ["pinned", "unpinned"]
