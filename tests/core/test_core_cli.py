"""The `mneme` command line (spec §5): JSON shapes, defaults, --db, active repo, TC-MEM-05/06/13, untrusted
text shown literally, and bad input getting one line on stderr."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from provenances import SYNCED

from mneme_reference import raw_rows
from mneme_tui.memory.kinds import ADVISORY_KINDS, STATUTORY_KINDS

MEMORY_FIELDS = {
    "id",
    "repo_id",
    "kind",
    "topic",
    "content",
    "task_id",
    "created_at",
    "status",
    "superseded_by",
    "access_count",
    "provenance",
}
COMPONENTS = {"cosine", "lexical", "decay", "reinforcement", "locality"}
ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def _save(cli, *args: str, stdin: str | None = None) -> dict:
    result = cli("save", *args, "--json", stdin=stdin)
    assert result.code == 0, result.err
    return result.json()


def _count(path: Path) -> int:
    return len(raw_rows(path)) if path.exists() else 0


# ------------------------------------------------------------------------------ JSON shapes
def test_save_json_shape_and_defaults(cli, db_path):
    document = _save(cli, "Use WAL mode for concurrent readers")
    assert set(document) == MEMORY_FIELDS  # no embedding
    assert document["id"] == 1
    assert document["kind"] == "reflection"
    assert document["topic"] == "General"
    assert document["repo_id"] == "global"  # outside any git work tree, no -p, no MNEME_REPO
    assert document["task_id"] == ""
    assert document["status"] == "active"
    assert document["superseded_by"] == 0
    assert document["access_count"] == 0
    assert ISO_UTC.match(document["created_at"]) and document["created_at"].startswith("2026-11-29T12:00:00")
    assert raw_rows(db_path)[0]["content"] == "Use WAL mode for concurrent readers"


def test_save_with_options(cli):
    document = _save(
        cli, "We chose peewee", "--kind", "decision", "--topic", "Architecture", "-p", "nomos", "--task", "INT-734"
    )
    assert (document["kind"], document["topic"], document["repo_id"], document["task_id"]) == (
        "decision",
        "Architecture",
        "nomos",
        "INT-734",
    )
    long = _save(cli, "long options", "--project", "acme")
    assert long["repo_id"] == "acme"


def test_save_reads_stdin_for_dash(cli):
    document = _save(cli, "-", stdin="from standard input\nsecond line\n")
    assert document["content"] == "from standard input\nsecond line"  # echo's one trailing newline is dropped


def test_save_from_stdin_keeps_all_but_one_trailing_newline(cli):
    assert _save(cli, "-", stdin="text\n\n")["content"] == "text\n"
    assert _save(cli, "-", stdin="windows\r\n")["content"] == "windows"


def test_save_plain_output(cli):
    result = cli("save", "plain output", "--topic", "Ops", "-p", "nomos")
    assert result.code == 0 and result.err == ""
    assert result.out == "Saved memory 1 (reflection, topic Ops, repo nomos)\n"


def test_list_json_is_array_of_memories(cli):
    for i in range(3):
        _save(cli, f"memory {i}")
    result = cli("list", "--json")
    assert result.code == 0
    listing = result.json()
    assert isinstance(listing, list) and len(listing) == 3
    for item in listing:
        assert set(item) == MEMORY_FIELDS
    assert [m["id"] for m in listing] == [3, 2, 1]  # same created_at: newest id first


def _existing_store() -> None:
    """Create the CLI's store (a read command on a store that does not exist is an error)."""
    from mneme_tui.memory.store import Store

    Store(os.environ["MNEME_DB"]).close()


def test_list_empty_json_is_empty_array(cli):
    _existing_store()
    result = cli("list", "--json")
    assert (result.code, result.json()) == (0, [])


def test_list_default_limit_is_20(cli, db_path):
    from mneme_tui.memory.store import Store

    Store(db_path).mint_many([dict(content=f"memory {i}", provenance=SYNCED, kind="reflection") for i in range(25)])
    assert len(cli("list", "--json").json()) == 20
    assert len(cli("list", "--json", "-n", "25").json()) == 25
    assert len(cli("list", "--json", "--limit", "3").json()) == 3


