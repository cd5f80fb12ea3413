"""The demo workspace is realistic, self-contained and deterministic; the TUI layers stay apart."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path

from mneme_tui.demo import build_demo_workspace
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory.store import Store

NOW = datetime(2026, 3, 1, 12, 0, 0)


def _snapshot(ws) -> tuple:
    store = Store(ws.db_path)
    try:
        rows = [m.to_json() for m in store.list(status="all", limit=None, order="id")]
    finally:
        store.close()
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(ws.legion_dir.glob("*.md"))}
    return rows, files


def test_the_demo_is_deterministic(tmp_path: Path):
    first = _snapshot(build_demo_workspace(tmp_path / "a", NOW))
    second = _snapshot(build_demo_workspace(tmp_path / "b", NOW))
    assert first == second


def test_the_demo_has_what_every_screen_needs(tmp_path: Path):
    ws = build_demo_workspace(tmp_path / "ws", NOW)
    store = Store(ws.db_path)
    try:
        counts = store.status_counts()
        assert 200 <= counts["all"] <= 1000
        assert counts["superseded"] and counts["tombstoned"]
        assert len(store.repos()) >= 4
        assert len(store.kind_status_counts()) >= 8
    finally:
        store.close()
    legion = LegionMemory(ws.legion_dir, claude_home=ws.claude_home)
    report = legion.read_all()
    for name in ("OUTCOMES.md", "PATTERNS.md", "ERRORS.md", "PREFERENCES.md"):
        assert report.file(name).record_count > 0 and report.file(name).parseable
    assert not report.warnings
    assert legion.prune_plan().candidates
    assert legion.briefing().claude_memory


def test_demo_and_tui_imports_keep_their_layers():
    probe = "import sys, mneme_tui.demo, mneme_tui.tui.launch; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"  # neither the demo nor launching the CLI path imports Textual eagerly


def test_the_tui_bench_runs_on_a_small_store():
    from mneme_tui.bench.tui_bench import TARGETS_MS, bench_tui

    result = bench_tui(300, queries=("cache",), dismissals=2)
    for name in TARGETS_MS:
        assert result[name] > 0
    assert result["keystrokes"] == 5 and result["size"] == 300
