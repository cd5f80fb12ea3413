"""Writers do not block each other: ``mneme save`` beside a sync exporting 1,500 memories succeeds.

The export writes each file once (one write point per file) and holds the database lock only for the
database work, so saves beside it never wait out their busy timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from provenances import SAVED

from mneme_tui.legion.markdown.document import parse
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory.store import Store

PENDING = 1500


def test_saves_beside_a_large_sync_all_succeed(legion_project: LegionMemory, tmp_path: Path) -> None:
    db = tmp_path / "mneme.db"
    store = Store(db)
    store.mint_many(
        [
            {
                "content": f"exported preference number {n}",
                "kind": "preference",
                "topic": "style",
                "provenance": SAVED,
                "repo_id": "proj",
            }
            for n in range(PENDING)
        ]
    )
    store.close()
    trace = tmp_path / "points.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEME_FAULT")}
    env["MNEME_DB"] = str(db)
    sync_run = subprocess.Popen(
        [sys.executable, "-m", "mneme_tui", "legion", "sync", "--dir", str(legion_project.memory_dir), "-p", "proj"],
        env={**env, "MNEME_FAULT_TRACE": str(trace)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    saves = []
    while sync_run.poll() is None or len(saves) < 3:
        saves.append(
            subprocess.run(
                [sys.executable, "-m", "mneme_tui", "save", f"saved beside sync {len(saves)}", "-p", "proj"],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        )
    _, sync_err = sync_run.communicate(timeout=300)
    assert sync_run.returncode == 0, sync_err
    assert [s.returncode for s in saves] == [0] * len(saves), [s.stderr for s in saves if s.returncode]
    points = trace.read_text(encoding="utf-8").split()
    assert [p for p in points if p.endswith("PREFERENCES.md")] == ["append:PREFERENCES.md"]  # written once
    text = (legion_project.memory_dir / "PREFERENCES.md").read_text(encoding="utf-8")
    blocks = [s for s in parse(text, "PREFERENCES.md").segments if s.kind == "block"]  # exported as PRF blocks
    assert len(blocks) == PENDING
    store = Store(db)
    try:
        saved = [
            m
            for m in store.list(repo_id="proj", kind="reflection", limit=None)
            if m.content.startswith("saved beside sync")
        ]
        assert len(saved) == len(saves)
    finally:
        store.close()


def test_two_syncs_at_once_export_each_memory_once(legion_project: LegionMemory, tmp_path: Path) -> None:
    db = tmp_path / "mneme.db"
    store = Store(db)
    store.mint_many(
        [
            {"content": f"pending preference {n}", "kind": "preference", "repo_id": "proj", "provenance": SAVED}
            for n in range(300)
        ]
    )
    store.close()
    env = {**os.environ, "MNEME_DB": str(db)}
    command = [
        sys.executable,
        "-m",
        "mneme_tui",
        "legion",
        "sync",
        "--dir",
        str(legion_project.memory_dir),
        "-p",
        "proj",
    ]
    runs = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    for run in runs:
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    text = (legion_project.memory_dir / "PREFERENCES.md").read_text(encoding="utf-8")
    assert len([s for s in parse(text, "PREFERENCES.md").segments if s.kind == "block"]) == 300
    store = Store(db)
    try:
        assert len(store.list(status="all", repo_id="proj", kind="preference", limit=None)) == 300
    finally:
        store.close()
