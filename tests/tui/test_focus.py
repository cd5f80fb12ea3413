"""Recall's focus rules: esc only leaves the query; with the results focused, bound keys act and every
other printable key (or a paste, or a burst of keys) goes into the query; coming back restores the place.
Also ``d`` on a result (dismiss, toast, gone from the list, ``u`` brings it back)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from mneme_tui.memory import kinds as K
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.memories import MemoriesScreen
from mneme_tui.tui.screens.recall import RecallScreen
from mneme_tui.tui.screenshots import press, settle
from mneme_tui.tui.widgets.results_table import ResultsTable

from .conftest import SIZE, type_text


def _store() -> Store:
    store = Store(Path("focus.db"))
    for number in range(6):
        store.save(
            f"worker thread note {number}: open one connection per thread",
            kind="fact",
            topic=f"Threads {number}",
            repo_id="atlas-api",
        )
    return store


def _query(app) -> Input:
    return app.screen.query_one("#query", Input)


def _results(app) -> ResultsTable:
    return app.screen.query_one("#results", ResultsTable)


async def _on_results(pilot, query: str = "") -> None:
    """Type ``query`` (if any), then ``esc``: the results have focus."""
    await settle(pilot)
    await type_text(pilot, query)
    await press(pilot, "escape")
    assert _results(pilot.app).has_focus


async def test_escape_only_leaves_the_query(make_app):
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _query(app).has_focus
        await press(pilot, "escape")
        assert _results(app).has_focus
        await press(pilot, "escape", "escape")
        assert _results(app).has_focus


async def test_a_letter_typed_on_the_results_goes_into_the_query(make_app):
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await _on_results(pilot, "worker")
        await type_text(pilot, " thr")
        await settle(pilot)
        query = _query(app)
        assert query.has_focus
        assert query.value == "worker thr" and query.cursor_position == len(query.value)
        assert app.screen.last_result.request.query == "worker thr"


async def test_slash_keeps_the_query_with_the_cursor_at_its_end(make_app):
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "worker")
        await press(pilot, "home", "escape", "slash")
        query = _query(app)
        assert query.has_focus and query.value == "worker" and query.cursor_position == 6
        await type_text(pilot, "s")  # appends: nothing was selected
        assert query.value == "workers"


async def test_a_burst_of_keys_on_the_results_is_never_lost(make_app):
    """Keys queued before any of them is handled (a fast typist, a terminal without bracketed paste):
    the first one moves the focus at once, so the rest, digits and ``s`` included, type too."""
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await _on_results(pilot)
        for char in "thread 1s":
            key = "space" if char == " " else char
            app.post_message(events.Key(key, char))
        await settle(pilot)
        assert isinstance(app.screen, RecallScreen)
        assert _query(app).value == "thread 1s"


async def test_a_paste_on_the_results_goes_into_the_query(make_app):
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await _on_results(pilot, "worker ")
        _results(app).post_message(events.Paste("connection\nsecond line"))
        await settle(pilot)
        assert _query(app).has_focus and _query(app).value == "worker connection"


async def test_bound_keys_act_from_the_results_and_never_reach_the_query(make_app):
    """Today's bug: ``1, esc, esc, 2, s`` typed ``2s`` into the query. Now ``1`` types (the query had
    focus), esc moves to the results and stays there, ``2`` switches mode and ``s`` syncs."""
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "1", "escape", "escape", "2")
        assert isinstance(app.screen, MemoriesScreen)
        await press(pilot, "s")
        assert any("nothing to sync" in n.message for n in app._notifications)
        await press(pilot, "1")
        assert _query(app).value == "1"


async def test_returning_to_recall_restores_query_row_and_focus(make_app):
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await _on_results(pilot, "worker thread")
        await press(pilot, "down", "down")
        key = _results(app).cursor_key
        await press(pilot, "2")
        await press(pilot, "3")
        await press(pilot, "1")
        assert _query(app).value == "worker thread"
        assert _results(app).cursor_key == key and _results(app).cursor_row == 2
        assert _results(app).has_focus


async def test_d_dismisses_the_highlighted_result_and_u_brings_it_back(make_app):
    store = _store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _on_results(pilot, "worker thread")
        await press(pilot, "down")
        key = _results(app).cursor_key
        assert key is not None
        await press(pilot, "d")
        memory_id = int(key)
        assert store.get(memory_id).status == K.TOMBSTONED
        assert key not in _results(app).row_keys
        assert _results(app).cursor_row == 1  # the cursor stays in place, on the next result
        assert f"Dismissed #{memory_id} (Threads {memory_id - 1}) — press u to undo." in [
            n.message for n in app._notifications
        ]
        await press(pilot, "u")
        assert store.get(memory_id).status == K.ACTIVE
        assert key in _results(app).row_keys
        assert f"Restored #{memory_id}" in [n.message for n in app._notifications]


@pytest.mark.parametrize("key", ["d", "n", "u", "s", "1", "q"])
async def test_bound_keys_typed_in_the_query_are_text(make_app, key):
    """In the query, every printable key types: no dismissal, form, undo, sync, mode switch or quit."""
    store = _store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, key)
        await settle(pilot)
        assert isinstance(app.screen, RecallScreen) and _query(app).value == key
        assert store.count(status=K.TOMBSTONED) == 0 and not app._notifications
