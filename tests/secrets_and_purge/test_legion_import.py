"""A Legion row that holds a secret is imported redacted; the sync says which file and line, and leaves the file."""

from __future__ import annotations

import json
import os
from pathlib import Path

from reliability.cli_harness import run

from mneme_tui.memory.store import Store
from secrets_and_purge.corpus import SECRETS

AWS = SECRETS["aws-key"]
KEY = next(word for word in AWS.split() if word.startswith("AKIA"))
PATTERNS = """# Patterns

| ID | Date | Pattern | Context | Reuse Criteria | Source | Tags | Branch |
|----|------|---------|---------|----------------|--------|------|--------|
| P-001 | 2026-10-01 | Pin the runner image | CI | always | O-001 | ci | main |
| P-002 | 2026-10-02 | {pattern} | deploy | never | O-002 | ops | main |
"""


def _sync(folder: Path) -> dict:
    result = run(["legion", "sync", "--dir", str(folder), "-p", "acme", "--json"])
    assert result.code == 0, result.err
    assert KEY not in result.out + result.err
    return json.loads(result.out)


def test_a_row_with_a_secret_is_imported_redacted_and_named(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "PATTERNS.md").write_text(PATTERNS.format(pattern=f"Deploy used {KEY} <private>the client</private>"))
    report = _sync(folder)
    assert report["totals"]["added"] == 2
    (warning,) = [w for w in report["warnings"] if "REDACTED" in w]
    assert warning.startswith("PATTERNS.md line 6: an AWS access key imported as [REDACTED:…]")
    store = Store(os.environ["MNEME_DB"])
    texts = [m.content for m in store.list(status="all", limit=None, repo_id=None)]
    assert any("[REDACTED:aws-key]" in text for text in texts)
    assert not any(KEY in text or "the client" in text for text in texts)
    assert KEY in (folder / "PATTERNS.md").read_text()  # the person's row is left as it is

    again = _sync(folder)  # the row did not change: nothing to redact or update again
    assert again["totals"]["unchanged"] == 2 and again["totals"]["updated"] == 0
    assert not [w for w in again["warnings"] if "REDACTED" in w]


def test_an_edited_row_that_gains_a_secret_is_updated_redacted(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "PATTERNS.md").write_text(PATTERNS.format(pattern="Deploy with the script"))
    _sync(folder)
    (folder / "PATTERNS.md").write_text(PATTERNS.format(pattern=f"Deploy with {KEY}"))
    report = _sync(folder)
    assert report["totals"]["updated"] == 1
    assert [w for w in report["warnings"] if "REDACTED" in w]
    store = Store(os.environ["MNEME_DB"])
    assert not any(KEY in m.content for m in store.list(status="all", limit=None, repo_id=None))


def test_an_id_less_row_keeps_no_secret_in_its_fingerprint(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "PATTERNS.md").write_text(PATTERNS.replace("| P-002 |", "| |").format(pattern=f"Deploy used {KEY}"))
    assert _sync(folder)["totals"]["added"] == 2
    again = _sync(folder)
    assert again["totals"]["unchanged"] == 2 and again["totals"]["added"] == 0
    db = Path(os.environ["MNEME_DB"])
    Store(db).close()
    assert not [p for p in db.parent.iterdir() if p.is_file() and KEY.encode() in p.read_bytes()]
