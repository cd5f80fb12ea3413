"""Property-based: any text in a memory file parses losslessly, and a record never removes another row."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mneme_tui.errors import MnemeError
from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.schemas import OUTCOMES
from mneme_tui.legion.skill.api import LegionMemory

CELL = st.text(alphabet=st.sampled_from(list("ab |\\-:#O0123\t`é")), max_size=8)
LINE = st.one_of(
    st.lists(CELL, min_size=1, max_size=13).map(lambda cells: "| " + " | ".join(cells) + " |"),
    st.lists(CELL, min_size=1, max_size=13).map(lambda cells: "| " + " | ".join(cells)),  # no closing pipe
    st.sampled_from(["", "## Records", "# Title", "---", "<<<<<<< HEAD", "prose line", "|---|---|"]),
    st.text(max_size=20).filter(lambda t: "\n" not in t and "\r" not in t),
)
BODY = st.lists(LINE, max_size=12).map(lambda lines: "\n".join(lines) + "\n")
FUZZ = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(BODY)
def test_any_text_parses_losslessly(body: str) -> None:
    text = OUTCOMES.template + body
    document = parse(text, "OUTCOMES.md")
    assert document.render() == text


@FUZZ
@given(BODY)
def test_a_record_keeps_every_line_that_was_there(body: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        memory = LegionMemory.for_project(
            Path(folder), branch_provider=lambda _root: "main", claude_home=Path(folder) / "h"
        )
        memory.memory_dir.mkdir(parents=True)
        outcomes = memory.memory_dir / "OUTCOMES.md"
        before = OUTCOMES.template + body
        outcomes.write_text(before, encoding="utf-8")
        try:
            stored = memory.record_outcome(agent="a", outcome="success", summary="fuzzed")
        except MnemeError:
            assert outcomes.read_text(encoding="utf-8") == before  # refused: nothing changed
            return
        after = outcomes.read_text(encoding="utf-8")
        lines_after = after.splitlines()
        for line in before.splitlines():
            assert line in lines_after  # every line is still there
        taken = {r.id for r in parse(before, "OUTCOMES.md").records}
        assert stored.record.id not in taken


@FUZZ
@given(BODY)
def test_a_byte_order_mark_changes_nothing_but_itself(body: str) -> None:
    text = OUTCOMES.template + body
    plain, marked = parse(text, "OUTCOMES.md"), parse("\ufeff" + text, "OUTCOMES.md")
    assert marked.render() == "\ufeff" + text
    assert [r.to_json() for r in marked.records] == [r.to_json() for r in plain.records]
    assert marked.warnings == plain.warnings


@FUZZ
@given(st.binary(min_size=1, max_size=300), st.integers(0, 300), st.binary(max_size=80))
def test_shrinking_in_place_keeps_what_was_appended(old: bytes, cut: int, appended: bytes) -> None:
    """``shrink_in_place`` leaves the new bytes followed by every byte appended after the file was read."""
    from mneme_tui.legion.markdown.inplace import journal_path, shrink_in_place

    new = old[: min(cut, len(old))][::-1]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "OUTCOMES.md"
        path.write_bytes(old + appended)  # ``appended`` came after the rewrite read ``old``
        shrink_in_place(path, new, len(old))
        assert path.read_bytes() == new + appended and not journal_path(path).exists()
