"""The legion package stays free of Textual/Rich, and the speed check runs."""

from __future__ import annotations

import subprocess
import sys

from mneme_tui.legion.bench import bench_import


def test_legion_does_not_import_textual_or_rich() -> None:
    code = (
        "import sys, mneme_tui.legion, mneme_tui.legion.api, mneme_tui.legion.compaction, mneme_tui.legion.bench;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_bench_import_reports_a_timing() -> None:
    result = bench_import(rows=300, repeats=1)
    assert result["rows"] == result["records"] == 300
    assert result["parse_seconds"] >= 0 and "within_target" in result
