"""``mneme review``, ``review accept|reject|undo`` and ``pin``/``unpin`` from the command line: effects, plain
lines and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mneme_tui.cli import main as cli_main


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEME_REPO", "acme")

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = cli_main([*argv, "--db", str(tmp_path / "m.db")])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_accept_undo_reject_from_the_cli(run) -> None:
    run("save", "SQLite busy timeout is 5 s for the store")
    run("save", "SQLite busy timeout is 10 s for the store")
    code, out, _ = run("review", "--json")
    [proposal] = json.loads(out)["proposals"]
    assert code == 0 and proposal["kind"] == "conflict" and proposal["keep_id"] == 2
    code, out, _ = run("review")
    assert proposal["id"] in out and "5 / 10" in out
    code, out, _ = run("review", "accept", proposal["id"])
    assert code == 0 and out == f"Accepted conflict proposal {proposal['id']} (#1, #2); changed #1\n"
    code, out, _ = run("show", "1", "--json")
    shown = json.loads(out)
    assert shown["memory"]["status"] == "superseded" and shown["history"][-1]["reason"] == (
        "review: conflict, superseded by #2"
    )
    code, out, _ = run("review", "undo", proposal["id"], "--json")
    assert json.loads(out)["decisions"][0]["changed"] == [1]
    code, out, _ = run("review", "reject", proposal["id"])
    assert code == 0 and out.startswith("Rejected conflict proposal")
    code, out, _ = run("review")
    assert out == "No open proposals. (repo acme; -A: every repo)\n"
    code, out, _ = run("review", "-A", "--kind", "cold", "--json")
    assert json.loads(out) == {"repo": None, "proposals": []}


def test_errors_are_one_line_and_change_nothing(run) -> None:
    run("save", "Use X for Y")
    run("save", "Never use X for Y")
    code, out, err = run("review", "--json")
    good = json.loads(out)["proposals"][0]["id"]
    code, out, err = run("review", "accept", good, "ffffffffff")
    assert code != 0 and err.count("\n") == 1 and "ERR_NOT_FOUND" in err and "nothing decided" in err
    assert json.loads(run("show", "1", "--json")[1])["memory"]["status"] == "active"
    code, out, err = run("review", "--kind", "stale", "--root", "missing-folder")
    assert code != 0 and err.count("\n") == 1
    code, out, err = run("pin", "1", "99")
    assert code != 0 and "ERR_NOT_FOUND" in err and err.count("\n") == 1
    assert run("pin", "1", "--json")[1] and run("pin", "1")[1] == "Already pinned: 1\n"
    assert run("unpin", "1")[1] == "Unpinned 1\n" and run("unpin", "1")[1] == "Already not pinned: 1\n"


def test_a_kind_filter_before_a_decision_is_not_read_as_more_kinds(run) -> None:
    """``--kind`` takes one kind per use (repeat it for more), so the decision word after it stays a command."""
    run("save", "SQLite busy timeout is 5 s for the store")
    run("save", "SQLite busy timeout is 10 s for the store")
    code, out, _ = run("review", "--kind", "conflict", "--kind", "cold", "--json")
    [proposal] = json.loads(out)["proposals"]
    assert code == 0
    code, out, _ = run("review", "--kind", "conflict", "accept", proposal["id"])
    assert code == 0 and out.startswith(f"Accepted conflict proposal {proposal['id']}")
