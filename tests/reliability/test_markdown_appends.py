"""Rows another writer appends (``echo '| ... |' >> OUTCOMES.md``, no lock) are never lost.

A subprocess appends raw rows to OUTCOMES.md and PREFERENCES.md while this process records outcomes,
syncs (exporting store-side preferences to PREFERENCES.md) and prunes (rewriting OUTCOMES.md and
ARCHIVE.md). Afterwards every hand row is in exactly one file, exactly once. A write that meets the file
changed on every one of its redos refuses with a one-line error and writes nothing (on a slow machine the
appender's few milliseconds between rows can be shorter than a redo): a refused record is not in the file, and
every record that was stored is there once.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from provenances import SAVED

from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.markdown.storage import LegionWriteError
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory.store import Store
from reliability.legion_projects import OLD_DATE, outcome_line, preference_line

OUTCOME_APPENDS = 300
PREFERENCE_APPENDS = 100

APPENDER = """
import random, sys, time
outcomes, preferences, count_o, count_p, old, seed = sys.argv[1:7]
rng = random.Random(int(seed))
lines = [("o", i) for i in range(int(count_o))] + [("p", i) for i in range(int(count_p))]
rng.shuffle(lines)
for kind, i in lines:
    if kind == "o":
        date = old if i % 2 else "2026-11-01"  # half of them prunable: prune moves them to ARCHIVE.md
        text = f"| H-{i:04d} | {date} | main | 1 | 01-01 | hand | manual | success | 2 | hand | hand row {i} |\\n"
        path = outcomes
    else:
        text = f"| HP-{i:04d} | 2026-11-01 | main | manual-edit | hand pref {i} | p | u | positive | hand | x |\\n"
        path = preferences
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
    time.sleep(rng.random() * 0.006)
