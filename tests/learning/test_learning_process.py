"""The learning commands run as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def test_task_sync_and_handshake_as_a_subprocess(tmp_path, repo_root, make_report):
    report = tmp_path / "report.json"
    report.write_text(json.dumps(make_report()))
    env = {**os.environ, "MNEME_DB": str(tmp_path / "sub.db"), "MNEME_NOW": "2026-03-01T09:00:00"}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mneme_tui", *argv], capture_output=True, text=True, env=env)

    synced = run("task", "sync", str(report), "--root", str(repo_root), "--json")
    assert synced.returncode == 0, synced.stderr
    assert json.loads(synced.stdout)["written"] == 2
    shown = run("handshake", "-p", "acme", "--json")
    assert (
        shown.returncode == 0
        and json.loads(shown.stdout)["learned_pitfalls"][0]["topic"] == "Cognitive Complexity @ src/store"
    )
