"""The lossless parser on synthetic files (runs without the corpus)."""

from __future__ import annotations

from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.legion_records import OutcomeRecord, PatternRecord
from mneme_tui.legion.skill.api import LegionMemory

MIXED = """# Memory — Outcome Log

## Records

| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |
|----|------|--------|-------|------|-------|-----------|---------|------------|------|---------|
| O-001 | 2026-10-01 | main | 1 | 01-01 | a | frontend | success | 2 | ui | first \\| with pipe |
| O-002 | 2026-10-02 | dev | 1 | 01-02 | b | backend | failed | 5 | api | second |

## Phase 1 — Shipped 2026-10-02
task_type: ship
result: success
| O-003 | 2026-10-03 | main | 2 | 02-01 | a | frontend | partial | 3 | ui | after the notes |
| O-002 | 2026-10-02 | feature | 1 | 01-02 | c | backend | success | 2 | api | merged duplicate |

- a bullet with a | pipe in it
| just | a stray line |

## PAT-001: Wave testing works
- **Date**: 2026-10-05
- **Tags**: testing, waves

Body text.

| Col | Other |
|-----|-------|
| x | y |

---
"""


def test_mixed_file_segments_and_records() -> None:
    doc = parse(MIXED, "OUTCOMES.md")
    assert doc.render() == MIXED and doc.parseable
    outcomes = [r for r in doc.records if isinstance(r, OutcomeRecord)]
    assert [r.id for r in outcomes] == ["O-001", "O-002", "O-003", "O-002"]
    assert outcomes[0].summary == "first | with pipe"
    assert [r.occurrence for r in outcomes] == [0, 0, 0, 1]
    assert [n.label for n in doc.not_imported()] == ["Phase 1 — Shipped 2026-10-02"]
    pattern = doc.records[-1]
    assert isinstance(pattern, PatternRecord) and pattern.pattern == "Wave testing works"
    assert "| x | y |" in pattern.body and pattern.tags == ["testing", "waves"]
    prose = "".join(s.text for s in doc.segments if s.kind == "prose")
    assert "a | pipe" in prose and "| just | a stray line |" in prose


def test_columns_in_any_order_and_missing_columns() -> None:
    text = (
        "| Summary | Agent | Importance | Outcome | Date |\n|---|---|---|---|---|\n"
        "| s | x | 4 | success | 2026-10-01 |\n"
    )
    (record,) = parse(text, "OUTCOMES.md").records
    assert isinstance(record, OutcomeRecord)
    assert (record.summary, record.agent, record.importance, record.branch, record.id) == ("s", "x", 4, "main", "")


def test_corrupt_row_makes_file_unparseable_but_render_is_kept() -> None:
    broken = MIXED.replace("| 5 | api | second |", "| 5 | second |")
    doc = parse(broken, "OUTCOMES.md")
    assert not doc.parseable and doc.records == [] and doc.render() == broken
    assert doc.warnings == [
        "Warning: OUTCOMES.md could not be parsed (line 8 has 10 cells, the table has 11). Proceeding without memory."
    ]


def test_bad_importance_is_a_warning_not_a_failure() -> None:
    doc = parse(MIXED.replace("| 5 | api | second |", "| high | api | second |"), "OUTCOMES.md")
    assert doc.parseable and doc.records[1].importance == 2  # type: ignore[attr-defined]
    assert doc.warnings == ["OUTCOMES.md line 8: importance 'high' is not a number; scored as 2"]


def test_store_into_block_only_file_appends_a_table(memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    original = "# Preferences\n\n## PRF-001: Use MCP\n- **Date**: 2026-09-26\n- **Signal**: positive\n\nText.\n\n---\n"
    path = memory.memory_dir / "PREFERENCES.md"
    path.write_text(original, encoding="utf-8")
    stored = memory.record_preference(
        decision_point="manual-edit", context="edit", proposed="p", user_choice="u", signal="corrective", agent="dev"
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith(original) and stored.record.id == "D-001"
    assert "\n## Preferences\n\n| ID | Date | Branch | Decision Point |" in text
    ids = [r.id for r in memory.recall_preferences().records]
    assert sorted(ids) == ["D-001", "PRF-001"]
    stored = memory.record_preference(
        decision_point="manual-edit", context="again", proposed="p", user_choice="u", signal="negative"
    )
    assert stored.record.id == "D-002" and path.read_text(encoding="utf-8").count("## Preferences") == 1


BOM_TABLE = (
    "\ufeff| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |\n"
    "|----|------|--------|-------|------|-------|-----------|---------|------------|------|---------|\n"
    "| O-001 | 2026-10-01 | main | 1 | 01-01 | a | frontend | success | 2 | ui | after a BOM |\n"
)


def test_a_byte_order_mark_before_the_header_is_read_and_kept() -> None:
    document = parse(BOM_TABLE, "OUTCOMES.md")
    assert document.parseable and [r.summary for r in document.records] == ["after a BOM"]  # type: ignore[attr-defined]
    assert document.records[0].line == 3 and document.render() == BOM_TABLE


def test_recording_into_a_file_with_a_bom_keeps_it_and_one_table(memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    path = memory.memory_dir / "OUTCOMES.md"
    path.write_text(BOM_TABLE, encoding="utf-8")
    memory.record_outcome(agent="b", outcome="success", summary="appended")
    text = path.read_text(encoding="utf-8")
    assert text.startswith(BOM_TABLE) and text.count("| ID |") == 1
    assert [r.summary for r in memory.load("OUTCOMES.md").records] == ["after a BOM", "appended"]  # type: ignore[attr-defined]
