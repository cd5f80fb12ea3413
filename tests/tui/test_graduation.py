"""Graduation screen: snapshots (empty, candidates, after a dismissal) and Pilot tests of its keys.

The store is built the way task sync builds it: pitfall topics ``<gate> @ <scope>``, one task id per
pitfall, reinforcements recorded per task.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from provenances import SYNCED

from mneme_tui.memory.learning.graduation import graduation_candidates
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.graduation import DISMISS_REASON, EMPTY_MESSAGE, GraduationScreen
from mneme_tui.tui.screens.memory_screen import MemoryScreen
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.paged_table import PagedTable

from .conftest import NOW, SIZE, plain, wait_until

MARKUP_GATE = "[bold]Gate[/bold] [@click=app.quit]"
MARKUP_CONTENT = "Refactored app.py [Store.save, _flush] then [/bold] and [@click=app.quit]quit[/] \x1b[31mred"


def _pitfall(
    store: Store, gate: str, scope: str, task: str, content: str, *, repo: str = "atlas-api", days_ago: int = 0
) -> int:
    return store.mint(
        content,
        provenance=SYNCED,
        kind="pitfall",
        topic=f"{gate} @ {scope}",
        repo_id=repo,
        task_id=task,
        created_at=NOW - timedelta(days=days_ago, hours=1),
    ).id


def graduation_store(path: str = "graduation.db") -> Store:
    """Three candidates in atlas-api (recurrence, structural recurrence, access), one in another repo,
    and pitfalls/patterns that must not appear."""
    store = Store(Path(path))
    _pitfall(
        store,
        "No bare except",
        "src/api",
        "T-201",
        "A bare `except:` in the route handler hid a KeyError.",
        days_ago=20,
    )
    _pitfall(
        store,
        "No bare except",
        "src/api",
        "T-214",
        "Swallowed the timeout in the retry loop with `except:`.",
        days_ago=9,
    )
    _pitfall(
        store,
        "No bare except",
        "src/api",
        "T-230",
        "Catch the exception you expect; log and re-raise the rest.",
        days_ago=2,
    )
    _pitfall(store, "Cognitive Complexity", "src/store", "T-188", "store.save grew past complexity 15.", days_ago=30)
    _pitfall(
        store,
        "Cognitive Complexity",
        "src/store",
        "T-222",
        "Split Store.save into validate, write and audit steps.",
        days_ago=5,
    )
    secret = _pitfall(
        store,
        "Secrets in logs",
        "src/auth",
        "T-150",
        "Never log the session token; log its hash prefix instead.",
        days_ago=40,
    )
    for task in ("T-160", "T-171", "T-199"):
        store.reinforce(task, [secret])
    _pitfall(
        store,
        "Missing timeout",
        "infra/terraform",
        "T-301",
        "HTTP calls need an explicit timeout.",
        repo="billing-svc",
        days_ago=12,
    )
    _pitfall(
        store,
        "Missing timeout",
        "infra/terraform",
        "T-305",
        "requests.get without timeout hung the deploy.",
        repo="billing-svc",
        days_ago=3,
    )
    _pitfall(store, "Function Length", "src/cli", "T-240", "A one-off: main() was 90 lines.", days_ago=1)
    once = _pitfall(store, "File Length", "src/tui", "T-241", "Structural gates never graduate on reads.", days_ago=1)
    for task in ("T-250", "T-251", "T-252"):
        store.reinforce(task, [once])
    store.mint(
        "Temp file + fsync + rename.",
        provenance=SYNCED,
        kind="pattern",
        topic="pattern:src/io",
        repo_id="atlas-api",
        task_id="T-201",
    )
    return store


def _table(app) -> PagedTable:
    return app.screen.query_one("#graduation-table", PagedTable)


def _rows(app) -> dict[str, list[str]]:
    table = _table(app)
    return {key: [cell.plain for cell in table.get_row(key)] for key in table.row_keys}


async def _open(pilot) -> GraduationScreen:
    await pilot.press("escape", "5")
    await settle(pilot)
    assert isinstance(pilot.app.screen, GraduationScreen)
    return pilot.app.screen


# ------------------------------------------------------------------------------ snapshots
def test_graduation_empty(snap_compare, empty_app):
    """No candidates: one calm line saying what makes one and where pitfalls come from."""

    async def run_before(pilot):
        await _open(pilot)

    assert snap_compare(empty_app, terminal_size=SIZE, run_before=run_before)


def test_graduation_candidates(snap_compare, make_app):
    """Candidates with rule, recurrence, access, scope and tasks; the reason and rule text below."""
    app = make_app(graduation_store())

    async def run_before(pilot):
        await _open(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_graduation_after_dismiss(snap_compare, make_app):
    """The first candidate's group dismissed: gone from the list, the toast says which ids and u undoes."""
    app = make_app(graduation_store())

    async def run_before(pilot):
        await _open(pilot)
        await pilot.press("d")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


