"""Each proposal kind is found on a store built for it, and not found where it does not hold."""

from __future__ import annotations

from mneme_tui.memory.curation.proposals import open_proposals
from mneme_tui.memory.store import Store

from .conftest import mint

FLAKY = "The flaky test in test_sync was a clock problem; freezing MNEME_NOW made it deterministic."


def kinds(store: Store, kind: str, repo: str | None = "acme"):
    return open_proposals(store, repo, kinds=frozenset({kind}))


def test_exact_duplicates_are_one_merge_keeping_the_most_read(store: Store) -> None:
    first = mint(store, FLAKY, created="2026-10-01", access=3)
    second = mint(
        store,
        "the flaky test in TEST_SYNC was a clock problem -- freezing mneme_now made it deterministic",
        created="2026-11-01",
    )
    third = mint(store, FLAKY + "  ", created="2026-11-02")
    mint(store, FLAKY, repo="other")  # another repo: not a duplicate of these
    [proposal] = kinds(store, "duplicate")
    assert proposal.memory_ids == (first, second, third) and proposal.keep_id == first
    assert proposal.action == "merge" and proposal.score == 1.0 and "most read" in proposal.reason


def test_newest_is_kept_when_none_was_read_more(store: Store) -> None:
    older = mint(store, FLAKY, created="2026-10-01")
    newer = mint(store, FLAKY, created="2026-11-01")
    [proposal] = kinds(store, "duplicate")
    assert proposal.memory_ids == (older, newer) and proposal.keep_id == newer and "newest" in proposal.reason


def test_near_duplicates_are_proposed_with_their_similarity(store: Store) -> None:
    a = mint(
        store, "Open one peewee connection per thread worker with connection_context or the TUI sees an empty database"
    )
    b = mint(
        store,
        "Open one peewee connection per thread worker with connection_context or the TUI will see an empty database",
    )
    [proposal] = kinds(store, "duplicate")
    assert proposal.memory_ids == (a, b) and 0.7 <= proposal.score < 1.0 and "similarity" in proposal.reason


def test_memories_about_different_files_are_not_duplicates(store: Store) -> None:
    mint(store, "The busy timeout in src/store/models.py must stay above the longest write transaction")
    mint(store, "The busy timeout in src/store/writes.py must stay above the longest write transaction")
    mint(store, "Different lesson entirely: snapshot tests need a fixed clock and no blinking cursor")
    assert kinds(store, "duplicate") == []


def test_dismissed_and_superseded_memories_are_not_proposed(store: Store) -> None:
    a = mint(store, FLAKY)
    mint(store, FLAKY)
    store.dismiss([a])
    assert kinds(store, "duplicate") == []


def test_conflicting_values_and_polarity(store: Store) -> None:
    old = mint(store, "SQLite busy timeout is 5 s for the store", topic="Database", created="2026-10-01")
    new = mint(store, "SQLite busy timeout is 10 s for the store", topic="Database", created="2026-11-01")
    mint(store, "SQLite busy timeout is 30 s for the store", topic="Elsewhere")  # another topic
    use = mint(store, "Use pytest-xdist for the whole suite", topic="Testing", created="2026-10-01")
    never = mint(store, "Never use pytest-xdist for the whole suite", topic="Testing", created="2026-11-02")
    found = {p.memory_ids: p for p in kinds(store, "conflict")}
    assert set(found) == {(old, new), (use, never)}
    assert found[(old, new)].keep_id == new and found[(old, new)].action == "supersede"
    assert "5 / 10" in found[(old, new)].reason and "negates" in found[(use, never)].reason


def test_cold_advisory_memories_but_never_statutory_or_pinned(store: Store, monkeypatch, tmp_path) -> None:
    old = mint(store, "An old reflection nobody reads", created="2026-01-01")
    mint(store, "A recent reflection", created="2026-11-01")
    mint(store, "An old pitfall", kind="pitfall", created="2026-01-01")
    pinned = mint(store, "An old pinned decision", kind="decision", created="2026-01-01")
    read = mint(store, "An old reflection a task read lately", created="2026-01-01")
    store.pin([pinned])
    store.reinforce("INT-1", [read])
    [proposal] = kinds(store, "cold")
    assert proposal.memory_ids == (old,) and proposal.action == "dismiss" and "180 days" in proposal.reason
    monkeypatch.setenv("MNEME_CONFIG", str(tmp_path / "config.toml"))
    (tmp_path / "config.toml").write_text("cold_days = 400\n")
    assert kinds(store, "cold") == []


def test_ids_are_stable_and_change_with_the_text(store: Store) -> None:
    a = mint(store, FLAKY)
    mint(store, FLAKY)
    first = kinds(store, "duplicate")[0].id
    assert kinds(store, "duplicate")[0].id == first
    store.update_content(a, content=FLAKY + " Really.")
    assert [p.id for p in kinds(store, "duplicate")] in ([], [p.id for p in kinds(store, "duplicate")])
    assert all(p.id != first for p in kinds(store, "duplicate"))


def test_every_repo_when_none_is_given(store: Store) -> None:
    mint(store, FLAKY)
    mint(store, FLAKY)
    mint(store, FLAKY, repo="other")
    mint(store, FLAKY, repo="other")
    assert {p.repo_id for p in kinds(store, "duplicate", repo=None)} == {"acme", "other"}
