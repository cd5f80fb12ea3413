"""What a new user trips over (issue 25): first keys, Briefing, widths, the form, keys, read-only, the demo."""

from __future__ import annotations

from pathlib import Path

import pytest
from provenances import SYNCED
from textual.widgets import Input, Sparkline, TextArea

from mneme_tui import config
from mneme_tui.cli import main
from mneme_tui.demo import DemoWorkspace
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.briefing import RecordScreen
from mneme_tui.tui.screens.help import HelpScreen
from mneme_tui.tui.screens.memories import MemoriesScreen
from mneme_tui.tui.screens.new_memory import NewMemoryScreen
from mneme_tui.tui.screens.recall import QUERY_HINT
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.paged_table import PagedTable
from mneme_tui.tui.widgets.results_table import ResultsTable

from .conftest import SIZE, plain


def messages(app) -> list[str]:
    return [n.message for n in app._notifications]


# ------------------------------------------------------------------------------ first contact
async def test_the_first_question_mark_opens_help_and_the_empty_query_says_how(demo_app):
    async with demo_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        query = demo_app.screen.query_one("#query", Input)
        assert query.has_focus and query.placeholder == QUERY_HINT and "?: help" in QUERY_HINT
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(demo_app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert query.value == ""
        await pilot.press("w", "h", "y", "question_mark")  # inside a query, ? is just a character
        await settle(pilot)
        assert query.value == "why?" and not isinstance(demo_app.screen, HelpScreen)


async def test_help_says_space_marks_and_moves_down(demo_app):
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await settle(pilot)
        text = plain(demo_app.screen.query_one("#help-body"))
        assert "Mark or unmark the highlighted memory and move down" in text
        assert "memories.mark" in text and "[keys]" in text


# ----------------------------------------------------------------------------------- Recall
async def test_recall_shows_the_matched_line_and_the_match_beside_the_age(make_app):
    store = Store(Path("lines.db"))
    store.mint(
        "Deploy checklist\nstep one\nthe zebra crossing needs a flag",
        provenance=SYNCED,
        kind="fact",
        repo_id="atlas-api",
    )
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("z", "e", "b", "r", "a")
        await settle(pilot)
        table = app.screen.query_one("#results", ResultsTable)
        match, *_, text = [cell.plain for cell in table.get_row(table.row_keys[0])]
        assert text.startswith("Deploy checklist … the zebra crossing needs a flag")
        assert match == "1.000"


# --------------------------------------------------------------------------------- Briefing
async def test_briefing_enter_opens_the_outcome_shown_readably(demo_app):
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "3")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(demo_app.screen, RecordScreen)
        body = plain(demo_app.screen.query_one("#record-body"))
        assert "['" not in body and "occurrence" not in body and "layout" not in body
        assert not any(line.startswith("line ") for line in body.splitlines())
        if demo_app.screen.record.tags:
            assert ", ".join(demo_app.screen.record.tags) in body


async def test_one_week_of_outcomes_draws_no_trend_chart(make_app, capsys):
    folder = Path("one-week")
    assert (
        main(
            [
                "legion",
                "record",
                "outcome",
                "--dir",
                str(folder),
                "--agent",
                "a1",
                "--outcome",
                "success",
                "--summary",
                "only one",
                "--branch",
                "main",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "legion",
                "record",
                "preference",
                "--dir",
                str(folder),
                "--decision-point",
                "manual-edit",
                "--context",
                "tabs or spaces",
                "--signal",
                "corrective",
                "--agent",
                "a1",
                "--branch",
                "main",
            ]
        )
        == 0
    )
    capsys.readouterr()
    app = make_app(Store(Path("week.db")), legion_dir=folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "3")
        await settle(pilot)
        assert not app.screen.query_one("#trend-sparkline", Sparkline).display
        assert "latest 100% (1 outcome)" in plain(app.screen.query_one("#body-trend"))
        latest = plain(app.screen.query_one("#body-preferences")).splitlines()[-1]
        assert latest.endswith("manual-edit") and not latest.endswith(":")


# --------------------------------------------------------------------------------- Memories
@pytest.mark.parametrize("width", [80, 200])
async def test_memories_give_the_text_the_width_and_cut_it_with_an_ellipsis(demo_app, width):
    async with demo_app.run_test(size=(width, 30)) as pilot:
        await pilot.press("escape", "2")
        await settle(pilot)
        screen = demo_app.screen
        assert isinstance(screen, MemoriesScreen)
        table = screen.query_one("#memories-table", PagedTable)
        columns = {key: column_width for key, _, column_width in screen._columns}
        used = sum(columns.values()) + 2 * len(columns)
        assert used <= table.fit_width and table.fit_width - used <= 1  # the text takes what is left
        if width == 80:
            assert "status" not in columns and columns["content"] >= 30
        texts = [table.get_row(key)[-1].plain for key in table.row_keys]
        assert any(text.endswith("…") for text in texts) and all(len(text) <= columns["content"] for text in texts)