def test_recall_json_shape(cli):
    _save(cli, "redis cache eviction policy is allkeys-lru", "-p", "nomos")
    _save(cli, "unrelated note about yaml", "-p", "nomos")
    result = cli("recall", "redis cache eviction", "-p", "nomos", "--json")
    assert result.code == 0, result.err
    results = result.json()
    assert isinstance(results, list) and results
    for item in results:
        assert set(item) >= MEMORY_FIELDS
        assert "embedding" not in item
        assert isinstance(item["score"], float)
        assert set(item["components"]) == COMPONENTS
    top = results[0]
    assert top["profile"] == "spec"  # MNEME_PROFILE=spec (conftest): the spec's formula
    assert top["content"] == "redis cache eviction policy is allkeys-lru"
    assert top["components"]["lexical"] == 1.0
    assert top["components"]["locality"] == 1.25
    assert top["components"]["decay"] == 1.0
    assert top["components"]["reinforcement"] == 1.0
    c = top["components"]
    assert top["score"] == pytest.approx((0.75 * c["cosine"] + 0.25 * c["lexical"]) * 1.25, abs=1e-5)
    assert top["access_count"] == 0


def test_recall_default_limit_is_5(cli):
    for i in range(8):
        _save(cli, f"limit probe {i}")
    assert len(cli("recall", "limit probe", "--json").json()) == 5
    assert len(cli("recall", "limit probe", "--json", "-n", "7").json()) == 7
    assert len(cli("recall", "limit probe", "--json", "--limit", "2").json()) == 2


def test_recall_is_read_only(cli, db_path):
    memory = _save(cli, "read only recall probe")
    for _ in range(3):
        assert cli("recall", "read only recall probe", "--json").json()[0]["id"] == memory["id"]
    assert raw_rows(db_path)[0]["access_count"] == 0


def test_recall_plain_output(cli):
    _save(cli, "plain recall row")
    result = cli("recall", "plain recall row")
    assert result.code == 0 and result.err == ""
    assert "plain recall row" in result.out
    nothing = cli("recall", "zzzz", "-p", "some-other-repo")
    assert nothing.code == 0


def test_recall_kind_filter(cli):
    _save(cli, "kind filter probe", "--kind", "axiom")
    _save(cli, "kind filter probe", "--kind", "decision")
    results = cli("recall", "kind filter probe", "--kind", "axiom", "--json").json()
    assert [r["kind"] for r in results] == ["axiom"]


def test_dismiss_json_shape(cli, db_path):
    a = _save(cli, "first")
    b = _save(cli, "second")
    result = cli("dismiss", str(a["id"]), str(b["id"]), "--json")
    assert result.code == 0, result.err
    document = result.json()
    assert document["dismissed"] == [a["id"], b["id"]]
    assert [row["status"] for row in raw_rows(db_path)] == ["tombstoned", "tombstoned"]
    again = cli("dismiss", str(a["id"]), "--json")
    assert again.code == 0 and again.json()["dismissed"] == []


def test_dismiss_plain_output(cli):
    a = _save(cli, "first")
    result = cli("dismiss", str(a["id"]))
    assert result.code == 0 and result.err == ""
    assert str(a["id"]) in result.out and "tombstoned" in result.out.lower()


# ------------------------------------------------------------------------------- --db
@pytest.mark.parametrize("before", [True, False])
def test_db_option_before_and_after_subcommand(cli, tmp_path, db_path, before):
    other = tmp_path / "elsewhere" / "other.db"

    def run(*args):
        return cli("--db", str(other), *args) if before else cli(*args, "--db", str(other))

    assert run("save", "in the other db", "--json").code == 0
    assert _count(other) == 1 and _count(db_path) == 0
    assert [m["content"] for m in run("list", "--json").json()] == ["in the other db"]
    assert run("recall", "other db", "--json").json()[0]["content"] == "in the other db"
    assert run("dismiss", "1", "--json").json()["dismissed"] == [1]
    assert raw_rows(other)[0]["status"] == "tombstoned"


