"""Every bad input named in issue 11 ("No traceback, ever" and "Input is bounded before it is read"): each
gives one line naming the problem, exit 1 (usage errors exit 2), and changes nothing."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # cli_harness, in any import mode

from cli_harness import database_state, folder_state, run, run_process

from mneme_tui.memory.learning.symbols import MAX_FILE_BYTES, scan_file
from mneme_tui.memory.learning.task_report import MAX_REPORT_BYTES
from mneme_tui.validation import MAX_CONTENT_CHARS

BAD = "a\udcff"  # what Python makes of the argument bytes b"a\xff" (surrogateescape)
HUGE = "9" * 5000  # past Python's 4,300-digit int() limit


@pytest.fixture(autouse=True)
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder outside git with one saved memory, so 'nothing changed' can be checked."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    assert run(["save", "an existing memory", "-p", "acme"]).code == 0
    return cwd


def report_document(**extra) -> dict:
    gates = [{"name": "Statement Coverage", "passed": True, "message": "93%"}]
    return {
        "task_id": "INT-1",
        "repo": "acme",
        "modified_files": ["src/app.py"],
        "walkthrough": "Split the function.",
        "runs": [{"gates": gates}],
        **extra,
    }


def dataset_text(memory_extra: str = "", top_extra: str = "") -> str:
    memory = (
        '{"key": "m1", "repo": "r", "kind": "fact", "topic": "t", "content": "c", "age_days": 1, '
        f'"access_count": 0{memory_extra}}}'
    )
    question = '{"id": "q1", "query": "c", "repo": "r", "cross_repo": false, "answers": ["m1"], "category": "lexical"}'
    return f'{{"now": "2026-11-29T12:00:00", "memories": [{memory}], "questions": [{question}]{top_extra}}}'


def write(path: Path, data: str | bytes) -> str:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


# ----------------------------------------------------------------- invalid UTF-8 in an argument
ARGUMENTS = [
    (["save", BAD], "CONTENT"),
    (["save", "x", "--topic", BAD], "--topic"),
    (["save", "x", "-p", BAD], "-p/--project"),
    (["save", "x", "--task", BAD], "--task"),
    (["list", "-p", BAD], "-p/--project"),
    (["recall", BAD], "QUERY"),
    (["handshake", "--task", BAD], "--task"),
    (["legion", "record", "outcome", "--agent", BAD, "--outcome", "success", "--summary", "s"], "--agent"),
]


@pytest.mark.parametrize(("argv", "name"), ARGUMENTS, ids=[" ".join(a[:2]) + " " + n for a, n in ARGUMENTS])
def test_invalid_utf8_argument_is_refused_naming_it(argv, name, tmp_path):
    legion = tmp_path / "legion"
    legion.mkdir()
    before = database_state()
    result = run([*argv, "--dir", str(legion)] if argv[0] == "legion" else argv)
    result.assert_one_error_line(1, "ERR_VALIDATION_FAILED", f"{name} is not valid UTF-8", "byte 0xff")
    assert database_state() == before and folder_state(legion) == {}


def test_invalid_utf8_argument_bytes_in_a_real_process(tmp_path):
    """The real path: argv bytes decoded by Python itself, and an undecodable MNEME_REPO."""
    env = {**os.environ, "PYTHONUTF8": "1"}
    for argv in ([b"save", b"a\xff"], [b"save", b"x", b"--topic", b"a\xff"], [b"list", b"-p", b"\xff"]):
        run_process(argv, env=env).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "byte 0xff")
    for name in ("MNEME_REPO", "MNEME_DB", "MNEME_LEGION_DIR", "MNEME_CONFIG", "MNEME_CACHE_DIR"):
        bad_env = {**env, name: str(tmp_path / "made" / os.fsdecode(b"r\xff"))}
        argv = ["legion", "recall"] if name == "MNEME_LEGION_DIR" else ["recall", "x"]
        run_process(argv, env=bad_env).assert_one_error_line(1, name, "byte 0xff")
    assert not (tmp_path / "made").exists()  # nothing was created at the undecodable paths


# ----------------------------------------------------------------------- standard input
@pytest.mark.parametrize(
    ("argv", "stdin", "needle"),
    [
        (["save", "-"], b"a\xff", "standard input is not UTF-8 text"),
        (["task", "sync", "-"], b'{"task_id": "\xff"}', "standard input is not UTF-8 text"),
        (["save", "-"], b"x" * (MAX_CONTENT_CHARS * 4 + 1), "content size limit of 100,000 characters"),
        (["task", "sync", "-"], b" " * (MAX_REPORT_BYTES + 1), "report size limit of 10,000,000 bytes"),
    ],
)
def test_bad_standard_input(argv, stdin, needle):
    before = database_state()
    run(argv, stdin=stdin).assert_one_error_line(1, "ERR_VALIDATION_FAILED", needle)
    assert database_state() == before


def test_endless_standard_input_is_cut_at_the_limit():
    """``mneme save - < /dev/zero`` reads limit + 1 bytes, then refuses (it reached 5.4 GB before)."""
    with open("/dev/zero", "rb") as zero:
        done = run_process(["save", "-"], stdin=zero.read(MAX_CONTENT_CHARS * 4 + 10))
    done.assert_one_error_line(1, "content size limit")


# --------------------------------------------------------------------------- task reports
@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (json.dumps(report_document(walkthrough="\udcff")), "lone surrogate \\udcff"),
        (json.dumps(report_document(**{"x-note": "\ud800"})), "lone surrogate \\ud800"),
        (json.dumps(report_document())[:-1] + f', "x-count": {HUGE}}}', "5000 digits exceeds the limit of 20"),
        (json.dumps(report_document(repo="9" * 30))[:-1] + f', "x-n": -{HUGE}}}', "5000 digits"),
        (b'{"task_id": "\xff"}', "is not UTF-8 text"),
    ],
)
def test_bad_task_report(tmp_path, content, needle):
    before = database_state()
    path = write(tmp_path / "report.json", content)
    run(["task", "sync", path]).assert_one_error_line(1, "ERR_VALIDATION_FAILED", needle)
    assert database_state() == before


def test_report_that_is_not_a_regular_file_is_refused(tmp_path):
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)  # it used to hang, waiting for a writer
    run(["task", "sync", str(fifo)]).assert_one_error_line(1, "ERR_IO", "not a regular file")
    run(["task", "sync", "/dev/zero"]).assert_one_error_line(1, "ERR_IO", "not a regular file")
    run(["task", "sync", str(tmp_path)]).assert_one_error_line(1, "ERR_IO", "is a folder")


def test_report_past_the_size_limit_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(MAX_REPORT_BYTES + 1)  # sparse: no disk used
    run(["task", "sync", str(big)]).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "report size limit")


def test_cited_source_past_the_size_limit_is_skipped_with_a_note(tmp_path):
    (tmp_path / "src").mkdir()
    with (tmp_path / "src" / "huge.py").open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    os.mkfifo(tmp_path / "src" / "pipe.py")
    scan = scan_file(tmp_path, "src/huge.py")
    assert scan.symbols == () and "cited source size limit of 2,000,000 bytes" in scan.note
    assert scan_file(tmp_path, "src/pipe.py").symbols == ()


# --------------------------------------------------------------------------- eval datasets
@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (dataset_text(', "status": "\\udcff"'), "lone surrogate \\udcff"),
        (dataset_text(top_extra=', "description": "\\ud83d"'), "lone surrogate \\ud83d"),
        (dataset_text().replace('"age_days": 1', '"age_days": 1e308'), "age_days"),
        (dataset_text().replace('"access_count": 0', '"access_count": 1e23'), "access_count"),
        (dataset_text().replace('"access_count": 0', '"access_count": 100000000000000000000000'), "24 digits"),
        (dataset_text().replace('"access_count": 0', '"access_count": 99999999999'), "access_count"),
        (dataset_text(top_extra=f', "x": {HUGE}'), "5000 digits"),
        (dataset_text().replace("2026-11-29T12:00:00", "0001-01-01T00:00:00"), "'now'"),
    ],
)
def test_bad_eval_dataset(tmp_path, text, needle):
    path = write(tmp_path / "dataset.json", text)
    run(["eval", path]).assert_one_error_line(1, "ERR_VALIDATION_FAILED", needle)


def test_dataset_that_is_not_a_regular_file_is_refused():
    run(["eval", "/dev/zero"]).assert_one_error_line(1, "ERR_IO", "not a regular file")


# ----------------------------------------------------------------------- numbers and ids
@pytest.mark.parametrize("argv", [["dismiss", HUGE], ["dismiss", "1", HUGE], ["dismiss", "--", "-" + HUGE]])
def test_huge_id_is_refused(argv):
    before = database_state()
    err = run(argv).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "not a memory id", "characters)")
    assert len(err) < 200 and database_state() == before


@pytest.mark.parametrize(
    "argv", [["list", "-n", HUGE], ["recall", "x", "-n", HUGE], ["legion", "record", "outcome", "--importance", HUGE]]
)
def test_huge_number_option_is_a_usage_error(argv):
    run(argv).assert_one_error_line(2, "error")


# ------------------------------------------------------------------- environment and config
@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("0001-01-01T00:00:00+14:00", "outside the years 1-9999"),
        ("9999-12-31T23:59:59-14:00", "outside the years 1-9999"),
        ("0001-01-01T00:00:00", "outside 1900-9998"),
    ],
)
@pytest.mark.parametrize("argv", [["save", "x"], ["recall", "x"], ["list", "-A"], ["handshake", "-p", "acme"]])
def test_clock_out_of_range(monkeypatch, value, needle, argv):
    before = database_state()
    monkeypatch.setenv("MNEME_NOW", value)
    run(argv).assert_one_error_line(1, "ERR_CONFIG", "MNEME_NOW", needle)
    monkeypatch.setenv("MNEME_NOW", "2026-11-29T12:00:00")
    assert database_state() == before


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b'profile = "\xff"\n', "is not UTF-8 text"),
        (f"n = {HUGE}\n".encode(), "is not valid TOML"),
        (b"a = " + b"[" * 5000 + b"]" * 5000, "is not valid TOML"),
        (b"x" * 1_000_001, "config file size limit"),
    ],
)
def test_bad_config_file(isolated_environment, content, needle):
    (isolated_environment / "config.toml").write_bytes(content)
    run(["recall", "x"]).assert_one_error_line(1, "ERR_CONFIG", needle)


def test_config_path_too_long_for_the_file_system(monkeypatch):
    monkeypatch.setenv("MNEME_CONFIG", "x" * 300)
    run(["recall", "x"]).assert_one_error_line(1, "ERR_CONFIG", "File name too long")


def test_config_file_that_is_a_fifo(isolated_environment, monkeypatch):
    os.mkfifo(isolated_environment / "config.fifo")
    monkeypatch.setenv("MNEME_CONFIG", str(isolated_environment / "config.fifo"))
    run(["recall", "x"]).assert_one_error_line(1, "ERR_CONFIG", "not a regular file")


def test_database_path_too_long_for_the_file_system(monkeypatch):
    run(["--db", "x" * 300, "list"]).assert_one_error_line(1, "ERR_DATABASE", "File name too long")
    monkeypatch.setenv("MNEME_DB", "x" * 300)
    run(["recall", "x"]).assert_one_error_line(1, "ERR_DATABASE", "File name too long")


def test_empty_db_option_is_an_error(isolated_environment):
    before = database_state()
    run(["--db", "", "list"]).assert_one_error_line(1, "ERR_VALIDATION_FAILED", "--db cannot be empty")
    run(["save", "x", "--db", " "]).assert_one_error_line(1, "--db cannot be empty")
    assert database_state() == before
