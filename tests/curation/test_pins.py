"""A pinned memory is never cooled out of a handshake, is listed first, and does not change the spec profile's
score."""

from __future__ import annotations

from mneme_tui.memory.learning.orientation import orientation
from mneme_tui.memory.store import Store

from .conftest import mint


def test_a_pinned_pitfall_is_not_cooled_and_comes_first(store: Store) -> None:
    old = mint(
        store, "Old one-off: the watcher raced the writer", kind="pitfall", topic="gate:Race", created="2026-06-01"
    )
    recent = mint(
        store, "Recent: the busy timeout was too short", kind="pitfall", topic="gate:Timeout", created="2026-11-28"
    )
    view = orientation(store, "acme")
    assert view.cooled == (old,) and [p.memory.id for p in view.learned_pitfalls] == [recent]
    store.pin([old])
    view = orientation(store, "acme")
    assert view.cooled == () and [p.memory.id for p in view.learned_pitfalls] == [old, recent]
    assert view.to_json()["learned_pitfalls"][0]["pinned"] is True
    assert "pinned" in view.to_text()


def test_pinning_leaves_the_spec_score_unchanged(store: Store) -> None:
    memory = mint(store, "The busy timeout must outlast the longest write", kind="decision")
    before = store.recall("busy timeout", repo="acme", profile="spec")
    store.pin([memory])
    after = store.recall("busy timeout", repo="acme", profile="spec")
    assert [(r.memory.id, r.score, r.components) for r in before] == [
        (r.memory.id, r.score, r.components) for r in after
    ]
