"""The stale kind through ``open_proposals``: against a real temp git work tree (the review-tui engineer's
``Repo`` helper), accepted as a dismissal."""

from __future__ import annotations

import shutil

import pytest

from mneme_tui.memory.curation.proposals import open_proposals
from mneme_tui.memory.curation.review import decide
from mneme_tui.memory.store import Store

from .conftest import mint
from .test_stale import STORE_PY, Repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def stale_of(store: Store, root, repo: str | None = "acme"):
    return open_proposals(store, repo, kinds=frozenset({"stale"}), root=root)


def test_a_deleted_file_is_stale_and_accepting_dismisses(store: Store, tmp_path) -> None:
    repo = Repo(tmp_path / "acme")
    repo.write("src/store/models.py", STORE_PY)
    repo.write("src/store/writes.py", STORE_PY)
    repo.commit(1)
    gone = mint(store, "Pitfall: src/store/models.py opens its own connection", kind="pitfall", created="2026-01-05")
    kept = mint(store, "src/store/writes.py holds every write", created="2026-01-05")
    repo.write("src/store/writes.py", STORE_PY + "\n# one change\n")
    repo.commit(30)
    repo.delete("src/store/models.py", day=40)
    [proposal] = stale_of(store, repo.root)
    assert proposal.memory_ids == (gone,) and proposal.action == "recheck"
    assert "src/store/models.py no longer exists" in proposal.reason
    assert stale_of(store, None) == []  # no work tree: no stale kind
    assert stale_of(store, repo.root, repo="other") == []
    decide(store, proposal.id, "accept", root=repo.root)
    assert store.get(gone).status == "tombstoned" and store.get(kept).status == "active"


def test_every_repo_judges_the_memories_of_the_roots_repo(store: Store, tmp_path, monkeypatch) -> None:
    repo = Repo(tmp_path / "acme")
    repo.write("src/app.py", STORE_PY)
    repo.commit(1)
    repo.delete("src/app.py", day=2)
    mine = mint(store, "src/app.py starts the server", created="2026-01-01")
    mint(store, "src/app.py starts the server", repo="other", created="2026-01-01")
    assert [p.memory_ids for p in stale_of(store, repo.root, repo=None)] == [(mine,)]


def test_a_pin_holds_off_churn_but_not_a_missing_symbol(store: Store, tmp_path) -> None:
    repo = Repo(tmp_path / "acme")
    repo.write("src/store.py", STORE_PY)
    repo.commit(1)
    churned = mint(store, "src/store.py is where rows are saved", created="2026-01-02")
    missing = mint(store, "Refactored src/store.py [Store.vanish]", created="2026-01-02")
    for day in range(3, 15):
        repo.write("src/store.py", STORE_PY + f"\n# change {day}\n")
        repo.commit(day)
    assert {p.memory_ids for p in stale_of(store, repo.root)} == {(churned,), (missing,)}
    store.pin([churned, missing])
    assert {p.memory_ids for p in stale_of(store, repo.root)} == {(missing,)}


def test_the_default_work_tree_is_the_active_repos_only(tmp_path) -> None:
    from mneme_tui.memory.curation.proposals import default_root

    repo = Repo(tmp_path / "acme")
    inside = repo.root / "src"
    inside.mkdir()
    assert default_root("acme", "acme", inside) == repo.root
    assert default_root(None, "acme", inside) == repo.root
    assert default_root("other", "acme", inside) is None
    assert default_root("acme", "acme", tmp_path) is None  # outside any work tree
