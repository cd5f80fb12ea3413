"""Results worth their tokens (issue 23) under the default ``bm25`` profile: Legion field labels are not
terms, a relevance floor, one outlier memory does not flatten the others, identifiers are found as typed."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from provenances import SYNCED

from mneme_tui.legion.markdown.schemas import ERRORS, OUTCOMES, PREFERENCES
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory import ranking
from mneme_tui.memory.analysis import FIELD_LABELS, searchable_text
from mneme_tui.memory.index import days_since_epoch
from mneme_tui.memory.store import Store

NOW = datetime(2026, 11, 29, 12, 0, 0)  # tests/conftest.py fixes MNEME_NOW to this


def _save(store: Store, content: str, repo: str = "app") -> int:
    return store.mint(content, provenance=SYNCED, kind="fact", repo_id=repo, topic="General", created_at=NOW).id


def _ids(store: Store, query: str, **options) -> list[int]:
    return [r.memory.id for r in store.recall(query, repo=options.pop("repo", "app"), limit=10, **options)]


# --------------------------------------------------------------------------- field labels


@pytest.fixture
def imported(tmp_path: Path, store: Store) -> Store:
    """A Legion project whose records carry every field label, synced into the store as project ``proj``."""
    legion = LegionMemory.for_project(
        tmp_path / "project", branch_provider=lambda root: "main", claude_home=tmp_path / "home"
    )
    legion.memory_dir.mkdir(parents=True)
    (legion.memory_dir / "OUTCOMES.md").write_text(
        OUTCOMES.template + "| O-001 | 2026-10-01 | main | 1 | 01-01 | qa | frontend | success | 2 | ui | "
        "Checkout button restyled |\n",
        encoding="utf-8",
    )
    (legion.memory_dir / "ERRORS.md").write_text(
        ERRORS.template + "| E-001 | 2026-10-02 | release | TypeError: cart is undefined | guard the cart | "
        "reviewer | true | js |\n",
        encoding="utf-8",
    )
    (legion.memory_dir / "PREFERENCES.md").write_text(
        PREFERENCES.template + "| D-001 | 2026-10-03 | main | review-verdict | Phase 5 review | fix auth | "
        "accepted | positive | reviewer | review, auth |\n",
        encoding="utf-8",
    )
    sync(store, legion, "proj")
    assert len(store.list(repo_id="proj")) == 3
    return store


@pytest.mark.parametrize(
    "label",
    [
        "id",
        "branch",
        "tags",
        "date",
        "agent",
        "ID",
        "Branch",
        "Tags",
        "Date",
        "Agent",
        "resolved",
        "importance",
        "signal",
        "decision point",
        "user choice",
    ],
)
def test_imported_records_do_not_match_their_field_labels(imported: Store, label: str) -> None:
    assert imported.recall(label, repo="proj") == []


def test_imported_records_match_their_field_values(imported: Store) -> None:
    by_first_line = {m.first_line: m.id for m in imported.list(repo_id="proj")}
    outcome, error = by_first_line["Checkout button restyled"], by_first_line["TypeError: cart is undefined"]
    assert _ids(imported, "qa", repo="proj") == [outcome]  # the agent
    assert _ids(imported, "release", repo="proj") == [error]  # the branch
    by_relevance = max(imported.recall("O-001", repo="proj"), key=lambda r: r.components["relevance"])
    assert by_relevance.memory.id == outcome  # the record ID (D-001 and E-001 share only "001")
    assert set(_ids(imported, "reviewer", repo="proj")) == {error, by_first_line["Phase 5 review"]}


def test_searchable_text_cuts_only_a_whole_trailing_field_block() -> None:
    assert searchable_text("Head\n\nBody\n\nID: O-1\nTask type: ui\nBranch: main") == "Head\n\nBody\n\nO-1\nui\nmain"
    assert searchable_text("Head\n\nID: O-1\nDate: 2026-10-01\nRetro owner: qa") == "Head\n\nO-1\n2026-10-01\nqa"
    prose = "Refactored store.py\n\nTimezones: store.py stores naive UTC; comparing with aware datetimes raises."
    assert searchable_text(prose) == prose  # one closing "Word: ..." line is prose
    assert searchable_text("Head\n\nNote: a\nReason: b") == "Head\n\nNote: a\nReason: b"  # no Legion label
    assert searchable_text("Head\n\nID: O-1\nthe rest is prose") == "Head\n\nID: O-1\nthe rest is prose"
    assert searchable_text("Note: one line, no paragraph above") == "Note: one line, no paragraph above"
    assert searchable_text("Head\n\nnot a label: value") == "Head\n\nnot a label: value"


def test_every_label_the_mirror_writes_is_a_known_field_label(imported: Store) -> None:
    for memory in imported.list(repo_id="proj"):
        block = memory.content.rpartition("\n\n")[2]
        assert {line.partition(": ")[0] for line in block.splitlines()} <= FIELD_LABELS, memory.content


def test_a_closing_prose_line_keeps_its_first_word(store: Store) -> None:
    target = _save(store, "Refactored billing/invoice.py\n\nTimezones: store.py stores naive UTC.")
    assert _ids(store, "timezones") == [target]


def test_spec_profile_still_reads_the_stored_text_whole(imported: Store) -> None:
    """The spec profile is the spec's formula over the stored text, labels included (TC-MEM stay exact)."""
    assert imported.recall("branch", repo="proj", profile="spec")


