"""Duplicates are not re-created: by save and supersede (CLI), by ``db copy --merge`` run twice, by the Legion
import run twice on real files, by task sync of the same report twice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mneme_tui.cli import main as cli_main
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.memory.learning.task_report import parse_report_text
from mneme_tui.memory.learning.tasksync import sync_task
from mneme_tui.memory.store import Store

from .conftest import mint

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "legion-corpus"
TEXT = "Keep one peewee connection per thread."


def cli(capsys: pytest.CaptureFixture[str], db: Path, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = cli_main([*argv, "--db", str(db)])
    return code, capsys.readouterr().out


def test_save_of_the_same_text_stores_nothing_and_says_so(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("MNEME_REPO", "acme")
    db = tmp_path / "m.db"
    code, out = cli(capsys, db, "save", TEXT, "--json")
    first = json.loads(out)
    code, out = cli(capsys, db, "save", "  keep ONE peewee connection per thread!", "--json")
    again = json.loads(out)
    assert code == 0 and again["id"] == first["id"] and again["duplicate_of"] == first["id"]
    code, out = cli(capsys, db, "save", TEXT)
    assert (
        code == 0
        and out
        == f"Not stored: the same text (after normalising case, whitespace and punctuation) "
        f"is already memory {first['id']}\n"
    )
    code, out = cli(capsys, db, "save", TEXT, "--kind", "decision", "--json")  # another kind: stored
    assert "duplicate_of" not in json.loads(out)
    code, out = cli(capsys, db, "save", TEXT, "-p", "other", "--json")  # another repo: stored
    assert "duplicate_of" not in json.loads(out)
    code, out = cli(capsys, db, "save", "Keep one peewee connection per thread worker.", "--json")
    assert json.loads(out)["near_duplicate"]["id"] == first["id"]
    assert Store(db).count() == 4


def test_supersede_with_a_duplicate_text_changes_nothing(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("MNEME_REPO", "acme")
    db = tmp_path / "m.db"
    cli(capsys, db, "save", TEXT)
    cli(capsys, db, "save", "Another lesson about the busy timeout")
    code, out = cli(capsys, db, "supersede", "2", TEXT.lower(), "--json")
    document = json.loads(out)
    assert code == 0 and document["superseded"] is None and document["duplicate_of"] == 1
    assert Store(db).get(2).status == "active" and Store(db).count() == 2
    code, out = cli(capsys, db, "supersede", "1", TEXT + "  ")
    assert code == 0 and "memory 1 is unchanged" in out


def test_db_copy_merge_twice_copies_once(tmp_path: Path, capsys) -> None:
    source = Store(tmp_path / "source.db")
    old = mint(source, TEXT, created="2026-10-01")
    new = mint(source, "Keep one connection per worker thread", created="2026-10-02")
    source.mark_superseded(old, new)
    source.pin([new])
    destination = tmp_path / "dest.db"
    mint(Store(destination), "Already there", created="2026-09-01")
    for run in (1, 2):
        code, out = cli(
            capsys,
            tmp_path / "source.db",
            "db",
            "copy",
            str(tmp_path / "source.db"),
            str(destination),
            "--merge",
            "--json",
        )
        report = json.loads(out)
        assert code == 0 and report["copied"]["memories"] == (2 if run == 1 else 0)
        assert report["skipped"] == (0 if run == 1 else 2)
    copied = Store(destination)
    assert copied.count() == 3
    [superseded] = copied.list(status="superseded")
    assert copied.get(superseded.superseded_by).content == "Keep one connection per worker thread"
    assert copied.pinned_ids() == {superseded.superseded_by}
    assert len(copied.history(superseded.id)) == 1  # the audit row copied once


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the Legion corpus is not beside the repository")
def test_legion_import_twice_creates_nothing_new(tmp_path: Path) -> None:
    folder = tmp_path / ".planning" / "memory"
    folder.mkdir(parents=True)
    for name in ("OUTCOMES.md", "ERRORS.md", "PREFERENCES.md"):
        shutil.copy(CORPUS / f"ace027__Dokapon-kingdom-2__{name}", folder / name)
    store = Store(tmp_path / "m.db")
    sync(store, folder, "dokapon")
    imported = store.count()
    assert imported > 0
    report = sync(store, folder, "dokapon")
    assert store.count() == imported and not report.totals.get("added")


def test_task_sync_of_the_same_report_twice_writes_once(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "store.py").write_text("class Store:\n    def save(self):\n        return 1\n")
    gate = {"name": "Cognitive Complexity", "file": "src/store.py"}
    report = {
        "task_id": "INT-1",
        "repo": "acme",
        "modified_files": ["src/store.py"],
        "walkthrough": "Split Store.save so each function stays small.",
        "runs": [
            {"gates": [{**gate, "passed": False, "message": "over"}]},
            {"gates": [{**gate, "passed": True, "message": "ok"}]},
        ],
    }
    store = Store(tmp_path / "m.db")
    sync_task(store, parse_report_text(json.dumps(report)), root)
    written = store.count()
    assert written > 0
    sync_task(store, parse_report_text(json.dumps(report)), root)
    assert store.count() == written


def test_a_secret_is_screened_before_the_duplicate_check(tmp_path: Path, capsys, monkeypatch) -> None:
    """Refused first (nothing said about duplicates), then the check compares what would be stored: the same text
    with another key redacted to the same ``[REDACTED:aws-key]`` is the memory already there."""
    from secrets_and_purge.corpus import SECRETS

    monkeypatch.setenv("MNEME_REPO", "acme")
    db, aws = tmp_path / "m.db", SECRETS["aws-key"]
    key = next(word for word in aws.split() if word.startswith("AKIA"))
    code, out = cli(capsys, db, "save", f"deploy with {aws}", "--redact", "--json")
    first = json.loads(out)
    assert code == 0 and key not in first["content"] and "duplicate_of" not in first
    capsys.readouterr()
    assert cli_main(["save", f"deploy with {aws}", "--db", str(db)]) == 1
    refused = capsys.readouterr()
    assert refused.out == "" and refused.err.startswith("mneme: ERR_SECRET:") and key not in refused.err
    other = aws.replace(key, "AKIA" + "Q" * 16)
    code, out = cli(capsys, db, "save", f"deploy with {other}", "--redact", "--json")
    assert code == 0 and json.loads(out)["duplicate_of"] == first["id"]
    code, out = cli(capsys, db, "supersede", str(first["id"]), f"Deploy with {aws}", "--redact", "--json")
    assert code == 0 and json.loads(out)["superseded"] is None and json.loads(out)["duplicate_of"] == first["id"]
    assert [m.id for m in Store(db).list(status="all")] == [first["id"]]