def test_db_from_environment(cli, tmp_path, monkeypatch):
    path = tmp_path / "env.db"
    monkeypatch.setenv("MNEME_DB", str(path))
    _save(cli, "via MNEME_DB")
    assert _count(path) == 1


# --------------------------------------------------------------------------- active repo
def _git_tree(root: Path, name: str) -> Path:
    tree = root / name
    (tree / ".git").mkdir(parents=True)
    (tree / "src" / "deep").mkdir(parents=True)
    return tree


def test_active_repo_is_git_worktree_basename(cli, tmp_path, monkeypatch):
    tree = _git_tree(tmp_path, "proj-alpha")
    monkeypatch.chdir(tree / "src" / "deep")
    assert _save(cli, "inside git")["repo_id"] == "proj-alpha"


def test_git_file_worktree_also_counts(cli, tmp_path, monkeypatch):
    tree = tmp_path / "linked-tree"
    tree.mkdir()
    (tree / ".git").write_text("gitdir: /somewhere/.git/worktrees/linked-tree\n")
    monkeypatch.chdir(tree)
    assert _save(cli, "linked worktree")["repo_id"] == "linked-tree"


def test_mneme_repo_beats_git(cli, tmp_path, monkeypatch):
    tree = _git_tree(tmp_path, "proj-alpha")
    monkeypatch.chdir(tree)
    monkeypatch.setenv("MNEME_REPO", "from-env")
    assert _save(cli, "env wins")["repo_id"] == "from-env"


def test_project_flag_beats_env_and_git(cli, tmp_path, monkeypatch):
    tree = _git_tree(tmp_path, "proj-alpha")
    monkeypatch.chdir(tree)
    monkeypatch.setenv("MNEME_REPO", "from-env")
    assert _save(cli, "flag wins", "-p", "from-flag")["repo_id"] == "from-flag"


def test_no_git_no_env_is_global(cli):
    assert _save(cli, "nowhere")["repo_id"] == "global"


def test_recall_and_list_use_active_repo(cli, tmp_path, monkeypatch):
    _save(cli, "alpha deployment checklist", "-p", "proj-alpha")
    _save(cli, "beta deployment checklist", "-p", "proj-beta")
    tree = _git_tree(tmp_path, "proj-alpha")
    monkeypatch.chdir(tree)
    recalled = cli("recall", "deployment checklist", "--json").json()
    assert {r["repo_id"] for r in recalled} == {"proj-alpha"}
    assert {m["repo_id"] for m in cli("list", "--json").json()} == {"proj-alpha"}
    monkeypatch.setenv("MNEME_REPO", "proj-beta")
    assert {r["repo_id"] for r in cli("recall", "deployment checklist", "--json").json()} == {"proj-beta"}


def test_global_memories_visible_in_every_repo(cli, tmp_path, monkeypatch):
    shared = _save(cli, "always pin the toolchain version", "-p", "global")
    _save(cli, "pin the toolchain in acme", "-p", "acme")
    for args in (("-p", "nomos"), ("-p", "acme"), ("-p", "brand-new-repo")):
        ids = [r["id"] for r in cli("recall", "pin toolchain version", *args, "--json").json()]
        assert shared["id"] in ids, args
    tree = _git_tree(tmp_path, "gitrepo")
    monkeypatch.chdir(tree)
    assert shared["id"] in [r["id"] for r in cli("recall", "toolchain", "--json").json()]
    assert shared["id"] in [m["id"] for m in cli("list", "--json").json()]


def test_tc_mem_02_cli_scoped_recall(cli):
    for repo in ("nomos", "acme", "global"):
        _save(cli, "shared words about retries", "-p", repo)
    repos = {r["repo_id"] for r in cli("recall", "retries", "-p", "nomos", "--json", "-n", "10").json()}
    assert repos == {"nomos", "global"}


def test_tc_mem_03_cli_cross_repo_recall(cli):
    for repo in ("nomos", "acme", "global"):
        _save(cli, "shared words about retries", "-p", repo)
    for flag in ("-A", "--cross-repo"):
        results = cli("recall", "retries", "-p", "nomos", flag, "--json", "-n", "10").json()
        assert {r["repo_id"] for r in results} == {"nomos", "acme", "global"}
        assert {r["components"]["locality"] for r in results} == {1.0}


