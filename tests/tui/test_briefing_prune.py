"""Briefing and Prune behaviour: Legion numbers, the store fallback, prune apply and a failed apply."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.briefing import BriefingScreen
from mneme_tui.tui.screens.prune import PruneScreen
from mneme_tui.tui.screenshots import press, prune_confirm_scene, settle

from .conftest import SIZE, plain, wait_until


def _rows(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("| O-"))


async def test_briefing_shows_the_legion_briefing(demo_app, demo):
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "3")
        await settle(pilot)
        screen = demo_app.screen
        assert isinstance(screen, BriefingScreen)
        data = screen.data
        expected = LegionMemory(demo.legion_dir, claude_home=demo.claude_home)
        assert data.legion_present and data.legion is not None
        assert data.legion.briefing.total_records == expected.briefing().total_records
        assert [s.agent_id for s in data.legion.agent_scores] == [s.agent_id for s in expected.agent_scores()]
        summary = plain(screen.query_one("#briefing-summary"))
        assert f"{data.legion.files['OUTCOMES.md']} outcomes" in summary
        suggestion = plain(screen.query_one("#briefing-suggestion"))
        assert "prune" in suggestion  # the demo is over its threshold of 50
        claude = plain(screen.query_one("#body-claude"))
        assert "small, reviewable PRs" in claude


async def test_briefing_without_legion_shows_the_store_numbers(make_app, demo):
    store = Store(demo.db_path)
    app = make_app(store, legion_dir=Path("missing/.planning/memory"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "3")
        await settle(pilot)
        screen = app.screen
        assert not screen.data.legion_present
        summary = plain(screen.query_one("#briefing-summary"))
        assert summary.startswith("No Legion memory for this project")
        assert not screen.query_one("#panel-recent").display
        assert "reflection" in plain(screen.query_one("#body-store"))


async def test_prune_apply_moves_rows_to_the_archive(demo_app, demo):
    outcomes = demo.legion_dir / "OUTCOMES.md"
    archive = demo.legion_dir / "ARCHIVE.md"
    before = _rows(outcomes)
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "4")
        await settle(pilot)
        screen = demo_app.screen
        assert isinstance(screen, PruneScreen)
        candidates = len(screen.data.plan.candidates)
        assert candidates > 0
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("n")  # cancelled: nothing changes
        await settle(pilot)
        assert _rows(outcomes) == before and not archive.exists()
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert _rows(outcomes) == before - candidates
        assert _rows(archive) == candidates
        result = screen.last_result
        assert result.ok and result.archived == candidates and result.remaining == before - candidates
        panel = plain(screen.query_one("#prune-result"))
        assert f"{candidates} archived" in panel and f"{before - candidates} remaining" in panel
        assert screen.data.plan.candidates == []  # the screen refreshed


async def test_a_failed_prune_shows_the_error_and_restores_the_files(demo_app, demo, monkeypatch):
    import mneme_tui.legion.skill.prune as prune_module

    outcomes = demo.legion_dir / "OUTCOMES.md"
    original = outcomes.read_bytes()
    real_write = prune_module.replace_if_unchanged
    calls = []

    def failing_write(path, data, state):
        calls.append(path.name)
        if path.name == "OUTCOMES.md":
            raise OSError(28, "No space left on device")
        return real_write(path, data, state)

    monkeypatch.setattr(prune_module, "replace_if_unchanged", failing_write)
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "4")
        await settle(pilot)
        screen = demo_app.screen
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert "OUTCOMES.md" in calls
        assert outcomes.read_bytes() == original
        assert not (demo.legion_dir / ".prune-journal.json").exists()
        assert not screen.last_result.ok
        panel = plain(screen.query_one("#prune-result"))
        assert panel.startswith("Prune failed") and "as they were before" in panel
        assert len(screen.data.plan.candidates) > 0  # the restored state is shown again


async def test_prune_without_legion_is_calm(empty_app):
    async with empty_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "4")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert "nothing to prune" in plain(empty_app.screen.query_one("#prune-settings"))
        assert empty_app.is_running


@pytest.mark.parametrize("mode", ["3", "4"])
async def test_legion_file_changes_refresh_the_screen(make_app, demo, mode):
    app = make_app(Store(demo.db_path), legion_dir=demo.legion_dir, claude_home=demo.claude_home, poll_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", mode)
        await settle(pilot)
        screen = app.screen
        first = screen.data
        legion = LegionMemory(demo.legion_dir, claude_home=demo.claude_home)
        legion.record_outcome(
            agent="engineering-senior-developer",
            outcome="success",
            summary="new row",
            task_type="backend",
            branch="main",
        )
        await wait_until(pilot, lambda: screen.data is not first)
        assert screen.data is not first


async def test_the_briefing_screen_shows_what_legion_briefing_json_reports(demo_app, demo, monkeypatch, capsys):
    import json

    from mneme_tui.cli import main

    monkeypatch.setenv("HOME", str(demo.claude_home.resolve()))  # where the CLI finds Claude Code's MEMORY.md
    assert main(["legion", "briefing", "--dir", str(demo.legion_dir), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    weeks = printed["weekly_success"]
    assert len(weeks) == 12 and sum(week["outcomes"] for week in weeks) > 0
    assert set(printed["preference_signals"]) == {"positive", "corrective", "negative"}
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "3")
        await settle(pilot)
        screen = demo_app.screen
        assert json.loads(json.dumps(screen.data.legion.to_json())) == printed
        trend = plain(screen.query_one("#body-trend"))
        preferences = plain(screen.query_one("#body-preferences"))
    latest = [week for week in weeks if week["success_rate"] is not None][-1]
    assert f"latest {latest['success_rate']:.0%} ({latest['outcomes']} outcome" in trend
    for signal, count in printed["preference_signals"].items():
        assert f"{signal} {count}" in preferences
    for agent in printed["agent_signals"]:
        assert f"{agent['positive']:>4} {agent['corrective']:>5} {agent['negative']:>4}" in preferences
    for note in printed["preference_notes"]:  # spec §13: "Previous preference signals suggest…"
        assert " ".join(note.split()) in " ".join(preferences.split())


async def test_the_briefing_screen_shows_preference_notes(demo_app):
    """Skill §13: the "Previous preference signals suggest…" note is shown with the preference signals."""
    from dataclasses import replace

    note = (
        "Previous preference signals suggest 'Split the test file' for [review] (2 corrective review-verdict signals)"
    )
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "3")
        await settle(pilot)
        screen = demo_app.screen
        shown = screen._preferences_text(replace(screen.data.legion, preference_notes=[note])).plain
    assert shown.endswith("\n" + note)  # literal text: the brackets stay


async def test_a_prune_into_a_folder_names_the_path_and_what_to_do(demo_app, demo):
    (demo.legion_dir / "ARCHIVE.md").mkdir()
    outcomes = demo.legion_dir / "OUTCOMES.md"
    original = outcomes.read_bytes()
    async with demo_app.run_test(size=(120, 36)) as pilot:
        await prune_confirm_scene(pilot)
        await press(pilot, "y")
        screen = demo_app.screen
        panel = plain(screen.query_one("#prune-result"))
        assert outcomes.read_bytes() == original
        assert "ARCHIVE.md is a directory" in panel and "move it aside and run prune again" in panel, panel


async def test_prune_confirmation_says_it_is_final(demo_app):
    from mneme_tui.tui.screens.dialogs import ConfirmScreen

    async with demo_app.run_test(size=(120, 36)) as pilot:
        await prune_confirm_scene(pilot)
        dialog = demo_app.screen
        assert isinstance(dialog, ConfirmScreen)
        shown = " ".join(plain(widget) for widget in dialog.query("Static"))
        assert "cannot undo a prune" in shown and "ARCHIVE.md to OUTCOMES.md" in shown


async def test_long_plan_messages_wrap_at_120_columns(demo_app):
    async with demo_app.run_test(size=(120, 36)) as pilot:
        await prune_confirm_scene(pilot)
        await press(pilot, "y")
        title = demo_app.screen.query(".table-title").first()
        assert title.size.height >= 2 or len(plain(title)) <= title.size.width


async def test_recent_outcomes_are_newest_first_and_open_in_a_detail_view(demo_app, demo):
    from mneme_tui.tui.screens.briefing import BriefingScreen, RecordScreen
    from mneme_tui.tui.widgets.paged_table import PagedTable

    async with demo_app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape", "3")
        await settle(pilot)
        screen = demo_app.screen
        assert isinstance(screen, BriefingScreen)
        table = screen.query_one("#recent-table", PagedTable)
        dates = [table.get_row(key)[1].plain for key in table.row_keys]
        assert dates and dates == sorted(dates, reverse=True)
        assert "newest first" in plain(screen.query_one("#panel-recent .panel-title"))
        summaries = [table.get_row(key)[4].plain for key in table.row_keys]
        widths = {column.key.value: column.get_render_width(table) for column in table.columns.values()}
        assert max(len(s) for s in summaries) <= widths["summary"]  # no summary cut at 120 columns
        table.focus()
        await pilot.press("down", "enter")
        await settle(pilot)
        dialog = demo_app.screen
        assert isinstance(dialog, RecordScreen)
        record = screen.data.legion.recent_outcomes_by_date[1]
        assert dialog.record == record and record.summary in plain(dialog.query_one("#record-body"))
        await pilot.press("escape")
        await settle(pilot)
        assert demo_app.screen is screen


async def test_store_line_counts_the_current_project_and_chart_spans_weeks_with_data(demo_app, demo):
    async with demo_app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape", "3")
        await settle(pilot)
        screen = demo_app.screen
        counts = Store(demo.db_path).status_counts(repo_id="atlas-api")
        summary = plain(screen.query_one("#briefing-summary"))
        assert f"store, atlas-api: {counts['active']:,} active" in summary and f"{counts['all']:,} in all" in summary
        weeks = screen.data.legion.weeks_with_data
        assert weeks and weeks[0].outcomes > 0
        assert f"{weeks[0].start:%b %d} – {weeks[-1].start:%b %d}" in plain(screen.query_one("#body-trend"))