# --------------------------------------------------------------------------- the relevance floor


def test_a_query_with_no_real_match_returns_nothing(store: Store) -> None:
    _save(store, "SQLite database is locked when two threads write")
    assert store.recall("zebra quantum", repo="app") == []
    assert store.recall("what is it about", repo="app") == []  # stop words only


def test_results_negligible_next_to_the_best_are_not_returned(store: Store) -> None:
    best = _save(store, "webhook signature verification rejects replayed settlement callbacks")
    for n in range(12):  # "payment" is everywhere: a memory sharing only it is a negligible match
        _save(store, f"payment note {n}")
    query = "payment webhook signature verification replayed settlement callbacks"
    unfiltered = _rank(store, query, ranking.Bm25Profile(floor=0.0, score_floor=0.0))
    top = max(row.components["bm25"] for row in unfiltered)
    kept = {row.memory_id for row in unfiltered if row.components["bm25"] >= ranking.RELEVANCE_FLOOR * top}
    assert len(unfiltered) == 10 and kept == {best}
    assert _ids(store, query) == [best]


def test_results_scoring_negligibly_next_to_the_top_are_not_returned(store: Store) -> None:
    """A match whose score rounds to 0 next to the top result (here: 600 days old, decay 0.0025) is left out."""
    fresh = _save(store, "sqlite wal checkpoint")
    old = store.mint(
        "sqlite wal checkpoint",
        provenance=SYNCED,
        kind="fact",
        repo_id="app",
        topic="General",
        created_at=NOW - timedelta(days=600),
    ).id
    rows = {
        row.memory_id: row.score for row in _rank(store, "sqlite wal checkpoint", ranking.Bm25Profile(score_floor=0.0))
    }
    assert rows[old] < ranking.SCORE_FLOOR * rows[fresh]
    assert _ids(store, "sqlite wal checkpoint") == [fresh]
    assert _ids(store, "sqlite wal checkpoint", profile="spec") == [fresh, old]  # the spec returns every score > 0


def _rank(store: Store, text: str, profile: ranking.Bm25Profile) -> list[ranking.RankedRow]:
    store.refresh_index()
    now_days = float(days_since_epoch([NOW.isoformat(sep=" ")])[0])
    return ranking.rank(store.index, ranking.RecallQuery(text, "app", now_days, limit=10), profile)


# --------------------------------------------------------------------------- one outlier memory


def test_one_very_long_memory_does_not_flatten_the_others(store: Store) -> None:
    texts = [
        "SQLite database is locked when two worker threads write",
        "The upload worker retries with jitter",
        "Worker threads need their own peewee connection",
        "Use the busy timeout pragma for sqlite",
        "Timeout errors in the payment webhook come from a slow bank API",
    ]
    ids = [_save(store, text) for text in texts]
    query = "sqlite database locked worker threads timeout"
    before = {r.memory.id: r.score for r in store.recall(query, repo="app", limit=10)}
    _save(store, "sqlite database locked worker threads timeout\n" + " ".join(f"line{n} of a log" for n in range(4000)))
    after = {r.memory.id: r.score for r in store.recall(query, repo="app", limit=10)}
    assert set(ids) <= set(after)
    for memory_id in ids:  # with BM25's mean length as avgdl they fell about tenfold
        assert before[memory_id] / 2 <= after[memory_id] <= before[memory_id] * 2


# --------------------------------------------------------------------------- identifiers as typed


@pytest.mark.parametrize("query", ["toBe", "hasOwn", "doIt", "__all__"])
def test_identifiers_made_of_stop_words_are_found(store: Store, query: str) -> None:
    target = _save(store, "expect(x).toBe(y) uses Object.is; Object.hasOwn(o, k); doIt() runs; __all__ lists exports")
    _save(store, "to be or not to be; do it; has own; all of it")
    assert _ids(store, query)[0] == target


def test_identifier_parts_are_still_found(store: Store) -> None:
    target = _save(store, "Open a connection_context in every worker thread")
    assert _ids(store, "connection") == [target]
    assert _ids(store, "connection_context") == [target]
    assert _ids(store, "ConnectionContext") == [target]
