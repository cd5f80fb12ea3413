"""The memory detail's actions: edit (as supersede, in a real editor script), dismiss, restore, copy, the
jumps to the newer / older version, and undo; the editor run with the app suspended."""

from __future__ import annotations

import stat
import sys
import time
from pathlib import Path

import pytest
from provenances import SYNCED
from textual.drivers.headless_driver import HeadlessDriver

from mneme_tui.memory import kinds as K
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.memory_screen import MemoryScreen
from mneme_tui.tui.screenshots import press, settle
from mneme_tui.tui.widgets.memory_detail import MemoryDetail

from .conftest import SIZE, plain

OLD_TEXT = "Run migrations before the deploy, never after"
NEW_TEXT = "Run migrations in the deploy job, before traffic moves"


def _seed(path: str = "detail.db") -> tuple[Store, int, int]:
    store = Store(Path(path))
    advisory = store.save(OLD_TEXT, kind="decision", topic="Deploys", repo_id="atlas-api")
    pitfall = store.mint(
        "SQLite busy timeout must be set first", kind="pitfall", topic="SQLite", repo_id="atlas-api", provenance=SYNCED
    )
    return store, advisory.id, pitfall.id


def _editor(tmp_path: Path, body: str) -> Path:
    """A real editor: a tiny Python script that edits the file it is given."""
    script = tmp_path / "editor.py"
    script.write_text(f"#!{sys.executable}\nimport sys\npath = sys.argv[1]\n{body}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _rewriting_editor(tmp_path: Path, text: str) -> Path:
    return _editor(tmp_path, f"open(path, 'w', encoding='utf-8').write({text!r} + '\\n')")


def _messages(app) -> list[str]:
    return [n.message for n in app._notifications]


async def _open(pilot, memory_id: int) -> MemoryScreen:
    screen = MemoryScreen(memory_id)
    await pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


def _body(screen: MemoryScreen) -> str:
    return plain(screen.query_one(MemoryDetail).query_one(".detail-body"))


async def test_dismiss_then_undo_then_restore(make_app):
    store, memory_id, _ = _seed()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _open(pilot, memory_id)
        await press(pilot, "d")
        assert store.get(memory_id).status == K.TOMBSTONED
        assert f"Dismissed #{memory_id} — press u to undo." in _messages(app)
        assert "tombstoned" in _body(screen)
        await press(pilot, "u")
        assert store.get(memory_id).status == K.ACTIVE
        assert f"#{memory_id} is active again" in _messages(app)
        await press(pilot, "r")
        assert f"#{memory_id} is already active." in _messages(app)
        await pilot.press("d", "r")  # pressed fast: the restore runs after the dismiss, on the state it left
        await settle(pilot)
        assert store.get(memory_id).status == K.ACTIVE
        assert f"Restored #{memory_id} to active — press u to undo." in _messages(app)
        await press(pilot, "u")  # undoes the restore: dismissed again
        assert store.get(memory_id).status == K.TOMBSTONED
        reasons = [entry.reason for entry in store.history(memory_id)]
        assert reasons == [
            "dismissed in the TUI",
            "undo in the TUI",
            "dismissed in the TUI",
            "restored in the TUI",
            "undo in the TUI",
        ]


async def test_edit_supersedes_shows_the_new_memory_jumps_and_undoes(make_app, tmp_path, monkeypatch):
    store, memory_id, _ = _seed()
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_rewriting_editor(tmp_path, NEW_TEXT)))
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _open(pilot, memory_id)
        await press(pilot, "e")
        old = store.get(memory_id)
        assert old.status == K.SUPERSEDED
        new = store.get(old.superseded_by)
        assert (new.content, new.kind, new.topic, new.repo_id) == (NEW_TEXT, "decision", "Deploys", "atlas-api")
        assert screen.memory_id == new.id
        assert NEW_TEXT in _body(screen) and f"older      #{memory_id} {OLD_TEXT}  (<)" in _body(screen)
        assert any(m.startswith(f"Saved the edit as #{new.id}; #{memory_id} is superseded") for m in _messages(app))
        await press(pilot, "less_than_sign")
        assert screen.memory_id == memory_id
        assert f"newer      #{new.id} {NEW_TEXT}  (>)" in _body(screen)
        await press(pilot, "greater_than_sign")
        assert screen.memory_id == new.id
        await press(pilot, "greater_than_sign")
        assert f"Nothing supersedes #{new.id}." in _messages(app)
        await press(pilot, "u")
        assert store.get(memory_id).status == K.ACTIVE and store.get(memory_id).superseded_by == 0
        assert store.get(new.id).status == K.TOMBSTONED
        assert screen.memory_id == memory_id


async def test_edit_with_unchanged_text_changes_nothing(make_app, tmp_path, monkeypatch):
    store, memory_id, _ = _seed()
    monkeypatch.setenv("VISUAL", str(_editor(tmp_path, "pass")))
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open(pilot, memory_id)
        await press(pilot, "e")
        assert f"Nothing changed: #{memory_id} is as it was." in _messages(app)
        assert store.get(memory_id).status == K.ACTIVE
        assert store.count() == 2


