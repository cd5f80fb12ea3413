"""The quick check's patterns copied in ``secret_patterns`` are the installed detect-secrets' own, and a text no
line of which passes them is screened without importing detect-secrets."""

from __future__ import annotations

import subprocess
import sys

from mneme_tui.memory import secret_patterns, secrets


def test_the_copied_patterns_are_the_installed_plugins_own() -> None:
    assert secret_patterns.installed(), f"detect-secrets {secret_patterns.VERSION} is what the tests run with"
    assert secrets._prefilter() == secrets._plugins_quick_check()
    assert [p.flags for p in secrets._prefilter()] == [p.flags for p in secrets._plugins_quick_check()]


def test_another_version_reads_the_plugins(monkeypatch) -> None:
    monkeypatch.setattr(secret_patterns, "VERSION", "0.0")
    assert not secret_patterns.installed()


def test_a_clean_text_is_screened_without_importing_detect_secrets() -> None:
    code = (
        "import sys\n"
        "from mneme_tui.memory import secrets\n"
        "assert secrets.find_secrets('Plan 12 complete\\nBranch: main') == []\n"
        "assert 'detect_secrets' not in sys.modules\n"
        "assert secrets.find_secrets('password = hunter2hunter2')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
