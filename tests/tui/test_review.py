"""Review screen (mode 6): a snapshot, and Pilot tests of every key (a, x, space + bulk, u, r, enter).

The store is built for it: three copies of one lesson (a merge), two memories with other figures for one topic
(a conflict), an advisory memory nobody read for a year (cold), and a duplicate pair in another repo.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from provenances import SAVED

from mneme_tui.memory.curation.proposals import open_proposals
from mneme_tui.memory.store import Store
from mneme_tui.tui.screens.dialogs import ConfirmScreen
from mneme_tui.tui.screens.memory_screen import MemoryScreen
from mneme_tui.tui.screens.review import EMPTY_MESSAGE, ReviewScreen
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.paged_table import PagedTable

from .conftest import SIZE, plain

FLAKY = "The flaky test in test_sync was a clock problem; freezing MNEME_NOW made it deterministic."
MARKUP = "Refactored app.py [Store.save, _flush] then [/bold] and [@click=app.quit]quit[/]"


def _mint(
    store: Store,
    content: str,
    created: str,
    *,
    repo: str = "atlas-api",
    topic: str = "Testing",
    kind: str = "reflection",
) -> int:
    return store.mint(
        content, provenance=SAVED, kind=kind, topic=topic, repo_id=repo, created_at=datetime.fromisoformat(created)
    ).id


def review_store(path: str = "review.db") -> Store:
    store = Store(Path(path))
    for created in ("2026-02-01", "2026-02-10", "2026-02-20"):
        _mint(store, FLAKY, created)
    _mint(store, "SQLite busy timeout is 5 s for the store", "2026-01-10", topic="Database", kind="decision")
    _mint(store, "SQLite busy timeout is 10 s for the store", "2026-02-15", topic="Database", kind="decision")
    _mint(store, "Deploys wait for the nightly backup to finish before they start.", "2025-02-01", topic="Deploys")
    _mint(store, MARKUP, "2026-02-01", repo="billing-svc")
    _mint(store, MARKUP, "2026-02-02", repo="billing-svc")
    return store


def _table(app) -> PagedTable:
    return app.screen.query_one("#review-table", PagedTable)


def _kinds(app) -> list[str]:
    table = _table(app)
    return [table.get_row(key)[0].plain.lstrip("● ") for key in table.row_keys]


def _toasts(app) -> list[str]:
    return [notification.message for notification in app._notifications]


async def _open(pilot) -> ReviewScreen:
    await pilot.press("escape", "6")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ReviewScreen)
    return pilot.app.screen


# ------------------------------------------------------------------------------ snapshot
def test_review_proposals(snap_compare, make_app):
    """The proposals best first (merge, conflict, cold), the first one's evidence, action and memories."""
    app = make_app(review_store())

    async def run_before(pilot):
        await _open(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


# ------------------------------------------------------------------------------ behaviour
async def test_proposals_are_listed_best_first_with_evidence_action_and_memories(make_app):
    store = review_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        expected = open_proposals(store, "atlas-api")
        assert _table(app).row_keys == [proposal.id for proposal in expected]
        assert _kinds(app) == ["duplicate", "conflict", "cold"]
        facts = plain(screen.query_one("#review-facts"))
        assert expected[0].reason in facts
        assert "merge: keep #3; #1 #2 become superseded by it" in facts
        assert facts.count(FLAKY) == 3 and "#3  keep" in facts
        chips = plain(screen.query_one("#review-filters"))
        assert "atlas-api" in chips and "3 open: 1 duplicate, 1 conflict, 1 cold" in chips
        await pilot.press("down")
        await settle(pilot)
        assert "supersede: #5 supersedes #4; or reject to keep both" in plain(screen.query_one("#review-facts"))


async def test_a_accepts_and_u_undoes_through_the_audited_operations(make_app):
    store = review_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        merge = open_proposals(store, "atlas-api")[0]
        await pilot.press("a")
        await settle(pilot)
        assert [store.get(i).status for i in (1, 2, 3)] == ["superseded", "superseded", "active"]
        assert store.history(1)[-1].reason == "review: duplicate of #3"
        assert merge.id not in _table(app).row_keys and _kinds(app) == ["conflict", "cold"]
        assert "Accepted 1 proposal: 2 memories changed — press u to undo." in _toasts(app)
        await pilot.press("u")
        await settle(pilot)
        assert [store.get(i).status for i in (1, 2, 3)] == ["active", "active", "active"]
        assert _table(app).row_keys[0] == merge.id
        assert "Undid 1 decision; restored #1 #2." in _toasts(app)
        await pilot.press("u")
        await settle(pilot)
        assert _toasts(app)[-1] == "Nothing to undo."


async def test_x_rejects_for_good_and_u_opens_it_again(make_app):
    store = review_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await pilot.press("down", "x")
        await settle(pilot)
        assert _kinds(app) == ["duplicate", "cold"]
        assert {store.get(i).status for i in (4, 5)} == {"active"}  # a rejection changes no memory
        assert "Rejected 1 proposal — press u to undo." in _toasts(app)
        await pilot.press("escape", "1", "6")  # leave and come back: still rejected
        await settle(pilot)
        assert _kinds(app) == ["duplicate", "cold"]
        await pilot.press("u")
        await settle(pilot)
        assert _kinds(app) == ["duplicate", "conflict", "cold"]


async def test_space_marks_and_a_bulk_decision_asks_first(make_app):
    store = review_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        await pilot.press("space", "down", "space")  # the merge and the cold one
        await settle(pilot)
        assert _kinds(app) == ["duplicate", "conflict", "cold"] and len(screen.marked) == 2
        assert _table(app).get_row_at(0)[0].plain == "● duplicate"
        assert "2 marked" in plain(screen.query_one("#review-filters"))
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "Accept 2 marked proposals?" in plain(app.screen.query_one(".dialog-title"))
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is screen and {store.get(i).status for i in range(1, 7)} == {"active"}
        await pilot.press("a", "y")
        await settle(pilot)
        assert [store.get(i).status for i in (1, 2, 3, 6)] == ["superseded", "superseded", "active", "tombstoned"]
        assert _kinds(app) == ["conflict"] and not screen.marked
        assert "Accepted 2 proposals: 3 memories changed — press u to undo." in _toasts(app)
        await pilot.press("u")  # one u undoes the whole bulk decision
        await settle(pilot)
        assert {store.get(i).status for i in range(1, 7)} == {"active"}


async def test_r_shows_every_repo_and_its_text_literally(make_app):
    store = review_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert "all repos" in plain(screen.query_one("#review-filters"))
        assert len(_table(app).row_keys) == 4
        billing = next(p for p in open_proposals(store, None) if p.repo_id == "billing-svc")
        while _table(app).cursor_key != billing.id:
            await pilot.press("down")
        await settle(pilot)
        facts = plain(screen.query_one("#review-facts"))
        assert facts.count(MARKUP) == 2 and "repo billing-svc" in facts


async def test_enter_opens_the_memory_that_stays(make_app):
    app = make_app(review_store())
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MemoryScreen) and app.screen.memory_id == 3