def test_list_all_repos_and_project_filter(cli):
    for repo in ("nomos", "acme", "global"):
        _save(cli, f"{repo} note", "-p", repo)
    assert {m["repo_id"] for m in cli("list", "-A", "--json").json()} == {"nomos", "acme", "global"}
    assert {m["repo_id"] for m in cli("list", "--all", "--json").json()} == {"nomos", "acme", "global"}
    assert {m["repo_id"] for m in cli("list", "-p", "acme", "--json").json()} == {"acme"}
    assert {m["repo_id"] for m in cli("list", "--json").json()} == {"global"}


# ------------------------------------------------------------------------------ TC vectors
@pytest.mark.parametrize("content", ["", "   ", "\n\t "])
def test_tc_mem_05_cli_empty_content_rejected(cli, db_path, content):
    result = cli("save", content)
    result.assert_one_error_line(1, "ERR_VALIDATION_FAILED", "empty")
    assert _count(db_path) == 0


def test_tc_mem_05_cli_empty_stdin_rejected(cli, db_path):
    cli("save", "-", stdin="  \n").assert_one_error_line(1, "ERR_VALIDATION_FAILED")
    assert _count(db_path) == 0


@pytest.mark.parametrize(
    ("stdin", "needle"),
    [
        (b"caf\xe9", "standard input is not UTF-8 text (byte 0xe9 at offset 3)"),
        (b"x" * 400_001, "content size limit of 100,000 characters"),
    ],
)
def test_stdin_content_is_utf8_and_bounded(cli, db_path, stdin, needle):
    cli("save", "-", stdin=stdin).assert_one_error_line(1, "ERR_VALIDATION_FAILED", needle)
    assert _count(db_path) == 0


def test_stdin_content_with_a_byte_order_mark(cli):
    assert _save(cli, "-", stdin="\ufeffnoted".encode())["content"] == "noted"


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (("save", "caf\udce9"), "CONTENT is not valid UTF-8 text: lone surrogate \\udce9 (byte 0xe9) at character 3"),
        (("recall", "x", "-p", "\udce9"), "-p/--project is not valid UTF-8"),
        (("dismiss", "9" * 30), "not a memory id: 999999999999999999999999999999"),
        (("--db", "", "list"), "--db cannot be empty"),
    ],
)
def test_undecodable_arguments_huge_ids_and_empty_db_rejected(cli, db_path, argv, needle):
    cli(*argv).assert_one_error_line(1, "ERR_VALIDATION_FAILED", needle)
    assert _count(db_path) == 0


def test_nul_byte_content_rejected(cli, db_path):
    cli("save", "-", stdin="before\x00after").assert_one_error_line(1, "ERR_VALIDATION_FAILED", "NUL")
    assert _count(db_path) == 0


@pytest.mark.parametrize("kind", STATUTORY_KINDS)
def test_tc_mem_06_cli_statutory_kind_rejected(cli, db_path, kind):
    cli("save", "fake", "--kind", kind).assert_one_error_line(1, "ERR_VALIDATION_FAILED", kind)
    assert _count(db_path) == 0


def test_tc_mem_06_cli_unknown_kind_lists_valid_kinds(cli, db_path):
    err = cli("save", "fake", "--kind", "bogus").assert_one_error_line(1, "ERR_VALIDATION_FAILED", "bogus")
    for kind in ADVISORY_KINDS:
        assert kind in err
    assert _count(db_path) == 0


@pytest.mark.parametrize("kind", ADVISORY_KINDS)
def test_cli_advisory_kinds_accepted(cli, kind):
    assert _save(cli, "advisory", "--kind", kind)["kind"] == kind


def test_tc_mem_09_cli_dismiss_excludes_from_recall(cli):
    a = _save(cli, "stale pitfall about flaky sockets")
    b = _save(cli, "current advice about flaky sockets")
    assert cli("dismiss", str(a["id"])).code == 0
    for extra in ((), ("-A",)):
        ids = [r["id"] for r in cli("recall", "flaky sockets", *extra, "--json").json()]
        assert ids == [b["id"]]