# ------------------------------------------------------------------------------ behaviour
async def test_candidates_are_listed_with_rule_recurrence_and_scope(make_app):
    store = graduation_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        rows = _rows(app)
        expected = graduation_candidates(store, "atlas-api")
        assert list(rows) == [str(c.memory.id) for c in expected]
        by_gate = {row[1]: row[2:] for row in rows.values()}
        assert list(by_gate) == ["No bare except", "Cognitive Complexity", "Secrets in logs"]
        assert by_gate["No bare except"] == ["src/api", "recur", "3", "0", "atlas-api", "T-201, T-214, T-230"]
        assert by_gate["Cognitive Complexity"] == ["src/store", "recur", "2", "0", "atlas-api", "T-188, T-222"]
        assert by_gate["Secrets in logs"] == ["src/auth", "access", "1", "3", "atlas-api", "T-150"]
        facts = plain(screen.query_one("#graduation-facts"))
        assert "recurs in 3 tasks (T-201, T-214, T-230) within scope src/api" in facts
        assert "d dismisses all 3 once codified" in facts
        assert plain(screen.query_one("#graduation-rule")) == expected[0].rule_text().rstrip("\n")
        await pilot.press("down", "down")
        await settle(pilot)
        assert "read by  T-160, T-171, T-199" in plain(screen.query_one("#graduation-facts"))
        await pilot.press("r")  # all repos: the billing-svc candidate too
        await settle(pilot)
        gates = [row[1] for row in _rows(app).values()]
        assert "Missing timeout" in gates and len(gates) == 4
        assert _table(app).cursor_row == 0


async def test_dismiss_then_undo_changes_every_related_pitfall_and_back(make_app):
    store = graduation_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        first = graduation_candidates(store, "atlas-api")[0]
        group = list(first.related_ids)
        assert len(group) == 3 and _table(app).cursor_key == str(first.memory.id)
        await pilot.press("d")
        await settle(pilot)
        assert {store.get(i).status for i in group} == {"tombstoned"}
        assert str(first.memory.id) not in _table(app).row_keys
        assert all(store.history(i)[-1].reason == DISMISS_REASON for i in group)
        messages = [n.message for n in app._notifications]
        assert any("as codified: the group's 3 pitfalls #1, #2, #3" in m and "u to undo" in m for m in messages)
        await pilot.press("u")
        await settle(pilot)
        assert {store.get(i).status for i in group} == {"active"}
        assert _table(app).cursor_key == str(first.memory.id)  # back, with the cursor on it
        for memory_id in group:
            assert [(h.from_status, h.to_status) for h in store.history(memory_id)] == [
                ("active", "tombstoned"),
                ("tombstoned", "active"),
            ]
        await pilot.press("u")
        await settle(pilot)
        assert any(n.message == "Nothing to undo." for n in app._notifications)


async def test_undo_restores_only_what_the_dismissal_changed(make_app):
    store = graduation_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        group = graduation_candidates(store, "atlas-api")[0].related_ids
        store.mark_superseded(group[0], group[2])  # superseded before: dismissed now, superseded again after undo
        await pilot.press("d")
        await settle(pilot)
        assert store.get(group[0]).status == "tombstoned"
        await pilot.press("u")
        await settle(pilot)
        assert [store.get(i).status for i in group] == ["superseded", "active", "active"]


async def test_c_copies_the_rule_text(make_app):
    store = graduation_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await pilot.press("down")
        await settle(pilot)
        second = graduation_candidates(store, "atlas-api")[1]
        await pilot.press("c")
        await settle(pilot)
        assert app.clipboard == second.rule_text()
        assert app.clipboard.startswith("# graduated from mneme pitfall")
        toast = app._notifications
        assert any(n.message.startswith(f"Rule for #{second.memory.id} ") and "copied" in n.message for n in toast)
        assert all(not n.markup for n in toast)


async def test_enter_opens_the_memory_with_its_history(make_app):
    store = graduation_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        first = graduation_candidates(store, "atlas-api")[0]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and app.screen.memory_id == first.memory.id
        body = plain(app.screen.query_one(".detail-body"))
        assert "history" in body and DISMISS_REASON in body and "undo in the TUI" in body
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, GraduationScreen)


