"""Recall scoring: recency tiers, filters, the 200-record note, agent/archetype scores, briefing, recalls."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from mneme_tui.legion.markdown.schemas import ERRORS, PATTERNS, PREFERENCES
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.legion.skill.scoring import recency_weight

from .conftest import outcome_row, write_outcomes

TODAY = date(2026, 10, 15)


@pytest.mark.parametrize(
    ("when", "weight"),
    [
        ("2026-10-15", 1.0),
        ("2026-10-08", 1.0),
        ("2026-10-07", 0.7),
        ("2026-09-15", 0.7),
        ("2026-09-14", 0.4),
        ("2026-07-17", 0.4),
        ("2026-07-16", 0.1),
        ("2020-01-01", 0.1),
        ("someday", 0.4),
        ("", 0.4),
        ("2026-13-40", 0.4),
        ("2026-10-20", 1.0),
    ],
)
def test_recency_tiers(when: str, weight: float) -> None:
    assert recency_weight(when, TODAY) == weight


def test_recall_filters_decay_exclusion_and_sort(memory: LegionMemory) -> None:
    write_outcomes(
        memory,
        [
            outcome_row(1, "2026-10-14", importance=2, tags="ui, react"),
            outcome_row(2, "2026-09-20", importance=5, tags="api", task_type="backend", agent="agent-b"),
            outcome_row(3, "2026-01-01", importance=1, tags="ui"),  # 1 x 0.1 < 0.2: excluded
            outcome_row(4, "2026-01-01", importance=2, tags="ui"),  # 2 x 0.1 = 0.2: kept
            outcome_row(5, "not a date", importance=3, tags="ui", branch="feature/x"),  # 3 x 0.4
            outcome_row(6, "2026-10-10", importance=2, agent="agent-c, agent-a", tags="ui", task_type="frontend, qa"),
        ],
    )
    recall = memory.recall_outcomes()
    assert [r.id for r in recall.records] == ["O-002", "O-001", "O-006", "O-005", "O-004"]
    assert [r.decay_score for r in recall.records] == [3.5, 2.0, 2.0, 1.2, 0.2]
    assert recall.total_records == 6 and recall.note == ""
    assert [r.id for r in memory.recall_outcomes(tags=["UI"], agent="agent-a").records] == [
        "O-001",
        "O-006",
        "O-005",
        "O-004",
    ]
    assert [r.id for r in memory.recall_outcomes(task_type="qa").records] == ["O-006"]
    assert [r.id for r in memory.recall_outcomes(tags=["api", "react"], limit=1).records] == ["O-002"]
    assert [r.id for r in memory.recall_outcomes(branch="feature/x").records] == ["O-005"]
    assert "O-005" not in [r.id for r in memory.recall_outcomes(branch="current").records]
    data = recall.to_json()
    assert set(data["records"][0]) >= {
        "id",
        "date",
        "branch",
        "phase",
        "plan",
        "agent",
        "task_type",
        "outcome",
        "importance",
        "tags",
        "summary",
        "decay_score",
        "source_file",
        "line",
        "key",
    }


def test_default_limit_and_200_record_note(memory: LegionMemory) -> None:
    write_outcomes(memory, [outcome_row(n, "2026-10-14") for n in range(1, 201)])
    recall = memory.recall_outcomes()
    assert len(recall.records) == 20 and recall.note == ""
    write_outcomes(memory, [outcome_row(n, "2026-10-14") for n in range(1, 202)])
    recall = memory.recall_outcomes()
    assert recall.note == (
        "OUTCOMES.md has 201 records. Run `/legion:learn --prune` to archive old entries, "
        "or enable `memory.auto_prune` in settings.json."
    )
    assert memory.briefing().note == recall.note


def _score_rows() -> list[str]:
    return [
        outcome_row(1, "2026-10-14", agent="A", outcome="success", importance=2, task_type="frontend"),
        outcome_row(2, "2026-09-20", agent="A", outcome="failed", importance=5, task_type="frontend"),
        outcome_row(3, "2026-08-01", agent="A", outcome="success", importance=3, task_type="backend"),
        outcome_row(4, "2026-10-10", agent="B", outcome="success", importance=2, task_type="frontend"),
        outcome_row(5, "2026-01-01", agent="C", outcome="success", importance=1, task_type="frontend"),
        outcome_row(6, "2026-10-01", agent="C", outcome="partial", importance=2, task_type="frontend"),
        outcome_row(7, "2026-10-15", agent="D", outcome="success", importance=5, task_type="backend"),
        outcome_row(8, "2026-10-12", agent="D", outcome="success", importance=5, task_type="backend"),
    ]


def test_agent_scores_hand_computed(memory: LegionMemory) -> None:
    write_outcomes(memory, _score_rows())
    scores = memory.agent_scores()
    assert [s.agent_id for s in scores] == ["D", "A"]  # B has 1 record; C has 1 after the 0.2 floor
    d, a = scores
    assert d.memory_score == 5.0  # (1.0*3 + 5*0.5) * 1.0 = 5.5 -> clamped
    assert (a.total_tasks, a.successes, a.failures) == (3, 2, 1)
    assert a.avg_importance == pytest.approx(10 / 3) and a.avg_recency_weight == pytest.approx(0.7)
    assert a.memory_score == pytest.approx((2 / 3 * 3.0 + 10 / 3 * 0.5) * 0.7)  # 2.5667
    only_backend = memory.agent_scores(["backend"], match="either")  # the Task Type column too
    assert [s.agent_id for s in only_backend] == ["D"]
    assert memory.agent_scores(["backend"]) == []  # spec §4: query_tags = task_types (these rows are tagged ui)
    assert [s.agent_id for s in memory.agent_scores(["ui"])] == ["D", "A"]


def test_archetype_scores_hand_computed(memory: LegionMemory) -> None:
    write_outcomes(memory, _score_rows())
    scores = {s.task_type: s for s in memory.archetype_scores()}
    assert list(scores) == ["frontend", "backend"]  # 4 vs 3 outcomes (O-005 excluded by decay)
    front = scores["frontend"]
    assert front.total_outcomes == 4 and front.agents == ["A", "B", "C"]
    assert front.success_rate == pytest.approx(2 / 4) and front.avg_importance == pytest.approx(11 / 4)
    assert front.top_agent == "A"  # only agent with >= 2 frontend outcomes
    back = scores["backend"]
    assert back.success_rate == 1.0 and back.avg_importance == pytest.approx(13 / 3) and back.top_agent == "D"
    assert [s.task_type for s in memory.archetype_scores(["backend"])] == ["backend"]
    assert back.to_json()["top_agent"] == "D"


def test_briefing(memory: LegionMemory) -> None:
    write_outcomes(memory, _score_rows())
    brief = memory.briefing()
    assert brief.total_records == 8
    assert [r.id for r in brief.recent_outcomes] == ["O-007", "O-008", "O-002", "O-001", "O-004"]
    assert [(a.agent_id, a.total_tasks) for a in brief.top_agents] == [("A", 3), ("D", 2), ("C", 2)]
    assert brief.claude_memory == ""
    assert brief.to_json()["recent_outcomes"][0]["decay_score"] == 5.0


def test_briefing_reads_claude_memory_read_only(memory: LegionMemory, project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "home/.claude/projects" / str(project.resolve()).replace("/", "-") / "memory"
    folder.mkdir(parents=True)
    content = "\n".join(f"- preference line {n}" for n in range(40))
    (folder / "MEMORY.md").write_text(content, encoding="utf-8")
    before = {p: p.stat().st_mtime_ns for p in folder.parent.rglob("*")}
    excerpt = memory.briefing().claude_memory
    assert excerpt.startswith("- preference line 0") and "line 11" in excerpt and "line 12" not in excerpt
    assert len(excerpt) <= 502
    assert {p: p.stat().st_mtime_ns for p in folder.parent.rglob("*")} == before


PATTERN_ROWS = """| P-001 | 2026-06-01 | main | old | c | r | O-001 | testing |
| P-002 | 2026-10-14 | feature | new | c | r | O-002 | testing, waves |
| P-003 | 2026-09-30 | main | mid | c | r | O-003 | ui |
"""


def test_pattern_recall_is_recency_only(memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    (memory.memory_dir / "PATTERNS.md").write_text(PATTERNS.template + PATTERN_ROWS, encoding="utf-8")
    found = memory.recall_patterns()
    assert [r.id for r in found.records] == ["P-002", "P-003", "P-001"]
    assert [r.recency_weight for r in found.records] == [1.0, 0.7, 0.1]
    assert [r.id for r in memory.recall_patterns(tags=["testing"], branch="main").records] == ["P-001"]
    assert [r.id for r in memory.recall_patterns(limit=1).records] == ["P-002"]


ERROR_ROWS = """| E-001 | 2026-10-01 | main | ECONNREFUSED 127.0.0.1:5432 connecting postgres | start db | a | false | db |
| E-002 | 2026-09-01 | main | postgres connection refused on port 5432 | restart container | b | true | db |
| E-003 | 2026-10-10 | main | TypeError map undefined | guard | c | true | ui |
"""


def test_error_recall_resolved_first_then_overlap(memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    (memory.memory_dir / "ERRORS.md").write_text(ERRORS.template + ERROR_ROWS, encoding="utf-8")
    found = memory.recall_errors(error_text="connect ECONNREFUSED 127.0.0.1:5432 - is postgres running?")
    assert [r.id for r in found.records] == ["E-002", "E-001"]
    assert [r.match_score for r in found.records] == [2, 4]  # postgres,5432 | econnrefused,127,5432,postgres
    assert [r.id for r in memory.recall_errors(tags=["ui"]).records] == ["E-003"]
    assert len(memory.recall_errors().records) == 3


PREF_ROWS = """| D-001 | 2026-10-01 | main | review-verdict | c | p | u | positive | agent-a | review |
| D-002 | 2026-10-02 | main | manual-edit | c | p | u | corrective | agent-a | edit |
| D-003 | 2026-10-03 | dev | review-override | c | p | u | negative | agent-b | review |
| D-004 | 2026-10-14 | main | review-verdict | c | p | u | positive | agent-a | review |
| D-005 | 2026-10-05 | main | manual-edit | c | p | u | corrective | agent-a | edit |
"""


def test_preference_recall_filters_and_boost(memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    (memory.memory_dir / "PREFERENCES.md").write_text(PREFERENCES.template + PREF_ROWS, encoding="utf-8")
    assert [r.id for r in memory.recall_preferences().records] == ["D-004", "D-005", "D-003", "D-002", "D-001"]
    assert [r.id for r in memory.recall_preferences(signal="corrective").records] == ["D-005", "D-002"]
    assert [r.id for r in memory.recall_preferences(decision_point="review-verdict", agent="agent-a").records] == [
        "D-004",
        "D-001",
    ]
    assert [r.id for r in memory.recall_preferences(tags=["review"], branch="dev").records] == ["D-003"]
    boost = memory.preference_boost("agent-a")
    assert (boost.positive, boost.corrective, boost.negative) == (2, 2, 0)
    assert boost.preference_score == 3.0 and boost.preference_boost == 1.5
    assert memory.preference_boost("agent-b").preference_boost == -0.5


def test_superseded_preferences_are_skipped_by_default(memory: LegionMemory, corpus: Path) -> None:
    memory.memory_dir.mkdir(parents=True)
    text = (corpus / "ace027__Dokapon-kingdom-2__PREFERENCES.later.md").read_text(encoding="utf-8")
    (memory.memory_dir / "PREFERENCES.md").write_text(text, encoding="utf-8")
    ids = [r.id for r in memory.recall_preferences().records]
    assert "PRF-003" not in ids and "PRF-006" in ids and len(ids) == 5
    assert len(memory.recall_preferences(include_superseded=True).records) == 6
