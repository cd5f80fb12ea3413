"""The default ranking finds imported Legion records whose words match the query, whatever their kind and age."""

from __future__ import annotations

from mneme_tui.legion.markdown.schemas import PREFERENCES
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory.ranking import DEFAULT_PROFILE
from mneme_tui.memory.store import Store

from .conftest import outcome_row, write_outcomes

SEVEN_WEEKS_AGO = "2026-08-27"  # the clock is 2026-10-15


def test_word_for_word_outcomes_rank_top_three_by_default(store: Store, memory: LegionMemory) -> None:
    write_outcomes(
        memory,
        [
            outcome_row(
                1, SEVEN_WEEKS_AGO, outcome="failure", task_type="e2e", summary="playwright booking flow failed"
            ),
            outcome_row(
                2, "2026-08-28", outcome="failure", task_type="e2e", summary="playwright booking flow failed again"
            ),
            *(outcome_row(n, "2026-10-14", summary=f"refactored the cart page step {n}") for n in range(3, 12)),
        ],
    )
    (memory.memory_dir / "PREFERENCES.md").write_text(
        PREFERENCES.template
        + (
            "| D-001 | 2026-10-14 | main | review-verdict | Phase 5 review | keep commits small | accepted | positive "
            "| agent-a | review |\n"
        ),
        encoding="utf-8",
    )
    sync(store, memory, "proj")
    assert DEFAULT_PROFILE == "bm25"
    results = store.recall("playwright booking flow failed", repo="proj", limit=10)
    top = [r.memory.content.splitlines()[0] for r in results[:3]]
    assert {"playwright booking flow failed", "playwright booking flow failed again"} <= set(top)
    assert all(r.profile == "bm25" for r in results)
    assert all("keep commits small" not in r.memory.content for r in results)  # no matching word: not returned
    spec = store.recall("playwright booking flow failed", repo="proj", limit=10, profile="spec")
    assert spec[0].profile == "spec"  # still one argument away
