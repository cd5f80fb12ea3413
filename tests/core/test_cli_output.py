"""How the CLI reads to a person (issue 25): the recall layout, the score legend, the save notice, wording."""

from __future__ import annotations

import os
import re
from pathlib import Path

from terminal import on_terminal

from mneme_tui.cli.recall_layout import LEGEND, body_lines

LONG = (
    "Retry the webhook signer with exponential backoff; the upstream returns 429 during deploys "
    "and the connection pool must not be exhausted by parallel retries."
)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def terminal_text(argv: list[str], cwd: Path, columns: int = 80) -> str:
    """``mneme ARGV`` with its stdout on a pseudo-terminal ``columns`` wide: what a person sees, ANSI removed."""
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "24", "TERM": "xterm-256color", "NO_COLOR": "1"}
    return ANSI.sub("", on_terminal(argv, cwd, env)).replace("\r\n", "\n")


def test_recall_on_an_80_column_terminal_puts_each_text_under_a_one_line_header(cli, neutral_terminal):
    for n in range(3):
        cli("save", f"{n} {LONG}", "--topic", "Webhooks")
    out = terminal_text(["recall", "webhook retries", "-n", "3"], neutral_terminal)
    lines = out.splitlines()
    headers = [line for line in lines if re.match(r"\d\. #\d+ score ", line)]
    assert len(headers) == 3 and all(len(line) <= 80 for line in lines), out
    assert all("reflection, 0s old · global · Webhooks" in line for line in headers), headers
    body = [line for line in lines if line.startswith("    ")]
    assert len(body) == 9  # three lines of text each, not eight in a 23-character column
    words = set(LONG.split())
    assert all(word in words or word in "012" for line in body for word in line.split())  # no word is broken
    assert len(lines) <= 20
    assert "score = match × age × boosts." in out


def test_recall_piped_keeps_every_line_whole_and_shows_match_and_age(cli):
    cli("save", LONG)
    out = cli("recall", "webhook signer", "--profile", "bm25").out
    header, text = out.splitlines()[:2]
    assert re.fullmatch(
        r"1\. #1 score \d\.\d{3} \(match 1\.00, age 1\.00\) reflection, 0s old · global · General", header
    ), header
    assert text == f"    {LONG}"
    assert out.endswith(LEGEND + "\n")


def test_an_old_exact_match_reads_as_an_exact_match(cli, monkeypatch):
    """A 7-week-old memory scores low because of its age; the header says the match itself is full."""
    monkeypatch.setenv("MNEME_NOW", "2026-10-11T12:00:00")
    cli("save", "Outcome: the flaky snapshot test was a blinking cursor")
    monkeypatch.setenv("MNEME_NOW", "2026-11-29T12:00:00")
    header = cli("recall", "flaky snapshot cursor", "--profile", "bm25").out.splitlines()[0]
    match = re.search(r"score (\d\.\d+) \(match (\d\.\d+), age (\d\.\d+)\)", header)
    assert match is not None, header
    score, relevance, age = map(float, match.groups())
    assert relevance == 1.0 and age < 0.9 and score < relevance and "7w old" in header


def test_a_long_memory_shows_its_first_lines_and_the_line_that_matched(cli):
    content = "\n".join([f"step {n}: prepare" for n in range(1, 10)] + ["the zebra crossing is the trick", "end"])
    memory = cli("save", content, "--json").json()["id"]
    out = cli("recall", "zebra").out
    lines = out.splitlines()
    assert lines[1:6] == [
        "    step 1: prepare",
        "    step 2: prepare",
        "    step 3: prepare",
        "    …",
        "    the zebra crossing is the trick",
    ]
    assert lines[6] == f"    … 7 more lines (mneme show {memory})"


def test_body_lines_wrap_at_word_boundaries():
    lines, hidden = body_lines(LONG, query="", profile="bm25", width=40)
    assert hidden == 0 and all(len(line) <= 40 for line in lines) and " ".join(lines) == LONG


def test_save_outside_a_git_work_tree_says_it_went_to_global(cli, monkeypatch):
    out = cli("save", "no repository here").out
    assert out.splitlines()[-1] == "saved to global (not inside a git work tree; -p REPO to choose)"
    assert "saved to global" not in cli("save", "named", "-p", "atlas").out
    monkeypatch.setenv("MNEME_REPO", "atlas")
    assert "saved to global" not in cli("save", "from the environment").out
    assert cli("save", "as json", "--json").json()["repo_id"] == "atlas"


def test_the_article_fits_the_kind():
    from mneme_tui.display import counted, with_article

    assert with_article("outcome") == "an outcome" and with_article("pitfall") == "a pitfall"
    assert counted(1, "block") == "1 block" and counted(3, "block") == "3 blocks"


def test_a_long_first_index_build_says_so_on_a_terminal_only(cli, monkeypatch):
    """A store at or above ``NOTICE_ROWS`` (lowered here) read whole into the index: one ``mneme:`` line on a
    terminal's stderr, nothing on a pipe; the notice's handler is gone after the command."""
    import logging
    import sys

    from mneme_tui.memory import index

    for n in range(12):
        assert cli("save", f"memory number {n} about webhooks", "--json").code == 0
    monkeypatch.setattr(index, "NOTICE_ROWS", 12)
    piped = cli("recall", "webhooks", "--json")
    assert piped.code == 0 and piped.err == ""  # an agent's pipe: as quiet as before

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    shown = cli("recall", "webhooks", "--json")
    assert shown.code == 0 and shown.err == "mneme: building the search index from about 12 memories\n"
    assert logging.getLogger("mneme_tui.index").handlers == [] and logging.getLogger("mneme_tui.index").propagate

    monkeypatch.setattr(index, "NOTICE_ROWS", 13)  # below it: no notice, on a terminal too
    assert cli("recall", "webhooks", "--json").err == ""