async def test_markup_looking_text_is_literal_everywhere(make_app):
    store = Store(Path("markup.db"))
    for task in ("T-1", "T-2"):
        _pitfall(store, MARKUP_GATE, "src/[x]", task, MARKUP_CONTENT)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        row = next(iter(_rows(app).values()))
        assert row[1:3] == [MARKUP_GATE, "src/[x]"]
        facts = plain(screen.query_one("#graduation-facts"))
        assert MARKUP_GATE in facts and "within scope src/[x]" in facts
        rule = plain(screen.query_one("#graduation-rule"))
        assert f'gate: "{MARKUP_GATE}"' in rule
        assert "Refactored app.py [Store.save, _flush] then [/bold] and [@click=app.quit]quit[/]" in rule
        assert "\\u001b[31mred" in rule  # the escape, quoted by the rule's YAML
        await pilot.press("c")
        await settle(pilot)
        assert MARKUP_GATE in app.clipboard
        await pilot.press("d")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any(f"Rule for #2 ({MARKUP_GATE}) copied" in m for m in messages)
        assert any(f"Dismissed {MARKUP_GATE} as codified" in m for m in messages)
        assert all(not n.markup for n in app._notifications)
        assert app.is_running


async def test_empty_store_says_what_makes_a_candidate(empty_app):
    async with empty_app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        empty = screen.query_one("#graduation-empty")
        assert empty.display and not screen.query_one("#graduation-body").display
        assert plain(empty) == EMPTY_MESSAGE and "mneme task sync" in EMPTY_MESSAGE
        await pilot.press("c", "d", "u", "enter", "r")
        await settle(pilot)
        assert empty_app.is_running and isinstance(empty_app.screen, GraduationScreen)
        assert empty_app.clipboard == ""


async def test_writes_elsewhere_refresh_the_list_and_keep_the_cursor(make_app):
    store = graduation_store("watched.db")
    app = make_app(store, poll_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await pilot.press("down")
        key = _table(app).cursor_key
        other = Store(Path("watched.db"))  # another connection, as another process would have
        try:
            for task in ("T-401", "T-402", "T-403", "T-404"):  # a new, more recurrent candidate on top
                _pitfall(other, "Unchecked SQL", "src/db", task, "String-built SQL in the report query.")
        finally:
            other.close()
        await wait_until(pilot, lambda: len(_table(app).row_keys) == 4)
        assert _rows(app)[_table(app).row_keys[0]][1] == "Unchecked SQL"
        assert _table(app).cursor_key == key


async def test_first_candidate_appearing_elsewhere_replaces_the_empty_line(make_app):
    store = Store(Path("later.db"))
    app = make_app(store, poll_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        assert screen.query_one("#graduation-empty").display
        other = Store(Path("later.db"))
        try:
            for task in ("T-1", "T-2"):
                _pitfall(other, "Unchecked SQL", "src/db", task, "String-built SQL in the report query.")
        finally:
            other.close()
        await wait_until(pilot, lambda: _table(app).row_keys)
        assert not screen.query_one("#graduation-empty").display and screen.query_one("#graduation-body").display
        assert app.focused is _table(app)
        await pilot.press("c")
        assert 'gate: "Unchecked SQL"' in app.clipboard


async def test_dismissal_marks_the_memories_screen_stale(make_app):
    store = graduation_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "2")
        await settle(pilot)
        memories = app.screen
        active_before = memories.page.total
        await _open(pilot)
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert app.screen is memories and memories.page.total == active_before - 3


async def test_palette_and_help_list_the_graduation_keys(make_app):
    from mneme_tui.tui.screens.help import HelpScreen

    app = make_app(graduation_store())
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Go to Graduation" in commands
        for title in ("Copy rule", "Dismiss group", "Undo", "Repo scope", "History"):
            assert f"Graduation: {title}" in commands
        await commands["Graduation: Copy rule"].callback()
        await settle(pilot)
        assert app.clipboard.startswith("# graduated from mneme pitfall #1, #2, #3")
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        help_text = plain(app.screen.query_one("#help-body"))
        assert (
            "Graduation (5)" in help_text and "dismiss (tombstone) every pitfall of the candidate's group" in help_text
        )


@pytest.mark.parametrize("width", [60, 80, 120])
async def test_rule_text_shown_is_valid_yaml_at_any_width(make_app, width: int):
    """The rule pane never soft-wraps: what a person selects by hand parses as the same YAML."""
    import yaml

    app = make_app(graduation_store())
    async with app.run_test(size=(width, 40)) as pilot:
        screen = await _open(pilot)
        rule = screen.query_one("#graduation-rule")
        shown = "\n".join(rule.render_line(y).text.rstrip() for y in range(rule.size.height)).strip("\n")
        candidate = screen._rows[screen.query_one("#graduation-table", PagedTable).cursor_key]
        expected = candidate.rule_text()
        assert max(len(line) for line in expected.splitlines()) > width - 4  # long enough to have wrapped
        assert yaml.safe_load(shown) == yaml.safe_load(expected)
        assert shown.splitlines() == [line.rstrip() for line in expected.rstrip("\n").splitlines()]