async def test_an_edit_into_the_text_of_another_memory_changes_nothing(make_app, tmp_path, monkeypatch):
    store, memory_id, _ = _seed()
    other = store.save(NEW_TEXT, kind="decision", topic="Deploys", repo_id="atlas-api")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_rewriting_editor(tmp_path, NEW_TEXT.upper())))
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open(pilot, memory_id)
        await press(pilot, "e")
        assert f"is already memory {other.id}; #{memory_id} is unchanged." in _messages(app)[-1]
        await press(pilot, "u")  # nothing to undo: the other memory stays active
        assert store.get(memory_id).status == store.get(other.id).status == K.ACTIVE and store.count() == 3


@pytest.mark.parametrize(
    "editor_body, expected",
    [
        ("sys.exit(3)", "exited with status 3; nothing changed"),
        ("import os; os.remove(path)", "removed the file; nothing changed"),
    ],
)
async def test_a_failing_editor_is_a_clear_error_and_nothing_changes(
    make_app, tmp_path, monkeypatch, editor_body, expected
):
    store, memory_id, _ = _seed()
    monkeypatch.setenv("VISUAL", str(_editor(tmp_path, editor_body)))
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open(pilot, memory_id)
        await press(pilot, "e")
        errors = [n.message for n in app._notifications if n.severity == "error"]
        assert len(errors) == 1 and errors[0].startswith("Edit failed: the editor") and errors[0].endswith(expected)
        assert store.get(memory_id).status == K.ACTIVE and store.count() == 2


async def test_a_missing_editor_is_a_clear_error(make_app, tmp_path, monkeypatch):
    store, memory_id, _ = _seed()
    monkeypatch.setenv("VISUAL", str(tmp_path / "no-such-editor"))
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open(pilot, memory_id)
        await press(pilot, "e")
        assert any(m.startswith("Edit failed: cannot run the editor") for m in _messages(app))
        assert store.count() == 2


async def test_statutory_and_inactive_memories_are_not_opened_in_the_editor(make_app, tmp_path, monkeypatch):
    store, memory_id, pitfall_id = _seed()
    marker = tmp_path / "editor-ran"
    monkeypatch.setenv("VISUAL", str(_editor(tmp_path, f"open({str(marker)!r}, 'w').write('x')")))
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open(pilot, pitfall_id)
        await press(pilot, "e")
        assert any(m.startswith(f"#{pitfall_id} is a pitfall: statutory kinds") for m in _messages(app))
        store.dismiss([memory_id])
        await _open(pilot, memory_id)
        await press(pilot, "e")
        assert f"#{memory_id} is tombstoned: only active memories can be edited (r restores it)." in _messages(app)
    assert not marker.exists()


async def test_the_editor_runs_with_the_app_suspended(make_app, tmp_path, monkeypatch):
    """The headless driver cannot suspend; with it claiming it can, Textual's real suspend path runs: the
    app publishes suspend, the editor runs, the app resumes and shows the new memory."""
    store, memory_id, _ = _seed()
    monkeypatch.setenv("VISUAL", str(_rewriting_editor(tmp_path, NEW_TEXT)))
    monkeypatch.setattr(HeadlessDriver, "can_suspend", property(lambda self: True))
    app = make_app(store)
    events: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.app_suspend_signal.subscribe(app, lambda _: events.append("suspend"))
        app.app_resume_signal.subscribe(app, lambda _: events.append("resume"))
        screen = await _open(pilot, memory_id)
        await press(pilot, "e")
        assert events == ["suspend", "resume"]
        assert store.get(memory_id).status == K.SUPERSEDED
        assert NEW_TEXT in _body(screen)


async def test_copy_puts_the_text_on_the_clipboard_and_says_how(make_app):
    store, memory_id, _ = _seed()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open(pilot, memory_id)
        await press(pilot, "y")
        assert app.clipboard == OLD_TEXT
        assert any("OSC 52" in m for m in _messages(app))


async def test_enter_on_a_recall_result_opens_the_actions(make_app):
    store, _, _ = _seed()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "escape", "enter")
        assert isinstance(app.screen, MemoryScreen)
        footer = " ".join(binding.description for binding in (b.binding for b in app.screen.active_bindings.values()))
        for action in ("Edit", "Dismiss", "Restore", "Copy", "Newer", "Older", "Undo"):
            assert action in footer


async def test_two_write_keys_pressed_while_the_first_write_runs_apply_in_order(make_app, monkeypatch):
    """``d`` then ``r`` while the dismiss is still being written: the restore waits for it and acts on the state it
    leaves (not on the screen's older copy, which would say "already active" and lose the key)."""
    store, memory_id, _ = _seed()
    slow_dismiss = Store.dismiss

    def dismiss(self, *args, **kwargs):
        time.sleep(0.3)  # a slow disk or a busy database: the second key comes while this runs
        return slow_dismiss(self, *args, **kwargs)

    monkeypatch.setattr(Store, "dismiss", dismiss)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _open(pilot, memory_id)
        await pilot.press("d", "r")
        await settle(pilot)
        assert store.get(memory_id).status == K.ACTIVE
        assert [entry.reason for entry in store.history(memory_id)] == ["dismissed in the TUI", "restored in the TUI"]
        assert f"Restored #{memory_id} to active — press u to undo." in _messages(app)
        await press(pilot, "u")
        assert store.get(memory_id).status == K.TOMBSTONED
