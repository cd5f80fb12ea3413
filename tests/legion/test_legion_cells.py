"""The table cell codec and the write -> read round trip of arbitrary record text."""

from __future__ import annotations

import tempfile
from dataclasses import fields as dc_fields
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mneme_tui.legion.markdown.cells import escape_cell, is_row_line, join_row, split_row, unescape_cell
from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.legion_records import ErrorRecord, OutcomeRecord, PatternRecord, PreferenceRecord
from mneme_tui.legion.markdown.schemas import ERRORS, OUTCOMES, PATTERNS, PREFERENCES
from mneme_tui.legion.skill.api import LegionMemory

POSITION = {"source_file", "line", "occurrence", "layout", "recency_weight", "decay_score", "match_score"}


def test_escapes_are_documented_and_reversible() -> None:
    assert escape_cell("a|b") == "a\\|b"
    assert escape_cell("a\\b") == "a\\\\b"
    assert escape_cell("one\ntwo\r\n") == "one\\ntwo\\r\\n"
    assert escape_cell(" padded ") == "\\u{20}padded\\u{20}"
    for value in ["a|b", "x\\|y", "\\", "|", "\n", "[bold]x[/]", "C:\\path\\n", " ", ""]:
        assert unescape_cell(escape_cell(value)) == value


def test_legacy_backslashes_read_literally() -> None:
    assert unescape_cell("C:\\path") == "C:\\path"
    assert unescape_cell("trailing\\") == "trailing\\"


def test_split_row_honours_escaped_pipes() -> None:
    assert split_row("| a \\| b | c |") == ["a | b", "c"]
    assert split_row(join_row(["x|y", "z\\", "w\nv"])) == ["x|y", "z\\", "w\nv"]
    assert split_row("| a | b") is None  # text after the last pipe: not a row
    assert not is_row_line("- Plans: 21/21 (100%) | Review first-pass: 7/8")
    assert is_row_line("|a|")


text = st.text(max_size=40)
tag = st.text(min_size=1, max_size=12).map(lambda t: t.replace(",", ";").strip()).filter(bool)
tags = st.lists(tag, max_size=4, unique=True)
branch = st.text(min_size=1, max_size=15)

records = st.one_of(
    st.builds(
        OutcomeRecord,
        id=text,
        date=text,
        branch=branch,
        phase=text,
        plan=text,
        agent=text,
        task_type=text,
        outcome=text,
        importance=st.integers(1, 5),
        tags=tags,
        summary=text,
    ),
    st.builds(
        PatternRecord,
        id=text,
        date=text,
        branch=branch,
        pattern=text,
        context=text,
        reuse_criteria=text,
        source=text,
        tags=tags,
    ),
    st.builds(
        ErrorRecord,
        id=text,
        date=text,
        branch=branch,
        error_signature=text,
        fix=text,
        agent=text,
        resolved=st.booleans(),
        tags=tags,
    ),
    st.builds(
        PreferenceRecord,
        id=text,
        date=text,
        branch=branch,
        decision_point=text,
        context=text,
        proposed=text,
        user_choice=text,
        signal=text,
        agent=text,
        tags=tags,
    ),
)
SCHEMAS = {"outcome": OUTCOMES, "pattern": PATTERNS, "error": ERRORS, "preference": PREFERENCES}


def _content(record) -> dict:
    return {f.name: getattr(record, f.name) for f in dc_fields(record) if f.name not in POSITION}


@settings(max_examples=300, deadline=None, database=None)
@given(records)
def test_any_record_survives_render_and_parse(record) -> None:
    schema = SCHEMAS[record.kind]
    doc = parse(schema.template, schema.file_name)
    doc.append_row(record, schema)
    text_out = doc.render()
    again = parse(text_out, schema.file_name)
    assert again.parseable
    assert len(again.records) == 1
    assert _content(again.records[0]) == _content(record)
    assert again.render() == text_out


@settings(max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    summary=st.text(min_size=1).filter(str.strip),
    agent=st.text(min_size=1, max_size=30).filter(str.strip),
    plan=text,
    tag_list=tags,
)
def test_stored_outcome_reads_back_unchanged(summary: str, agent: str, plan: str, tag_list: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        memory = LegionMemory.for_project(
            Path(folder), branch_provider=lambda root: "feature/x|y", claude_home=Path(folder)
        )
        stored = memory.record_outcome(
            agent=agent,
            outcome="success",
            summary=summary,
            plan=plan,
            task_type="frontend",
            tags=tag_list,
            importance=3,
        )
        (back,) = memory.read_all().file("OUTCOMES.md").records  # type: ignore[union-attr]
        assert back.summary == summary and back.agent == agent.strip() and back.plan == plan
        assert back.tags == tag_list and back.branch == "feature/x|y"
        assert _content(back) == _content(stored.record)
