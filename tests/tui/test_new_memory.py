"""``n``: the new-memory form from any screen: saved through the store's validation, undone with ``u``."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Select, Static, TextArea

from mneme_tui.memory import kinds as K
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.new_memory import NewMemoryScreen
from mneme_tui.tui.screens.recall import RecallScreen
from mneme_tui.tui.screenshots import press, settle

from .conftest import SIZE, plain, type_text


def _store() -> Store:
    store = Store(Path("new.db"))
    store.save("Keep the deploy job idempotent", kind="decision", topic="Deploys", repo_id="atlas-api")
    return store


def _messages(app) -> list[str]:
    return [n.message for n in app._notifications]


async def _open_form(pilot) -> NewMemoryScreen:
    """From Recall's results, ``n``: the form."""
    await settle(pilot)
    await press(pilot, "escape", "n")
    form = pilot.app.screen
    assert isinstance(form, NewMemoryScreen)
    return form


async def test_n_saves_a_new_memory_and_u_undoes_it(make_app):
    store = _store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        form = await _open_form(pilot)
        assert form.query_one("#new-content", TextArea).has_focus
        assert form.query_one("#new-repo", Input).value == "atlas-api"
        await type_text(pilot, "Pin textual below 8.3")
        await press(pilot, "tab")
        await type_text(pilot, "Dependencies")
        form.query_one("#new-kind", Select).value = "fact"
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, RecallScreen)
        saved = store.list(status=K.ACTIVE, repo_id="atlas-api", limit=10)[0]
        assert (saved.content, saved.topic, saved.kind, saved.repo_id) == (
            "Pin textual below 8.3",
            "Dependencies",
            "fact",
            "atlas-api",
        )
        assert f"Saved #{saved.id} (fact, atlas-api) — press u to undo." in _messages(app)
        assert str(saved.id) in app.screen.query_one("#results").row_keys  # the list shows it at once
        await press(pilot, "u")
        assert store.get(saved.id).status == K.TOMBSTONED
        assert f"Undid the save: #{saved.id} dismissed" in _messages(app)


async def test_a_text_that_is_already_a_memory_stores_nothing_and_says_so(make_app):
    app = make_app(store := _store())
    async with app.run_test(size=SIZE) as pilot:
        form = await _open_form(pilot)
        form.query_one("#new-content", TextArea).text = "keep the deploy job IDEMPOTENT!"
        form.query_one("#new-kind", Select).value = "decision"
        await press(pilot, "ctrl+s")
        assert app.screen is form and store.count() == 1
        assert plain(form.query_one("#new-error", Static)).startswith("Not stored: the same text")
        await press(pilot, "escape")
        await press(pilot, "u")
        assert store.get(1).status == K.ACTIVE  # no undo was queued for a save that stored nothing


async def test_the_kind_list_offers_only_advisory_kinds(make_app):
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        select = (await _open_form(pilot)).query_one("#new-kind", Select)
        assert [value for _, value in select._options] == list(K.ADVISORY_KINDS)
        assert select.value == "reflection"


async def test_invalid_input_shows_the_error_in_the_form_and_saves_nothing(make_app):
    store = _store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        form = await _open_form(pilot)
        await type_text(pilot, "   ")
        await press(pilot, "ctrl+s")
        assert app.screen is form
        error = form.query_one("#new-error", Static)
        assert plain(error) == "Not saved: ERR_VALIDATION_FAILED: memory content cannot be empty"
        form.query_one("#new-content", TextArea).text = "x" * 100_001
        await press(pilot, "ctrl+s")
        assert "longer than 100000 characters" in plain(form.query_one("#new-error", Static))
        form.query_one("#new-content", TextArea).text = "a topic past the size limit"
        form.query_one("#new-topic", Input).value = "€" * 342  # 1,026 bytes of UTF-8
        await press(pilot, "ctrl+s")
        assert "exceeds the topic size limit of 1,024 bytes" in plain(form.query_one("#new-error", Static))
        assert store.count() == 1
        await press(pilot, "escape")
        assert isinstance(app.screen, RecallScreen)
        assert store.count() == 1


async def test_escape_cancels_without_saving(make_app):
    store = _store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open_form(pilot)
        await type_text(pilot, "half a thought")
        await press(pilot, "escape")
        assert isinstance(app.screen, RecallScreen)
        assert store.count() == 1
        assert not any(m.startswith("Saved") for m in _messages(app))


async def test_n_works_from_every_mode_and_from_a_memory_detail(make_app):
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("2", "3", "4", "5"):
            await press(pilot, "escape", key, "n")
            assert isinstance(app.screen, NewMemoryScreen), key
            await press(pilot, "escape")
        await press(pilot, "escape", "2", "n")
        await type_text(pilot, "Saved from Memories")
        await press(pilot, "ctrl+s")
        assert any(m.endswith("— press 1, then u, to undo.") for m in _messages(app))  # Memories' u is its own
        await press(pilot, "1", "u")
        assert any(m.startswith("Undid the save") for m in _messages(app))
        await press(pilot, "escape", "enter")  # Recall's results have focus: enter opens the detail
        await press(pilot, "n")
        assert isinstance(app.screen, NewMemoryScreen)
        await press(pilot, "n")  # typed into the content, not a second form
        assert app.screen.query_one("#new-content", TextArea).text == "n"


async def test_the_help_lists_the_detail_actions_and_the_form_keys(make_app):
    from mneme_tui.tui.screens.help import help_table

    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = help_table(app)
        rows = [(key.plain, what.plain) for key, what in zip(table.columns[0]._cells, table.columns[1]._cells)]
        assert ("Memory detail", "") in rows and ("New memory (n)", "") in rows
        assert ("e", "Edit the text in $VISUAL/$EDITOR: saves a new memory that supersedes this one") in rows
        assert ("n", "Save a new memory (a form: content, topic, kind, repo)") in rows
        assert ("^s", "Save the memory") in rows


async def test_the_command_palette_offers_new_memory_and_undo(make_app):
    app = make_app(_store())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        assert "Undo" in commands
        commands["New memory"].callback()
        await settle(pilot)
        assert isinstance(app.screen, NewMemoryScreen)