def test_tc_mem_13_list_is_active_by_default(cli):
    a = _save(cli, "to be dismissed")
    b = _save(cli, "stays active")
    assert cli("dismiss", str(a["id"])).code == 0
    assert [m["id"] for m in cli("list", "--json").json()] == [b["id"]]
    assert [m["id"] for m in cli("list", "--status", "active", "--json").json()] == [b["id"]]
    tombstoned = cli("list", "--status", "tombstoned", "--json").json()
    assert [(m["id"], m["status"]) for m in tombstoned] == [(a["id"], "tombstoned")]
    assert sorted(m["id"] for m in cli("list", "--status", "all", "--json").json()) == [a["id"], b["id"]]
    assert cli("list", "--status", "superseded", "--json").json() == []
    plain = cli("list")
    assert "stays active" in plain.out and "to be dismissed" not in plain.out
    assert "to be dismissed" in cli("list", "--status", "tombstoned").out


# ------------------------------------------------------------------- untrusted text literally
MARKUP_CONTENTS = [
    "[bold]not bold[/bold]",
    "closing tag alone [/x] here",
    "[@click=app.quit]click me[/]",
    "Refactored app.py [Store.save, _flush]",
    r"C:\Users\dev\[notes]\file.txt and \n literal backslash-n",
    "a | b || c |",
    "emoji 🧠🚀 and :smile: stays text",
    "CJK 数据库迁移 テスト 한국어",
    "ansi \x1b[31mred\x1b[0m text",
    "[link=https://example.com]link[/link] [red on blue]x",
]


def _with_marker(content: str) -> str:
    return f"markerword {content}"


def test_markup_round_trips_byte_exact_in_json(cli):
    saved = {}
    for content in MARKUP_CONTENTS:
        document = _save(cli, _with_marker(content), "--topic", "[b]topic[/b]")
        assert document["content"] == _with_marker(content)
        assert document["topic"] == "[b]topic[/b]"
        saved[document["id"]] = _with_marker(content)
    listed = {m["id"]: m["content"] for m in cli("list", "--json").json()}
    assert listed == saved
    recalled = cli("recall", "markerword", "--json", "-n", str(len(saved))).json()
    assert {r["id"]: r["content"] for r in recalled} == saved
    # the raw JSON text itself carries the ESC as an escape, never as a raw byte
    assert "\x1b" not in cli("list", "--json").out


@pytest.mark.parametrize("command", ["list", "recall"])
def test_plain_output_shows_markup_literally(cli, command):
    for content in MARKUP_CONTENTS:
        _save(cli, _with_marker(content), "--topic", "[b]topic[/b]", "-p", "[repo]")
    args = ("list", "-p", "[repo]") if command == "list" else ("recall", "markerword", "-p", "[repo]", "-n", "20")
    result = cli(*args)
    assert result.code == 0 and result.err == ""
    out = result.out
    assert "\x1b" not in out
    for content in MARKUP_CONTENTS:
        assert content.replace("\x1b", "\\x1b") in out, content
    assert "[b]topic[/b]" in out
    assert "[repo]" in out
    assert "\\x1b[31mred\\x1b[0m" in out


def test_plain_save_line_escapes_control_characters(cli):
    result = cli("save", "content", "--topic", "\x1b[31mred\x07", "-p", "x\x1b]0;title\x07")
    assert result.code == 0
    assert "\x1b" not in result.out and "\x07" not in result.out
    assert "\\x1b[31mred\\x07" in result.out


def test_multiline_content_round_trips(cli):
    text = "line one\n\n  indented [x]\n\ttab\r\nwindows line\n"
    assert _save(cli, text)["content"] == text
    assert cli("list", "--json").json()[0]["content"] == text
    assert "\r" not in cli("list").out


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "ids, named",
    [
        (["999"], ["999"]),
        (["abc"], ["abc"]),
        (["0"], ["0"]),
        (["-3"], ["-3"]),
        (["1.5"], ["1.5"]),
        (["1", "999"], ["999"]),
        (["1", "abc", "2"], ["abc"]),
        (["1", "998", "2", "999"], ["998", "999"]),
        (["0x10"], ["0x10"]),
        (["", "1"], []),
    ],
)
def test_dismiss_bad_ids_change_nothing(cli, db_path, ids, named):
    _save(cli, "first")
    _save(cli, "second")
    err = cli("dismiss", *ids).assert_one_error_line(1)
    for needle in named:
        assert needle in err
    assert "ERR_" in err
    assert [row["status"] for row in raw_rows(db_path)] == ["active", "active"]
    assert cli("list", "--status", "tombstoned", "--json").json() == []


