"""A prune beside a process that holds OUTCOMES.md open: cut under a lease, or padded, never a row lost.

Without another descriptor on the file, prune cuts it (a Linux file lease keeps openers out meanwhile).
With one, the file keeps its length: the bytes after the new content become spaces at the end of its
last row, the next appended row still follows the table, and a later prune takes the padding off.
A shrink that would pad more than ``MAX_PADDING`` bytes is refused before anything changes.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from mneme_tui.legion.markdown import inplace
from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.skill.api import LegionMemory
from reliability.legion_projects import OLD_DATE, outcome_line

LEASES = sys.platform == "linux"


def _padded_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line != line.rstrip(" ")]


@pytest.mark.skipif(not LEASES, reason="file leases are Linux only")
def test_a_prune_with_no_other_opener_cuts_the_file(legion_project: LegionMemory) -> None:
    outcomes = legion_project.memory_dir / "OUTCOMES.md"
    result = legion_project.apply_prune(legion_project.prune_plan())
    assert result.ok and result.archived == 20
    text = outcomes.read_text(encoding="utf-8")
    assert not _padded_lines(text)
    assert text.endswith(outcome_line("O-021", "2026-11-20", "recent, kept", importance=5))


def test_a_prune_beside_an_open_writer_pads_and_the_next_prune_cuts_the_padding(legion_project: LegionMemory) -> None:
    outcomes = legion_project.memory_dir / "OUTCOMES.md"
    size = outcomes.stat().st_size
    with open(outcomes, "a", encoding="utf-8") as writer:  # a second descriptor: no lease can be had
        result = legion_project.apply_prune(legion_project.prune_plan())
        assert result.ok and result.archived == 20
        assert outcomes.stat().st_size == size
        writer.write(outcome_line("K-0001", OLD_DATE, "written through the open handle"))
        writer.flush()
        text = outcomes.read_text(encoding="utf-8")
        [padded] = _padded_lines(text)
        assert padded.startswith("| O-021 |") and padded.rstrip(" ").endswith("|")
        assert text.endswith(padded + "\n" + outcome_line("K-0001", OLD_DATE, "written through the open handle"))
        document = parse(text, "OUTCOMES.md")
        assert document.parseable and document.render() == text
        assert [r.id for r in document.records] == ["O-021", "K-0001"]
        assert document.records[0].summary == "recent, kept"
    again = legion_project.apply_prune(legion_project.prune_plan())
    assert again.ok and again.archived_ids == ["K-0001"]
    text = outcomes.read_text(encoding="utf-8")
    assert not _padded_lines(text) or not LEASES
    if LEASES:
        assert text.endswith(outcome_line("O-021", "2026-11-20", "recent, kept", importance=5))
    archive = (legion_project.memory_dir / "ARCHIVE.md").read_text(encoding="utf-8")
    assert not _padded_lines(archive)


HOLDER = """
import sys
with open(sys.argv[1], "a", encoding="utf-8") as handle:
    print("open", flush=True)
    sys.stdin.read()
"""


@pytest.mark.skipif(not LEASES, reason="naming the holder reads /proc")
def test_a_prune_that_would_pad_too_much_is_refused_naming_the_holder(
    legion_project: LegionMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inplace, "MAX_PADDING", 100)
    folder = legion_project.memory_dir
    before = {
        name: (folder / name).read_bytes() if (folder / name).exists() else None
        for name in ("OUTCOMES.md", "ARCHIVE.md")
    }
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder / "OUTCOMES.md")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        result = legion_project.apply_prune(legion_project.prune_plan())
    finally:
        holder.communicate("", timeout=30)
    assert not result.ok
    assert f"pid {holder.pid} (python" in result.message and "appending" in result.message
    assert "limit is 100" in result.message
    after = {
        name: (folder / name).read_bytes() if (folder / name).exists() else None
        for name in ("OUTCOMES.md", "ARCHIVE.md")
    }
    assert after == before
    assert not list(folder.glob(".*journal*"))
    assert legion_project.apply_prune(legion_project.prune_plan()).ok  # the holder is gone: it goes through


def test_unpadded_takes_only_the_spaces_after_a_rows_closing_pipe() -> None:
    assert inplace.unpadded("| a | b |     \n") == "| a | b |\n"
    assert inplace.unpadded("| a | b |  \r\n") == "| a | b |\r\n"
    assert inplace.unpadded("| a | b |\n") == "| a | b |\n"
    assert inplace.unpadded("prose with a hard break  \n") == "prose with a hard break  \n"
    assert inplace.unpadded("padded prose" + " " * 300 + "\n") == "padded prose  \n"
    assert inplace.unpadded("prose \n") == "prose \n"
    assert inplace.unpadded("    \n") == "\n"
    assert inplace.unpadded("| a | b |   ") == "| a | b |"