"""


def _rows(path: Path) -> list[str]:
    document = parse(path.read_text(encoding="utf-8"), path.name)
    assert document.parseable, document.warnings
    return [segment.text.strip() for segment in document.segments if segment.kind == "row"]


def test_hand_appends_beside_record_sync_and_prune_are_never_lost(legion_project: LegionMemory, tmp_path: Path) -> None:
    memory = legion_project
    folder = memory.memory_dir
    store = Store(tmp_path / "mneme.db")
    appender = subprocess.Popen(
        [
            sys.executable,
            "-c",
            APPENDER,
            str(folder / "OUTCOMES.md"),
            str(folder / "PREFERENCES.md"),
            str(OUTCOME_APPENDS),
            str(PREFERENCE_APPENDS),
            OLD_DATE,
            "11",
        ]
    )
    step = 0
    stored, refused = [], []
    try:
        while appender.poll() is None or step < 12:
            action = step % 3
            try:
                if action == 0:
                    memory.record_outcome(agent="agent-b", outcome="success", summary=f"recorded {step}")
                    stored.append(f"recorded {step} |")
                elif action == 1:
                    store.mint(
                        f"exported preference {step}",
                        kind="preference",
                        topic="style",
                        repo_id="proj",
                        provenance=SAVED,
                    )
                    sync(store, memory, "proj")
                else:
                    memory.apply_prune(memory.prune_plan())
            except LegionWriteError as exc:  # the file changed on every redo: refused whole, nothing written
                assert "kept changing while it was being written" in str(exc).splitlines()[0]
                if action == 0:
                    refused.append(f"recorded {step} |")
            step += 1
    finally:
        appender.wait(timeout=120)
    assert appender.returncode == 0

    rows = _rows(folder / "OUTCOMES.md") + _rows(folder / "ARCHIVE.md")
    for i in range(OUTCOME_APPENDS):
        date = OLD_DATE if i % 2 else "2026-11-01"
        expected = f"| H-{i:04d} | {date} | main | 1 | 01-01 | hand | manual | success | 2 | hand | hand row {i} |"
        assert rows.count(expected) == 1, f"hand row {i} found {rows.count(expected)} times"
    preferences = _rows(folder / "PREFERENCES.md")
    for i in range(PREFERENCE_APPENDS):
        assert preferences.count(preference_line(f"HP-{i:04d}", f"hand pref {i}").strip()) == 1
    recorded = [r for r in rows if "| agent-b |" in r]
    assert stored and len(recorded) == len(set(recorded)) == len(stored)
    assert all(any(r.endswith(summary) for r in recorded) for summary in stored)
    assert not any(r.endswith(summary) for summary in refused for r in recorded)
    assert len(rows) == len(set(rows)), "a row is in OUTCOMES.md or ARCHIVE.md twice"
    assert outcome_line("O-021", "2026-11-20", "recent, kept", importance=5).strip() in rows
    # the next sync imports every record once: one memory per outcome row, and a second sync changes nothing
    sync(store, memory, "proj")
    again = sync(store, memory, "proj")
    assert again.totals["added"] == again.totals["updated"] == again.totals["exported"] == 0
    outcomes = store.list(status="all", repo_id="proj", kind="outcome", limit=None)
    assert len(outcomes) == len(rows)


def test_a_failed_verification_never_restores_over_a_newer_append(
    legion_project: LegionMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mneme_tui.legion.markdown import storage

    outcomes = legion_project.memory_dir / "OUTCOMES.md"
    hand = outcome_line("H-0001", "2026-11-02", "appended during verification")
    real_load = storage.load_document

    def append_then_lie(path, **kw):
        with open(outcomes, "a", encoding="utf-8") as handle:  # another writer, right after our write
            handle.write(hand)
        document = real_load(path, **kw)
        document.segments = [s for s in document.segments if "verified away" not in s.text]
        return document

    monkeypatch.setattr(storage, "load_document", append_then_lie)
    with pytest.raises(storage.LegionWriteError) as info:
        legion_project.record_outcome(agent="a", outcome="success", summary="verified away")
    assert "verified away" in info.value.record_text
    text = outcomes.read_text(encoding="utf-8")
    assert hand in text  # the newer bytes stay: no restore over them
    assert "left as is" in str(info.value).splitlines()[0]


HELD_OPEN_ROWS = 200
HELD_OPEN_APPENDER = """
import sys, time
path, count, old = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "a", encoding="utf-8", buffering=1) as handle:  # opened once, kept open: an agent's log handle
    print("open", flush=True)
    for i in range(count):
        handle.write(f"| K-{i:04d} | {old} | main | 1 | 01-01 | held | manual | success | 2 | held | held row {i} |\\n")
        time.sleep(0.004)
"""


def test_a_writer_holding_outcomes_open_keeps_every_row_through_prune(legion_project: LegionMemory) -> None:
    """An appender that opened OUTCOMES.md once writes 200 rows while prune --apply runs again and again."""
    memory = legion_project
    outcomes = memory.memory_dir / "OUTCOMES.md"
    appender = subprocess.Popen(
        [sys.executable, "-c", HELD_OPEN_APPENDER, str(outcomes), str(HELD_OPEN_ROWS), OLD_DATE],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert appender.stdout is not None and appender.stdout.readline().strip() == "open"
    prunes = 0
    try:
        while appender.poll() is None or prunes < 3:
            result = memory.apply_prune(memory.prune_plan())
            assert result.ok, result.message
            prunes += 1
    finally:
        appender.wait(timeout=120)
    assert appender.returncode == 0
    rows = _rows(outcomes) + _rows(memory.memory_dir / "ARCHIVE.md")
    lost = [i for i in range(HELD_OPEN_ROWS) if sum(f"| K-{i:04d} |" in row for row in rows) != 1]
    assert not lost, f"{len(lost)} of {HELD_OPEN_ROWS} held-open rows lost or doubled after {prunes} prunes"
    assert outcome_line("O-021", "2026-11-20", "recent, kept", importance=5).strip() in rows