def test_dismiss_superscript_digit_is_a_bad_id(cli, db_path):
    _save(cli, "first")
    cli("dismiss", "²").assert_one_error_line(1, "²")
    assert raw_rows(db_path)[0]["status"] == "active"


def test_dismiss_huge_id_is_named_not_a_traceback(cli, db_path):
    _save(cli, "first")
    cli("dismiss", "1", "99999999999999999999").assert_one_error_line(1, "99999999999999999999")
    assert raw_rows(db_path)[0]["status"] == "active"


def test_list_huge_limit_is_not_a_traceback(cli):
    _save(cli, "first")
    result = cli("list", "-n", "99999999999999999999", "--json")
    if result.code == 0:
        assert [m["content"] for m in result.json()] == ["first"]
    else:
        result.assert_one_error_line(2)


def test_recall_huge_limit_is_fine(cli):
    _save(cli, "first")
    result = cli("recall", "first", "-n", "99999999999999999999", "--json")
    assert result.code == 0 and [m["content"] for m in result.json()] == ["first"]


def test_dismiss_control_characters_in_bad_id_are_made_visible(cli):
    cli("dismiss", "\x1b[31m").assert_one_error_line(1, "\\x1b[31m")


@pytest.mark.parametrize(
    "argv",
    [
        ("frobnicate",),
        ("save",),
        ("recall",),
        ("dismiss",),
        ("save", "x", "--bogus"),
        ("recall", "x", "-n", "0"),
        ("recall", "x", "-n", "-1"),
        ("recall", "x", "-n", "abc"),
        ("recall", "x", "--limit", "2.5"),
        ("list", "-n", "0"),
        ("list", "-n", "-5"),
        ("list", "--limit", "many"),
        ("list", "--json", "extra-positional"),
        ("save", "x", "--kind"),
        ("--db",),
    ],
)
def test_usage_errors_exit_2_with_one_line(cli, db_path, argv):
    result = cli(*argv)
    result.assert_one_error_line(2)
    assert _count(db_path) == 0


@pytest.mark.parametrize("query", ["", "   ", "\n"])
def test_recall_empty_query_rejected(cli, query):
    _save(cli, "something")
    cli("recall", query).assert_one_error_line(1, "ERR_VALIDATION_FAILED")


def test_recall_unknown_kind_rejected(cli):
    cli("recall", "x", "--kind", "bogus").assert_one_error_line(1, "ERR_VALIDATION_FAILED", "bogus")


def test_recall_unknown_profile_rejected(cli):
    _save(cli, "something")
    cli("recall", "x", "--profile", "bogus").assert_one_error_line(1, "ERR_VALIDATION_FAILED", "bogus")


def test_list_unknown_status_rejected(cli):
    _existing_store()
    cli("list", "--status", "deleted").assert_one_error_line(1, "ERR_VALIDATION_FAILED", "deleted")


def test_list_unknown_kind_rejected(cli):
    cli("list", "--kind", "bogus").assert_one_error_line(1, "ERR_VALIDATION_FAILED", "bogus")


@pytest.mark.parametrize("argv", [("save", "x"), ("recall", "x"), ("list",)])
def test_bad_clock_is_err_config(cli, monkeypatch, db_path, argv):
    _save(cli, "x marks the spot")
    monkeypatch.setenv("MNEME_NOW", "yesterday-ish")
    cli(*argv).assert_one_error_line(1, "ERR_CONFIG", "MNEME_NOW")
    assert _count(db_path) == 1


NOT_SQLITE = b"this is a plain text file, not a database\n" * 50


