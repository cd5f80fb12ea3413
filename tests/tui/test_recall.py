"""Recall behaviour: search-as-you-type, stale searches, toggles, literal rendering."""

from __future__ import annotations

import threading
from pathlib import Path

from provenances import SYNCED

from mneme_tui.memory.records import ScoredMemory
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.recall import RecallScreen
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.memory_detail import MemoryDetail
from mneme_tui.tui.widgets.results_table import ResultsTable

from .conftest import SIZE, plain, type_text


def _table(app) -> ResultsTable:
    return app.screen.query_one("#results", ResultsTable)


def _plain_rows(app) -> list[list[str]]:
    table = _table(app)
    return [[cell.plain for cell in table.get_row(key)] for key in table.row_keys]


def _seed(path: str = "recall.db") -> Store:
    store = Store(Path(path))
    store.mint(
        "SQLite busy timeout: set PRAGMA busy_timeout before the first write",
        provenance=SYNCED,
        kind="pitfall",
        topic="SQLite",
        repo_id="atlas-api",
    )
    store.mint(
        "Textual workers run in threads; check staleness before showing results",
        provenance=SYNCED,
        kind="pattern",
        topic="TUI",
        repo_id="atlas-api",
    )
    store.mint(
        "Invoices are rendered with WeasyPrint", provenance=SYNCED, kind="fact", topic="Billing", repo_id="billing-svc"
    )
    store.mint("Never swallow exceptions", provenance=SYNCED, kind="axiom", topic="Errors", repo_id="global")
    return store


async def test_typing_a_query_shows_the_expected_top_result(make_app):
    app = make_app(_seed())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "busy timeout")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RecallScreen)
        top = screen._items[_table(app).row_keys[0]]
        assert isinstance(top, ScoredMemory)
        assert top.memory.content.startswith("SQLite busy timeout")
        assert _plain_rows(app)[0][1] == "pitfall"
        detail = app.screen.query_one(MemoryDetail)
        text = plain(detail.query_one(".detail-body"))
        assert "repo match ×1.25" in str(text)
        assert "(profile bm25)" in str(text)  # the default profile, named in the pane
        for factor in ("relevance", "bm25", "matched", "decay", "reinforcement", "locality"):
            assert factor in str(text)


async def test_empty_query_lists_the_newest_memories_in_scope(make_app):
    app = make_app(_seed())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        repos = {row[2] for row in _plain_rows(app)}
        assert repos == {"atlas-api", "global"}  # billing-svc is another repo
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert "billing-svc" in {row[2] for row in _plain_rows(app)}


async def test_a_stale_search_is_never_shown_after_a_newer_one(make_app, monkeypatch):
    store = _seed()
    app = make_app(store)
    release = threading.Event()
    original = Store.recall
    shown: list[str] = []

    def slow_recall(self, query, **options):
        if query == "busy":
            release.wait(5)  # the first search is still running when the second is typed
        return original(self, query, **options)

    monkeypatch.setattr(Store, "recall", slow_recall)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        show = screen._show_result

        def spy(result):
            shown.append(result.request.query)
            show(result)

        monkeypatch.setattr(screen, "_show_result", spy)
        await type_text(pilot, "busy")
        await pilot.pause(0.1)
        for _ in range(4):
            await pilot.press("backspace")
        await type_text(pilot, "workers threads")
        await pilot.pause(0.2)
        release.set()
        await settle(pilot)
        assert "busy" not in [q for q in screen.last_result.request.query.split()]
        assert screen.last_result.request.query == "workers threads"
        top = screen._items[_table(app).row_keys[0]]
        assert top.memory.topic == "TUI"
        assert "busy" not in shown


async def test_toggles_change_the_request(make_app):
    app = make_app(_seed())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert (screen.request.cross_repo, screen.request.limit) == (False, 10)
        await pilot.press("ctrl+g", "ctrl+l")
        await settle(pilot)
        assert (screen.request.cross_repo, screen.request.limit) == (True, 20)
        await pilot.press("ctrl+t")
        await settle(pilot)
        await pilot.press("down", "down", "enter")  # any kind, reflection, axiom
        await settle(pilot)
        assert screen.request.kind == "axiom"
        assert {row[1] for row in _plain_rows(app)} == {"axiom"}
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert screen.request.profile in __import__("mneme_tui.memory.ranking", fromlist=["PROFILES"]).PROFILES


async def test_markup_looking_content_renders_literally(make_app):
    content = "Refactored app.py [Store.save, _flush] [/bold] [@click=app.quit]quit[/] \x1b[31mred"
    store = Store(Path("markup.db"))
    store.mint(content, provenance=SYNCED, kind="pitfall", topic="[b]x[/b]", repo_id="atlas-api")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "refactored")
        await settle(pilot)
        row = _plain_rows(app)[0]
        assert (
            row[-1] == "Refactored app.py [Store.save, _flush] [/bold] [@click=app.quit]quit[/] \\x1b[31mred · [b]x[/b]"
        )
        detail = plain(app.screen.query_one(MemoryDetail).query_one(".detail-body"))
        assert "[Store.save, _flush] [/bold] [@click=app.quit]quit[/] \\x1b[31mred" in detail
        await pilot.click("#results", offset=(60, 1))  # clicking the cell must not run the embedded action
        await settle(pilot)
        assert app.is_running
