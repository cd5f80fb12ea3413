"""Export (store -> Legion files) writes only what is known (issue 12; skill §13 and §2 file formats)."""

from __future__ import annotations

import shutil
from pathlib import Path

from provenances import SYNCED

from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.legion_records import PreferenceRecord
from mneme_tui.legion.markdown.schemas import PREFERENCES
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory.store import Store

P = "proj"
DOKAPON = "ace027__Dokapon-kingdom-2__PREFERENCES.md"


# §13 Preference boost: "positive signals: +1 each ... corrective signals: +0.5 each ... negative signals: -1 each".
# A saved preference observed none of these, so its export carries no Decision Point, Signal or Agent.
def test_a_saved_preference_becomes_a_learn_block_after_the_table(store: Store, memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    path = memory.memory_dir / "PREFERENCES.md"
    row = (
        "| D-001 | 2026-10-03 | main | review-verdict | Phase 5 review | fix auth | accepted | positive "
        "| agent-a | review |\n"
    )
    path.write_text(PREFERENCES.template + row, encoding="utf-8")
    saved = store.save(
        "Squash before merging\nKeeps main bisectable.\n\nAsk first.", kind="preference", topic="git", repo_id=P
    )
    report = sync(store, memory, P)
    assert [(e.action, e.record_id) for e in report.exports] == [("appended", "PRF-001")]
    text = path.read_text(encoding="utf-8")
    assert text == PREFERENCES.template + row + (
        "\n## PRF-001: Squash before merging\n- **Date**: 2026-10-15\n- **Type**: preference\n- **Branch**: main\n"
        "- **Tags**: git\n\nKeeps main bisectable.\n\nAsk first.\n\n---\n"
    )
    records = parse(text, "PREFERENCES.md").records
    assert [r.id for r in records] == ["D-001", "PRF-001"]
    assert memory.preference_boost("").positive == 0  # the block gives no signal to any agent
    assert store.get(saved.id).content == saved.content and not sync(store, memory, P).changed

    # a row recorded afterwards still goes into the table, and the block stays a record
    memory.record_preference(
        decision_point="agent-selection",
        context="pick",
        proposed="a",
        user_choice="a",
        signal="positive",
        agent="agent-b",
    )
    again = parse(path.read_text(encoding="utf-8"), "PREFERENCES.md")
    assert again.parseable and [r.id for r in again.records] == ["D-001", "D-002", "PRF-001"]
    totals = sync(store, memory, P).totals
    assert (totals["added"], totals["updated"], totals["unchanged"]) == (1, 0, 2)  # only the new row is new


def test_export_into_the_corpus_block_file_takes_the_next_prf_id(
    corpus: Path, store: Store, memory: LegionMemory
) -> None:
    """The Dokapon PREFERENCES.md holds only /legion:learn blocks: the export continues their numbering."""
    memory.memory_dir.mkdir(parents=True)
    path = memory.memory_dir / "PREFERENCES.md"
    shutil.copyfile(corpus / DOKAPON, path)
    original = path.read_text(encoding="utf-8")
    before = [r.id for r in parse(original, "PREFERENCES.md").records]
    store.save("Prefer fixtures over mocks", kind="preference", topic="testing", repo_id=P)
    report = sync(store, memory, P)
    highest = max(int(i.split("-")[1]) for i in before if i.startswith("PRF-"))
    assert [e.record_id for e in report.exports] == [f"PRF-{highest + 1:03d}"]
    text = path.read_text(encoding="utf-8")
    assert text.startswith(original)
    records = parse(text, "PREFERENCES.md").records
    assert [r.id for r in records] == [*before, f"PRF-{highest + 1:03d}"]
    new = records[-1]
    assert isinstance(new, PreferenceRecord) and new.context == "Prefer fixtures over mocks" and new.signal == ""


def test_pattern_export_names_no_agent_and_keeps_its_true_source(store: Store, memory: LegionMemory) -> None:
    memory.memory_dir.mkdir(parents=True)
    store.mint(
        "Blueprint for src\nfiles: a.py",
        provenance=SYNCED,
        kind="pattern",
        topic="pattern:src",
        repo_id=P,
        task_id="INT-1",
    )
    sync(store, memory, P)
    text = (memory.memory_dir / "PATTERNS.md").read_text(encoding="utf-8")
    assert "| mneme task INT-1 |" in text and "| mneme |" not in text


def test_a_body_line_that_would_end_the_block_is_escaped(store: Store, memory: LegionMemory) -> None:
    """A saved text holding a heading or a table row stays one block: one memory, one record."""
    memory.memory_dir.mkdir(parents=True)
    (memory.memory_dir / "PREFERENCES.md").write_text(PREFERENCES.template, encoding="utf-8")
    saved = store.save(
        "Title line\n## PRF-009: not a record\n| 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 |\nmore",
        kind="preference",
        topic="t",
        repo_id=P,
    )
    sync(store, memory, P)
    text = (memory.memory_dir / "PREFERENCES.md").read_text(encoding="utf-8")
    records = parse(text, "PREFERENCES.md").records
    assert [r.id for r in records] == ["PRF-001"] and "\\## PRF-009: not a record\n\\| 1 |" in text
    assert not sync(store, memory, P).changed and [m.id for m in store.list(repo_id=P)] == [saved.id]
