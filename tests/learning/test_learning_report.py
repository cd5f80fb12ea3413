"""The task report format: what is accepted, what is rejected (and that a rejected report writes nothing)."""

from __future__ import annotations

import copy

import pytest

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.learning.task_report import parse_report, parse_report_text


def test_valid_report_parses(make_report):
    parsed = parse_report(make_report(files=("src/store/store.py", "./src/store/models.py", "src/store/store.py")))
    assert parsed.task_id == "INT-1" and parsed.repo == "acme"
    assert parsed.modified_files == ("src/store/store.py", "src/store/models.py")
    assert parsed.scope == "src/store"
    assert len(parsed.runs) == 2 and parsed.verified
    assert parsed.runs[0].failures[0].file == "src/store/store.py"


def test_scope_is_the_common_directory_or_explicit(make_report):
    document = make_report(files=("src/store/store.py", "src/schema/table.go"))
    assert parse_report(document).scope == "src"
    document["modified_files"].append("README.md")
    assert parse_report(document).scope == "."
    document["scope"] = "src/store/"
    assert parse_report(document).scope == "src/store"


def test_extension_keys_are_ignored(make_report):
    document = make_report()
    document["x-ci"] = {"pipeline": 12}
    document["runs"][0]["x-duration"] = 3.5
    document["runs"][0]["gates"][0]["x-rule"] = "S3776"
    assert parse_report(document).task_id == "INT-1"


def _mutate(document, path, value):
    target = document
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value


_DELETE = object()

MALFORMED = [
    # (case id, path to change, new value, text expected in the message)
    ("missing task_id", ("task_id",), _DELETE, "missing 'task_id'"),
    ("missing runs", ("runs",), _DELETE, "missing 'runs'"),
    ("missing walkthrough", ("walkthrough",), _DELETE, "missing 'walkthrough'"),
    ("missing gate name", ("runs", 0, "gates", 0, "name"), _DELETE, "missing 'name'"),
    ("missing passed", ("runs", 1, "gates", 0, "passed"), _DELETE, "missing 'passed'"),
    ("task_id not a string", ("task_id",), 734, "task_id must be a string"),
    ("empty task_id", ("task_id",), "  ", "task_id cannot be empty"),
    ("task_id past the store's limit", ("task_id",), "€" * 171, "task_id is longer than 512 bytes of UTF-8"),
    ("multi-line repo", ("repo",), "a\nb", "repo must be one line"),
    ("modified_files not a list", ("modified_files",), "src/a.py", "modified_files must be a list"),
    ("modified file not a string", ("modified_files", 0), 3, "modified_files[0] must be a string"),
    ("absolute path", ("modified_files", 0), "/etc/passwd", "must be relative"),
    ("path leaving the repo", ("runs", 0, "gates", 0, "file"), "../secret.py", "cannot leave the repository"),
    ("passed as a string", ("runs", 1, "gates", 0, "passed"), "true", 'passed must be true or false, not "true"'),
    ("passed as a number", ("runs", 0, "gates", 0, "passed"), 0, "passed must be true or false, not 0"),
    ("message not a string", ("runs", 0, "gates", 0, "message"), ["x"], "message must be a string, not a list"),
    ("empty walkthrough", ("walkthrough",), " \n", "walkthrough cannot be empty"),
    ("runs not a list", ("runs",), {"gates": []}, "runs must be a non-empty list"),
    ("no runs", ("runs",), [], "runs must be a non-empty list"),
    ("empty gates", ("runs", 1, "gates"), [], "runs[1].gates must be a non-empty list"),
    ("run not an object", ("runs", 0), ["gate"], "runs[0]: must be a JSON object, not a list"),
    ("gate not an object", ("runs", 0, "gates", 0), "Coverage", "must be a JSON object, not a string"),
    ("unknown top-level key", ("modifed_files",), [], "unknown key 'modifed_files'"),
    ("unknown gate key", ("runs", 0, "gates", 0, "cited_file"), "a.py", "unknown key 'cited_file'"),
    ("wrong version", ("version",), 2, "version must be 1"),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"), [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED]
)
def test_malformed_report_is_rejected_with_a_clear_error(make_report, path, value, expected):
    document = copy.deepcopy(make_report())
    _mutate(document, path, value)
    with pytest.raises(MnemeError) as caught:
        parse_report(document, source="r.json")
    assert caught.value.code == ERR_VALIDATION_FAILED
    assert expected in caught.value.message
    assert caught.value.message.startswith("r.json") and caught.value.message.endswith("nothing was written")


def test_duplicate_gate_in_one_run_is_rejected(make_report, make_gate):
    document = make_report()
    document["runs"][0]["gates"].append(make_gate("Cognitive Complexity", True, "", "src/store/store.py"))
    with pytest.raises(MnemeError, match="appears twice in one run"):
        parse_report(document)


@pytest.mark.parametrize("text", ["", "not json", "{", "[1, 2]", '"report"', "null"])
def test_not_a_json_object_is_rejected(text):
    with pytest.raises(MnemeError) as caught:
        parse_report_text(text, source="r.json")
    assert caught.value.code == ERR_VALIDATION_FAILED
    assert "r.json" in caught.value.message


@pytest.mark.sqlite_only  # checks that no database file was created
def test_cli_rejects_malformed_reports_and_writes_nothing(cli, write_report, make_report, repo_root):
    broken = make_report()
    broken["runs"][1]["gates"][0]["passed"] = "yes"
    cases = [
        write_report("{not json", raw=True),
        write_report(broken),
        write_report({"task_id": "X"}),
        write_report([]),
        repo_root / "missing.json",
    ]
    for path in cases:
        code, out, err = cli("task", "sync", str(path), "--root", str(repo_root))
        assert code == 1, path
        assert out == ""
        assert err.startswith("mneme: ERR_") and err.count("\n") == 1
    assert not cli.db.exists()  # the database was never even opened
