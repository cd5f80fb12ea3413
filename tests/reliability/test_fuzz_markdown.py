"""Property-based fuzz of Legion markdown tables: cells with pipes, backslashes, escapes, unicode and control
characters. The cell codec and row splitting round-trip exactly; any file text parses and renders back to the
same bytes without raising; and a record written through ``mneme legion record`` reads back with the same
values. Seeded and bounded."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))  # cli_harness, in any import mode

from cli_harness import run

from mneme_tui.legion.markdown.cells import escape_cell, join_row, split_row, unescape_cell
from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.schemas import OUTCOMES, TABLE_SCHEMAS

FUZZ = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

PIECES = [
    "|",
    "\\",
    "\\|",
    "\\\\",
    "\\n",
    "\\u{41}",
    "\\u{zz}",
    "\\x",
    "[bold]",
    "[/x]",
    "`",
    "**",
    "---",
    " ",
    "\t",
    "\n",
    "\r",
    "\x1b",
    "\x00",
    "\u2028",
    "é",
    "💥",
    "O-001",
    "PIT-001",
]
cells = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=6).map("".join)


@FUZZ
@given(value=cells)
def test_cell_codec_round_trips(value: str) -> None:
    escaped = escape_cell(value)
    assert unescape_cell(escaped) == value
    assert "\n" not in escaped and "\r" not in escaped


@FUZZ
@given(values=st.lists(cells, min_size=1, max_size=6))
def test_rows_split_back_into_their_values(values: list[str]) -> None:
    assert split_row(join_row(values)) == values


raw_cells = st.one_of(cells.map(lambda v: v.replace("\n", " ").replace("\r", " ")), st.sampled_from(PIECES))


@st.composite
def markdown_files(draw) -> str:
    """Text as agents and editors write it: headers of the real tables, separators, rows (escaped or raw,
    sometimes with a cell too many or no closing pipe), prose, heading blocks, CRLF, no final newline."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["header", "separator", "row", "raw-row", "prose", "heading", "block", "blank"]))
        if kind == "header":
            schema = draw(st.sampled_from(TABLE_SCHEMAS))
            lines.append("| " + " | ".join(schema.columns) + " |")
        elif kind == "separator":
            lines.append("|" + "---|" * draw(st.integers(1, 12)))
        elif kind == "row":
            lines.append(join_row(draw(st.lists(cells, min_size=1, max_size=12))))
        elif kind == "raw-row":
            row = "| " + " | ".join(draw(st.lists(raw_cells, min_size=1, max_size=12)))
            lines.append(row + draw(st.sampled_from([" |", "", " | extra"])))
        elif kind == "heading":
            lines.append(draw(st.sampled_from(["# ", "## ", "### "])) + draw(raw_cells))
        elif kind == "block":
            lines += [f"## PIT-00{draw(st.integers(1, 9))}: {draw(raw_cells)}", f"- **Date**: {draw(raw_cells)}"]
        elif kind == "prose":
            lines.append(draw(raw_cells))
        else:
            lines.append("")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + draw(st.sampled_from([newline, ""]))


@FUZZ
@given(
    text=markdown_files(),
    name=st.sampled_from(
        ["OUTCOMES.md", "PATTERNS.md", "ERRORS.md", "PREFERENCES.md", "ARCHIVE.md", "PITFALLS.md", "RETRO.md"]
    ),
)
def test_any_file_parses_and_renders_back_byte_for_byte(text: str, name: str) -> None:
    document = parse(text, name)
    assert document.render() == text
    for record in document.records:
        assert isinstance(record.to_json(), dict)


@pytest.fixture
def legion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / ".planning" / "memory"
    folder.mkdir(parents=True)
    (folder / OUTCOMES.file_name).write_text(OUTCOMES.template)
    return folder


one_line = cells.filter(lambda v: v.strip() and not v.startswith("-") and "\x00" not in v)


@settings(FUZZ, max_examples=40)
@given(summary=one_line, agent=one_line.filter(lambda v: len(v) < 40))
def test_recorded_cells_read_back_unchanged(legion: Path, summary: str, agent: str) -> None:
    before = (legion / OUTCOMES.file_name).read_bytes()
    argv = [
        "legion",
        "record",
        "outcome",
        "--dir",
        str(legion),
        "--agent",
        agent,
        "--outcome",
        "success",
        "--summary",
        summary,
        "--branch",
        "main",
        "--json",
    ]
    result = run(argv)
    assert result.code in (0, 1) and "Traceback" not in result.err
    if result.code == 1:  # refused (e.g. a control character): one line, file untouched
        assert result.err.count("\n") == 1 and (legion / OUTCOMES.file_name).read_bytes() == before
        return
    recorded = json.loads(result.out)["record"]
    recall = run(["legion", "recall", "--dir", str(legion), "--json", "-n", "1000"])
    assert recall.code == 0, recall.err
    found = {r["id"]: r for r in json.loads(recall.out)["records"]}[recorded["id"]]
    assert (found["summary"], found["agent"]) == (recorded["summary"], recorded["agent"])
    assert recorded["summary"] in (summary, summary.strip()) and recorded["agent"] in (agent, agent.strip())
    assert (
        parse((legion / OUTCOMES.file_name).read_text(), OUTCOMES.file_name).render()
        == (legion / OUTCOMES.file_name).read_text()
    )