@pytest.mark.parametrize("argv", [("save", "x"), ("list",), ("recall", "x"), ("dismiss", "1")])
def test_not_a_database_is_err_database(cli, tmp_path, argv):
    path = tmp_path / "notes.txt"
    path.write_bytes(NOT_SQLITE)
    cli("--db", str(path), *argv).assert_one_error_line(1, "ERR_DATABASE", "notes.txt")
    assert path.read_bytes() == NOT_SQLITE  # never rewritten
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0


def test_corrupt_database_header_is_err_database(cli, tmp_path):
    path = tmp_path / "broken.db"
    garbage = b"SQLite format 3\x00" + b"\xff" * 4080
    path.write_bytes(garbage)
    cli("--db", str(path), "list").assert_one_error_line(1, "ERR_DATABASE")
    assert path.read_bytes() == garbage


@pytest.mark.parametrize("relative", ["afile/mneme.db", "afile/sub/mneme.db"])
def test_uncreatable_path_is_err_database(cli, tmp_path, relative):
    (tmp_path / "afile").write_text("I am a file\n")
    cli("--db", str(tmp_path / relative), "save", "x").assert_one_error_line(1, "ERR_DATABASE")
    assert (tmp_path / "afile").read_text() == "I am a file\n"


def test_directory_as_db_is_err_database(cli, tmp_path):
    folder = tmp_path / "adir"
    folder.mkdir()
    cli("--db", str(folder), "list").assert_one_error_line(1, "ERR_DATABASE")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions; covered via PRAGMA query_only")
def test_read_only_database_is_err_database(cli, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "mneme.db"
    assert cli("--db", str(path), "save", "before").code == 0
    path.chmod(0o400)
    folder.chmod(0o500)
    try:
        cli("--db", str(path), "save", "after").assert_one_error_line(1, "ERR_DATABASE")
        listing = cli("--db", str(path), "list", "--json")
        if listing.code != 0:
            listing.assert_one_error_line(1, "ERR_DATABASE")
    finally:
        folder.chmod(0o700)
        path.chmod(0o600)
    assert [row["content"] for row in raw_rows(path)] == ["before"]


def test_list_plain_with_timezone_stamped_row(cli, db_path):
    _save(cli, "ours")
    connection = sqlite3.connect(db_path)
    connection.execute(
        "INSERT INTO memories(repo_id, kind, topic, content, task_id, created_at) VALUES (?,?,?,?,?,?)",
        ("global", "reflection", "General", "theirs", "", "2026-11-29T08:00:00Z"),
    )
    connection.commit()
    connection.close()
    result = cli("list")
    assert result.code == 0 and "theirs" in result.out
    assert cli("list", "--json").json()[0]["created_at"] == "2026-11-29T12:00:00Z"
    assert [m["created_at"] for m in cli("list", "--json").json()][1] == "2026-11-29T08:00:00Z"


# ---------------------------------------------------------------------- real processes
def _mneme(*args: str, env_extra: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "mneme_tui", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60
    )


def test_subprocess_round_trip_and_errors(tmp_path):
    db = str(tmp_path / "proc.db")
    saved = _mneme("--db", db, "save", "[bold]proc\x1b[31m[/bold]", "--json")
    assert saved.returncode == 0, saved.stderr
    assert json.loads(saved.stdout)["content"] == "[bold]proc\x1b[31m[/bold]"
    listed = _mneme("list", "--db", db)
    assert listed.returncode == 0 and "[bold]proc\\x1b[31m[/bold]" in listed.stdout
    assert "\x1b" not in listed.stdout
    for args, code in ((("save", ""), 1), (("recall", "x", "-n", "0"), 2)):
        failed = _mneme("--db", db, *args)
        assert failed.returncode == code, (args, failed.stderr)
        assert failed.stdout == "" and failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr
    broken = tmp_path / "broken.db"
    broken.write_bytes(NOT_SQLITE)
    failed = _mneme("--db", str(broken), "list")
    assert failed.returncode == 1 and failed.stderr.count("\n") == 1 and "ERR_DATABASE" in failed.stderr
    assert "Traceback" not in failed.stderr
