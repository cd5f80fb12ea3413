"""What a supersede carries over (issue 25): an edit that adds a line to the top result must not make the
correction fall out of sight. The new version keeps the old one's reinforcement (access count and the tasks
behind it); its decay starts afresh; BM25's length normalisation still applies to its longer text."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from mneme_tui.demo import build_demo_workspace
from mneme_tui.memory.store import Store

NOW = datetime(2026, 11, 29, 12, 0, 0)  # tests/conftest.py fixes MNEME_NOW to this


def test_a_new_version_keeps_the_reinforcement_and_its_tasks(store: Store) -> None:
    old = store.save("Freeze MNEME_NOW in clock tests", repo_id="app")
    store.reinforce("T-1", [old.id])
    store.reinforce("T-2", [old.id])
    new = store.supersede(old.id, "Freeze MNEME_NOW in clock tests.\nAlso in the snapshot tests.")
    assert new.access_count == 2
    assert store.task_ids_for(new.id) == ["T-1", "T-2"]
    assert store.reinforce("T-1", [new.id]) == []  # the same task does not count the same knowledge twice
    assert store.reinforce("T-3", [new.id]) == [new.id]
    assert store.get(new.id).access_count == 3
    assert store.get(old.id).access_count == 2  # the old version is left as it was
    assert new.created_at >= old.created_at  # decay starts afresh


def test_an_edit_of_the_demo_top_result_stays_in_sight(tmp_path: Path) -> None:
    """The issue's case: the demo's best match for "flaky test clock" edited with one more line."""
    demo = build_demo_workspace(tmp_path / "demo", NOW)
    store = Store(demo.db_path)
    try:
        top = store.recall("flaky test clock", repo=demo.repo)[0]
        assert top.memory.access_count > 0
        new = store.supersede(top.memory.id, top.memory.content + "\nAlso checked on staging after the fix.")
        after = store.recall("flaky test clock", repo=demo.repo)
        ours = next(result for result in after if result.memory.id == new.id)
        assert ours.components["reinforcement"] == top.components["reinforcement"]
        assert ours.components["decay"] == 1.0
        assert [result.memory.id for result in after].index(new.id) < 3
    finally:
        store.close()
