"""SVG snapshots of every screen and its main states (fixed clock, size, data; workers awaited).

Update only after reading the report: ``pytest tests/tui --snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path

from provenances import SYNCED

from mneme_tui.memory.store import Store
from mneme_tui.tui.screenshots import (
    briefing_scene,
    help_scene,
    memory_actions_scene,
    memory_detail_scene,
    new_memory_scene,
    press,
    prune_confirm_scene,
    prune_scene,
    settle,
)

from .conftest import SIZE, type_text

MARKUP_CONTENT = "Refactored app.py [Store.save, _flush] then [/bold] and [@click=app.quit]quit[/] \x1b[31mred"


def test_recall_empty_store(snap_compare, empty_app):
    """An empty store: the calm hint, no results."""
    assert snap_compare(empty_app, terminal_size=SIZE, run_before=settle)


def test_recall_results(snap_compare, demo_app):
    """A query typed: ranked results and the score breakdown of the top one."""

    async def run_before(pilot):
        await type_text(pilot, "sqlite lock")
        await settle(pilot)

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_recall_filtered(snap_compare, demo_app):
    """Kind filter (pitfall), all repos and limit 20."""

    async def run_before(pilot):
        await type_text(pilot, "worker thread")
        await settle(pilot)
        pilot.app.screen.set_kind("pitfall")
        await press(pilot, "ctrl+g", "ctrl+l", "ctrl+l")

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_recall_kind_picker_open(snap_compare, demo_app):
    """The kind filter modal."""

    async def run_before(pilot):
        await settle(pilot)
        await press(pilot, "ctrl+t")

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_recall_small_terminal(snap_compare, demo_app):
    """80×24 still shows query, results and detail."""

    async def run_before(pilot):
        await type_text(pilot, "timezones")
        await settle(pilot)

    assert snap_compare(demo_app, terminal_size=(80, 24), run_before=run_before)


def test_recall_wide_terminal(snap_compare, demo_app):
    """Wide terminals put the detail beside the results."""

    async def run_before(pilot):
        await type_text(pilot, "migration lock")
        await settle(pilot)

    assert snap_compare(demo_app, terminal_size=(140, 36), run_before=run_before)


def test_markup_is_literal(snap_compare, make_app):
    """Memory text that looks like markup or holds escapes is shown exactly as stored."""
    store = Store(Path("markup.db"))
    store.mint(MARKUP_CONTENT, provenance=SYNCED, kind="pitfall", topic="[bold]Topic[/bold]", repo_id="atlas-api")
    app = make_app(store)

    async def run_before(pilot):
        await type_text(pilot, "refactored")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_memories_list(snap_compare, demo_app):
    async def run_before(pilot):
        await press(pilot, "escape", "2")

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_memories_filtered(snap_compare, demo_app):
    """Tombstoned memories of every repo, sorted by kind."""

    async def run_before(pilot):
        await press(pilot, "escape", "2")
        await press(pilot, "f", "f", "r", "o", "o", "o")

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_memories_marked_and_dismissed(snap_compare, demo_app):
    """Two rows marked, a third dismissed (toast with undo hint)."""

    async def run_before(pilot):
        await press(pilot, "escape", "2")
        await press(pilot, "d")
        await press(pilot, "space", "space")

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_memory_detail_with_history(snap_compare, demo_app):
    """enter opens the detail with the audit history (dismissed, then undone)."""
    assert snap_compare(demo_app, terminal_size=SIZE, run_before=memory_detail_scene)


def test_memory_detail_actions(snap_compare, demo_app):
    """A superseded memory's detail: the action keys in the footer and the link to the newer version."""
    assert snap_compare(demo_app, terminal_size=SIZE, run_before=memory_actions_scene)


def test_new_memory_form(snap_compare, demo_app):
    """``n``: the new-memory form, filled in, focus on the kind picker."""
    assert snap_compare(demo_app, terminal_size=SIZE, run_before=new_memory_scene)


def test_memories_empty(snap_compare, empty_app):
    async def run_before(pilot):
        await press(pilot, "escape", "2")

    assert snap_compare(empty_app, terminal_size=SIZE, run_before=run_before)


def test_briefing(snap_compare, demo_app):
    assert snap_compare(demo_app, terminal_size=SIZE, run_before=briefing_scene)


def test_briefing_wide(snap_compare, demo_app):
    """Two columns of panels when the terminal is wide."""
    assert snap_compare(demo_app, terminal_size=(140, 48), run_before=briefing_scene)


def test_briefing_without_legion(snap_compare, make_app, demo):
    """No Legion files: one calm line and the store's own numbers."""
    app = make_app(Store(demo.db_path), legion_dir=Path("nowhere/.planning/memory"))
    assert snap_compare(app, terminal_size=SIZE, run_before=briefing_scene)


def test_prune_preview(snap_compare, demo_app):
    assert snap_compare(demo_app, terminal_size=SIZE, run_before=prune_scene)


def test_prune_confirm_modal(snap_compare, demo_app):
    assert snap_compare(demo_app, terminal_size=SIZE, run_before=prune_confirm_scene)


def test_prune_applied(snap_compare, demo_app):
    async def run_before(pilot):
        await prune_confirm_scene(pilot)
        await press(pilot, "y")
        pilot.app.clear_notifications()
        await settle(pilot)

    assert snap_compare(demo_app, terminal_size=SIZE, run_before=run_before)


def test_prune_without_legion(snap_compare, empty_app):
    assert snap_compare(empty_app, terminal_size=SIZE, run_before=prune_scene)


def test_help_screen(snap_compare, demo_app):
    assert snap_compare(demo_app, terminal_size=SIZE, run_before=help_scene)
