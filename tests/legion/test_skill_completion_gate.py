"""Skill Completion Gate, record operations: "New entry appended with all required fields populated
(no {placeholder} strings remaining)"."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme_tui.cli import main
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.markdown.schemas import reject_placeholders
from mneme_tui.legion.skill.api import LegionMemory


def test_placeholders_are_found_in_text_and_lists() -> None:
    for values in (
        {"summary": "Fixed {task type} for {agent}"},
        {"tags": ["ok", "{tag}"]},
        {"id": "O-{NNN}"},
        {"context": "Next ID = D-{count + 1}"},
    ):
        with pytest.raises(MnemeError) as caught:
            reject_placeholders(values)
        assert caught.value.code == ERR_VALIDATION_FAILED and "placeholder {" in str(caught.value)
    reject_placeholders({"summary": 'parsed {"a": 1} and set() {} fine', "tags": ["x"], "importance": 2})


def test_each_record_type_refuses_a_placeholder_and_writes_nothing(memory: LegionMemory) -> None:
    attempts = [
        lambda: memory.record_outcome(agent="a", outcome="success", summary="{summary}", task_type="build"),
        lambda: memory.record_pattern(pattern="Pattern: {describe what worked}"),
        lambda: memory.record_error(error_signature="TypeError in render", fix="{fix}"),
        lambda: memory.record_preference(
            decision_point="review-verdict", context="{context}", proposed="p", user_choice="u", signal="positive"
        ),
    ]
    for attempt in attempts:
        with pytest.raises(MnemeError, match="placeholder"):
            attempt()
    assert not memory.memory_dir.exists()


def test_cli_record_with_placeholder_is_one_line_exit_1(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "mem"
    code = main(
        [
            "legion",
            "record",
            "pattern",
            "--dir",
            str(folder),
            "--pattern",
            "x",
            "--source",
            "O-{NNN}",
            "--branch",
            "main",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and "{NNN}" in err
    assert not folder.exists()


ORDINARY_TEXT = [
    "Edited src/{a,b}.py in one go",
    "Reads ${HOME}/.config first",
    'import {x} from "y"',
    "Sends {json: 1} to the API",
    'import {foo, bar} from "lib"',
    "Jinja {{name}} stays",
    "a { x, y } destructuring",
    "regex a{2,3} and \\d{4}",
]
TEMPLATE_TEXT = [
    "{What was built, one bullet per plan}",
    "Phase {N}: {name}",
    "{archived_count} pruned",
    "{Pass/fail per requirement, one line each}",
    "| {task type} |",
    "{summary}",
]


@pytest.mark.parametrize("text", ORDINARY_TEXT)
def test_ordinary_text_with_braces_is_stored(memory: LegionMemory, text: str) -> None:
    """The gate refuses only template placeholders: braces in code, paths and shell text are content."""
    stored = memory.record_outcome(agent="a", outcome="success", summary=text)
    assert stored.action == "created" and memory.load("OUTCOMES.md").records[-1].summary == text  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", TEMPLATE_TEXT)
def test_template_placeholders_are_refused(memory: LegionMemory, text: str) -> None:
    with pytest.raises(MnemeError) as caught:
        memory.record_outcome(agent="a", outcome="success", summary=text)
    assert caught.value.code == ERR_VALIDATION_FAILED and "template placeholder {" in str(caught.value)
    assert not (memory.memory_dir / "OUTCOMES.md").exists()