async def test_a_dismissal_shows_at_once_when_the_status_column_is_dropped(demo_app):
    async with demo_app.run_test(size=(80, 30)) as pilot:
        await pilot.press("escape", "2")
        await settle(pilot)
        table = demo_app.screen.query_one("#memories-table", PagedTable)
        key = table.cursor_key
        demo_app.screen.action_dismiss_selected()  # shown at once; the write follows in a worker
        shown = table.get_row(key)[0]
        assert any("strike" in str(span.style) for span in shown.spans)
        await settle(pilot)


# ---------------------------------------------------------------------------- the new form
async def test_the_form_clears_its_error_names_a_new_repo_and_selects_all(demo_app):
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "n")
        await settle(pilot)
        form = demo_app.screen
        assert isinstance(form, NewMemoryScreen)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "Not saved" in plain(form.query_one("#new-error"))
        await pilot.press("h", "i")
        assert plain(form.query_one("#new-error")) == ""
        await pilot.press("ctrl+a")
        assert form.query_one("#new-content", TextArea).selected_text == "hi"
        repo = form.query_one("#new-repo", Input)
        assert "billing-svc" in form.known_repos and plain(form.query_one("#new-repo-note")) == ""
        repo.focus()
        await pilot.press("ctrl+a", "b", "i", "l", "l", "z")
        await settle(pilot)
        assert repo.value == "billz" and "new repo 'billz'" in plain(form.query_one("#new-repo-note"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert any(m.startswith("Created the new repo 'billz'") for m in messages(demo_app))


# ------------------------------------------------------------------------------------- keys
async def test_keys_in_the_config_file_remap_actions_and_the_help_shows_them(demo_app, tmp_path, monkeypatch):
    config_file = tmp_path / "keys.toml"
    config_file.write_text('[keys]\napp.help = "f2"\nmemories.mark = "m"\nnot.a_binding = "x"\n')
    monkeypatch.setenv("MNEME_CONFIG", str(config_file))
    async with demo_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert any("no binding has the id not.a_binding" in m for m in messages(demo_app))
        await pilot.press("escape", "2")
        await settle(pilot)
        screen = demo_app.screen
        await pilot.press("m")
        assert len(screen.marked) == 1
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(demo_app.screen, HelpScreen)
        rows = plain(demo_app.screen.query_one("#help-body")).splitlines()
        assert any(line.split()[0] == "m" and "memories.mark" in line for line in rows if line.strip())


# -------------------------------------------------------------------------------- read-only
async def test_read_only_turns_every_write_off_and_says_so(demo: DemoWorkspace, make_app):
    app = make_app(Store(demo.db_path), repo=demo.repo, legion_dir=demo.legion_dir, read_only=True)
    before = app.ctx.store.status_counts()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "read-only" in app.screen.query_one("AppHeader").render().plain
        await pilot.press("escape", "d", "n", "s")
        await settle(pilot)
        assert not isinstance(app.screen, NewMemoryScreen) and not app.sync_running
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        for action in ("sync", "new_memory", "undo"):
            assert app.check_action(action, ()) is None
        assert app.check_action("help", ()) is True
    assert app.ctx.store.status_counts() == before


def test_the_read_only_setting_and_flag(tmp_path, monkeypatch):
    import argparse

    from mneme_tui.tui.launch import _read_only

    monkeypatch.setenv("MNEME_CONFIG", str(tmp_path / "c.toml"))
    assert not _read_only(argparse.Namespace(read_only=False))
    assert _read_only(argparse.Namespace(read_only=True))
    (tmp_path / "c.toml").write_text("read_only = true\n")
    assert _read_only(argparse.Namespace(read_only=False))
    (tmp_path / "c.toml").write_text('read_only = "yes"\n')
    assert _read_only(argparse.Namespace(read_only=False))  # a broken setting errs on the safe side


# ------------------------------------------------------------------------------------ demo
def test_the_demo_keeps_its_settings_in_its_own_folder(tmp_path, monkeypatch):
    user = tmp_path / "user.toml"
    user.write_text('theme = "nord"\n')
    monkeypatch.setenv("MNEME_CONFIG", str(user))
    demo_folder = tmp_path / "demo"
    demo_folder.mkdir()
    workspace = DemoWorkspace(
        db_path=demo_folder / "mneme.db", project_dir=demo_folder, legion_dir=demo_folder, repo="atlas-api"
    )
    config.use_settings_copy(workspace.config_path)
    assert config.saved_theme() == "nord"  # the user's settings still apply in the demo
    config.save_setting("theme", "dracula")
    assert user.read_text() == 'theme = "nord"\n'
    assert (demo_folder / "config.toml").read_text().strip() == 'theme = "dracula"'
