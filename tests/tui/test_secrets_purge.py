"""The TUI's secret handling: the new-memory form refuses a secret (ctrl+r saves it redacted) and ``P`` in a
memory's detail purges it after the word ``purge`` is typed."""

from __future__ import annotations

from pathlib import Path

from secrets_and_purge.corpus import SECRETS
from textual.widgets import Static, TextArea

from mneme_tui.memory import kinds as K
from mneme_tui.memory.purge import PURGED
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.memory_screen import MemoryScreen
from mneme_tui.tui.screens.new_memory import NewMemoryScreen
from mneme_tui.tui.screens.purge_confirm import PurgeConfirmScreen
from mneme_tui.tui.screenshots import press, settle

from .conftest import SIZE, plain, type_text

AWS = SECRETS["aws-key"]
KEY = next(word for word in AWS.split() if word.startswith("AKIA"))


def _messages(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_the_form_refuses_a_secret_and_ctrl_r_saves_it_redacted(make_app):
    store = Store(Path("form.db"))
    store.save("Keep the deploy job idempotent", kind="decision", topic="Deploys", repo_id="atlas-api")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "escape", "n")
        form = app.screen
        assert isinstance(form, NewMemoryScreen)
        form.query_one("#new-content", TextArea).text = AWS
        await press(pilot, "ctrl+s")
        error = plain(form.query_one("#new-error", Static))
        assert "ERR_SECRET: looks like an AWS access key" in error and "ctrl+r saves it redacted" in error
        assert KEY not in error and app.screen is form
        await press(pilot, "ctrl+r")
        await settle(pilot)
        saved = store.list(status=K.ACTIVE, repo_id="atlas-api", limit=10)[0]
        assert "[REDACTED:aws-key]" in saved.content and KEY not in saved.content
        assert not any(KEY in message for message in _messages(app))


async def test_p_purges_after_the_word_purge(make_app):
    store = Store(Path("purge.db"))
    memory = store.save("the staging password was hunter-two-x", kind="decision", topic="Deploys", repo_id="atlas-api")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.app.push_screen(MemoryScreen(memory.id))
        await settle(pilot)
        await press(pilot, "P")
        assert isinstance(app.screen, PurgeConfirmScreen)
        assert f"Purge memory #{memory.id}?" in plain(app.screen.query_one(".dialog-title"))
        await type_text(pilot, "yes")
        await press(pilot, "enter")
        assert f"Not purged: #{memory.id} is as it was." in _messages(app)
        assert store.get(memory.id).content == memory.content
        await press(pilot, "P")
        await type_text(pilot, "purge")
        await press(pilot, "enter")
        await settle(pilot)
        assert store.get(memory.id).content == PURGED and store.get(memory.id).status == K.TOMBSTONED
        assert f"Purged #{memory.id}: its text is gone; this cannot be undone." in _messages(app)