async def test_an_empty_store_says_what_review_proposes(empty_app):
    async with empty_app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        assert plain(screen.query_one("#review-empty")) == EMPTY_MESSAGE
        assert screen.query_one("#review-empty").display and not screen.query_one("#review-body").display
        await pilot.press("a", "x", "space", "enter")
        await settle(pilot)
        assert app_is_calm(empty_app)


def app_is_calm(app) -> bool:
    """No error toast and still on the Review screen."""
    return isinstance(app.screen, ReviewScreen) and all(n.severity != "error" for n in app._notifications)


async def test_help_lists_the_review_keys_and_pin(empty_app):
    async with empty_app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        shown = " ".join(plain(pilot.app.screen.query_one("#help-body")).split())
        assert "6 Review: Proposals to merge, supersede, re-check or dismiss" in shown
        assert "Review (6)" in shown
        for binding in ReviewScreen.BINDINGS:
            assert " ".join(binding.tooltip.split()) in shown
        assert shown.count("Pin or unpin") == 2  # Memories and Memory detail


def _git(root: Path, *arguments: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_AUTHOR_DATE": "@1767225600 +0000",
        "GIT_COMMITTER_DATE": "@1767225600 +0000",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", *arguments], cwd=root, env=env, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_a_memory_about_deleted_code_is_proposed_as_stale_and_a_dismisses_it(make_app):
    project = Path("atlas-api")
    (project / "src" / "store").mkdir(parents=True)
    (project / ".planning" / "memory").mkdir(parents=True)
    (project / "src" / "store" / "old.py").write_text("x = 1\n", encoding="utf-8")
    (project / "src" / "store" / "store.py").write_text("class Store:\n    def load(self): ...\n", encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "one")
    _git(project, "rm", "-q", "src/store/old.py")
    _git(project, "commit", "-q", "-m", "two")
    store = Store(Path("stale.db"))
    # written before the commits (2026-01-01), so the history read (from the oldest memory on) holds them
    gone = _mint(store, "Keep src/store/old.py small: it is imported at start-up.", "2025-12-01")
    renamed = _mint(store, "Refactored src/store/store.py [Store.save, Store.load]", "2025-12-01", kind="decision")
    _mint(store, "src/store/store.py is the one writer.", "2025-12-01", kind="decision")  # still true: not stale
    app = make_app(store, legion_dir=project / ".planning" / "memory")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        assert _kinds(app) == ["stale", "stale"]
        assert [p.memory_ids for p in screen.shown.proposals] == [(gone,), (renamed,)]
        facts = plain(screen.query_one("#review-facts"))
        assert "src/store/old.py no longer exists in the work tree" in facts
        assert "re-check the code it names: accept dismisses #1, reject keeps it" in facts
        await pilot.press("down")
        await settle(pilot)
        assert "Store.save is no longer defined in src/store/store.py (parsed with ast)" in plain(
            screen.query_one("#review-facts")
        )
        await pilot.press("a")
        await settle(pilot)
        assert store.get(renamed).status == "tombstoned" and _kinds(app) == ["stale"]
        assert store.history(renamed)[-1].reason.startswith("review: stale")


async def test_the_command_palette_goes_to_review_and_runs_its_keys(make_app):
    store = review_store()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        commands = {command.title: command for command in app.get_system_commands(app.screen)}
        assert "Go to Review" in commands
        assert {f"Review: {b.description}" for b in ReviewScreen.BINDINGS if b.show} <= set(commands)
        await commands["Review: Reject"].callback()
        await settle(pilot)
        assert _kinds(app) == ["conflict", "cold"]
