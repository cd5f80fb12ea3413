"""Plain output piped to another program (an agent's shell, a hook): every record's full text on one line,
whatever ``COLUMNS`` says, no ANSI codes, no trailing spaces; ``NO_COLOR`` turns colour off on a terminal."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from terminal import on_terminal

from mneme_tui.cli import main as cli_main

DATASET = Path(__file__).parent / "data" / "recall_eval.json"
NOW = "2026-11-30T12:00:00Z"
AGENT = "engineering-infrastructure-devops-specialist-with-a-long-name"
#: 300 characters of one-line text, far past any terminal width.
LONG = " ".join(f"word{n:03d}" for n in range(38))[:300]
WALKTHROUGH = "Split Store.save into small functions; " + " ".join(f"step{n:03d}" for n in range(40))
SOURCE = "src/a_rather_long_package_name/and_a_rather_long_module_name.py"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def piped_env(now: str = NOW) -> dict[str, str]:
    """The environment of a piped command: a fixed clock and repo, a narrow ``COLUMNS``, a colour terminal type."""
    return {"MNEME_NOW": now, "MNEME_REPO": "acme", "COLUMNS": "40", "TERM": "xterm-256color"}


def checked_clean(out: str, argv: tuple[str, ...]) -> str:
    """``out``, after checking it is not empty and has no ANSI code and no trailing space."""
    assert out and not ANSI.search(out) and "\x1b" not in out, argv
    assert all(line == line.rstrip() for line in out.splitlines()), argv
    return out


def mneme(work: Path, *argv: str, now: str = NOW) -> str:
    """``mneme ARGV`` in a fresh process with stdout piped and a narrow ``COLUMNS``: its stdout, checked clean."""
    env = {**os.environ, **piped_env(now)}
    env.pop("NO_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-m", "mneme_tui", *argv, "--db", str(work / "mneme.db")],
        capture_output=True,
        text=True,
        check=True,
        cwd=work,
        env=env,
    )
    return checked_clean(done.stdout, argv)


@pytest.fixture
def mneme_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """``mneme ARGV`` in this process (stdout captured, so not a terminal), in the same environment as
    :func:`mneme`: what builds a project, where starting a process is not what is tested."""

    def run(*argv: str, now: str = NOW) -> str:
        with monkeypatch.context() as env:
            for name, value in piped_env(now).items():
                env.setenv(name, value)
            env.delenv("NO_COLOR", raising=False)
            env.chdir(tmp_path)
            capsys.readouterr()
            assert cli_main([*argv, "--db", str(tmp_path / "mneme.db")]) == 0, argv
        return checked_clean(capsys.readouterr().out, argv)

    return run


def on_one_line(out: str, *parts: str) -> bool:
    """Some line of ``out`` holds every one of ``parts`` whole."""
    return any(all(part in line for part in parts) for line in out.splitlines())


def report(task_id: str) -> str:
    gate = {"name": "Cognitive Complexity", "file": SOURCE}
    return json.dumps(
        {
            "task_id": task_id,
            "repo": "acme",
            "modified_files": [SOURCE],
            "walkthrough": WALKTHROUGH,
            "runs": [
                {"gates": [{**gate, "passed": False, "message": "over"}]},
                {"gates": [{**gate, "passed": True, "message": "ok"}]},
            ],
        }
    )


@pytest.fixture
def project(tmp_path: Path, mneme_here) -> Path:
    """A store with a long memory and two verified tasks, and a Legion folder with long agent names and texts."""
    (tmp_path / SOURCE).parent.mkdir(parents=True)
    (tmp_path / SOURCE).write_text("def save():\n    return 1\n")
    mneme_here("save", LONG)
    for n in (1, 2):
        (tmp_path / f"report{n}.json").write_text(report(f"INT-{n}"))
        mneme_here("task", "sync", f"report{n}.json")
    legion = ["--dir", "memory", "--branch", "main"]
    for month in (1, 2):  # old, low-importance outcomes: prune candidates
        mneme_here(
            "legion",
            "record",
            "outcome",
            *legion,
            "--agent",
            f"{AGENT}-old",
            "--outcome",
            "success",
            "--summary",
            f"{month} {LONG}",
            "--importance",
            "1",
            now=f"2026-0{month}-01T12:00:00Z",
        )
    for outcome in ("success", "failed"):  # two recent outcomes: an agent score
        mneme_here(
            "legion",
            "record",
            "outcome",
            *legion,
            "--agent",
            AGENT,
            "--outcome",
            outcome,
            "--summary",
            f"{outcome} {LONG}",
        )
    mneme_here("legion", "record", "pattern", *legion, "--pattern", f"pattern {LONG}", "--context", "ctx")
    mneme_here(
        "legion", "record", "error", *legion, "--error-signature", f"KeyError {LONG}", "--fix", "fix", "--agent", AGENT
    )
    mneme_here(
        "legion",
        "record",
        "preference",
        *legion,
        "--decision-point",
        "manual-edit",
        "--context",
        "ctx",
        "--signal",
        "corrective",
        "--agent",
        AGENT,
        "--user-choice",
        f"choice {LONG}",
    )
    (tmp_path / "03-api").mkdir()
    (tmp_path / "03-api" / "03-01-SUMMARY.md").write_text(f"---\nrequirements: [REQ-01]\n---\n# Summary\n{LONG}\n")
    return tmp_path


def test_every_data_command_keeps_each_record_whole_on_one_line(project: Path, mneme_here) -> None:
    """Three commands in a real process whose stdout is a pipe (a memory table, the long walkthrough, a Legion
    table); every other command in this process, its stdout captured, in the same environment."""
    recalled = mneme(project, "recall", "word001")
    assert on_one_line(recalled, "reflection") and on_one_line(recalled, LONG)
    assert on_one_line(mneme_here("list"), "active", LONG)
    assert on_one_line(mneme_here("show", "1"), LONG)
    assert on_one_line(mneme(project, "handshake"), WALKTHROUGH)
    assert on_one_line(mneme_here("task", "candidates"), "recurs in 2 tasks (INT-1, INT-2)")
    assert on_one_line(mneme_here("task", "sync", "report2.json", "--dry-run"), "Would sync task INT-2 (repo acme)")
    assert on_one_line(mneme_here("db", "info"), "database", str(project / "mneme.db"))
    assert on_one_line(mneme_here("eval", str(DATASET)), "profile:bm25", "overall")
    assert on_one_line(mneme_here("eval", str(DATASET), "--ablation"), "no stop words")
    assert on_one_line(mneme_here("db", "copy", "mneme.db", "copy.db"), "Copied 5 memories from mneme.db to copy.db")
    assert on_one_line(mneme_here("save", f"again {LONG}", "--topic", f"topic {LONG}"), f"topic {LONG}")
    assert on_one_line(mneme_here("supersede", "1", f"newer {LONG}"), "memory 1 is now superseded")
    assert on_one_line(mneme_here("dismiss", "1"), "1")
    assert on_one_line(mneme_here("restore", "1"), "1")

    folder = ["--dir", "memory"]
    briefing = mneme(project, "legion", "briefing", *folder)
    assert on_one_line(briefing, "2026-11-30", AGENT, f"failed {LONG}")
    assert on_one_line(mneme_here("legion", "agents", *folder), AGENT, "50%")
    assert on_one_line(mneme_here("legion", "prune", *folder), "2026-01-01", f"{AGENT}-old", f"1 {LONG}")
    assert on_one_line(mneme_here("legion", "recall", *folder), "2026-11-30", AGENT, f"success {LONG}")
    assert on_one_line(mneme_here("legion", "recall", "patterns", *folder), f"pattern {LONG}")
    assert on_one_line(mneme_here("legion", "recall", "errors", "KeyError", *folder), f"KeyError {LONG}")
    assert on_one_line(mneme_here("legion", "recall", "preferences", *folder), AGENT, f"choice {LONG}")
    assert on_one_line(mneme_here("legion", "sync", *folder), "OUTCOMES.md: 4 records")
    assert on_one_line(
        mneme_here("legion", "record", "pattern", *folder, "--pattern", LONG, "--branch", "main"), "in PATTERNS.md"
    )
    assert on_one_line(mneme_here("legion", "compact", str(project / "03-api")), "03-COMPACTED.md")


def test_no_color_on_a_terminal(project: Path) -> None:
    """On a terminal tables may be bold, but with ``NO_COLOR`` set there is no colour code at all."""
    env = {**os.environ, "MNEME_NOW": NOW, "COLUMNS": "200", "TERM": "xterm-256color", "NO_COLOR": "1"}
    text = on_terminal(["legion", "briefing", "--dir", "memory", "--db", str(project / "mneme.db")], project, env)
    assert AGENT in text
    codes = [code for match in re.finditer(r"\x1b\[([0-9;]*)m", text) for code in match.group(1).split(";") if code]
    assert not [code for code in codes if code.startswith(("3", "4", "9", "10"))], codes
