"""Property-based fuzz of the JSON documents mneme reads: task reports (``mneme task sync``, from a file and
from standard input) and eval datasets (``mneme eval``). Random JSON shapes, valid documents with one part
replaced, lone surrogate escapes, huge numbers, NaN, random bytes: never a traceback, exit 0/1/2, one
error line, and an unchanged database when the command fails. Seeded and bounded."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))  # cli_harness, in any import mode

from cli_harness import assert_no_traceback, database_state, run

from mneme_tui.memory.learning.symbols import MAX_FILE_BYTES

FUZZ = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

HUGE = "<a 5,000-digit number>"  # json.dumps cannot write one (Python's int limit): ``dumps`` puts it in
strings = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "\udcff",
            "a\ud800b",
            "[bold]",
            "a|b\\c",
            "\x1b[2J",
            "../etc",
            "/abs",
            "src/app.py",
            "src/huge.py",
            "src/pipe.py",
            "src/bin.py",
            "",
            " ",
            "x" * 60_000,
        ]
    ),
)
numbers = st.one_of(
    st.integers(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([10**23, HUGE, 1e308, -1e308]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, strings)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(strings, inner, max_size=4)),
    max_leaves=12,
)


def dumps(document: Any) -> bytes:
    """JSON text as a tool might write it: surrogates as ``\\udcff`` escapes, NaN as ``NaN``, huge ints whole."""
    return json.dumps(document, ensure_ascii=True).replace(json.dumps(HUGE), "9" * 5000).encode()


def valid_report() -> dict[str, Any]:
    failing = [
        {"name": "Cognitive Complexity", "passed": False, "message": "21 > 15", "file": "src/app.py"},
        {"name": "Statement Coverage", "passed": True, "message": "92%"},
    ]
    passing = [
        {"name": "Cognitive Complexity", "passed": True, "file": "src/app.py"},
        {"name": "Statement Coverage", "passed": True, "message": "93%"},
    ]
    return {
        "version": 1,
        "task_id": "INT-7",
        "repo": "acme",
        "modified_files": ["src/app.py"],
        "walkthrough": "Split run() in two.",
        "runs": [{"label": "first", "gates": failing}, {"gates": passing}],
    }


REPORT_PATHS = [
    ("version",),
    ("task_id",),
    ("repo",),
    ("modified_files",),
    ("modified_files", 0),
    ("walkthrough",),
    ("scope",),
    ("x-extra",),
    ("runs",),
    ("runs", 0),
    ("runs", 0, "gates"),
    ("runs", 0, "gates", 0),
    ("runs", 1, "gates", 0, "passed"),
    ("runs", 1, "gates", 0, "file"),
    ("runs", 1, "gates", 0, "name"),
    ("runs", 1, "gates", 1, "message"),
    ("runs", 1, "x-n"),
    ("runs", 0, "label"),
]


def replaced(document: Any, path: tuple, value: Any) -> Any:
    """``document`` with the part at ``path`` replaced by ``value`` (unchanged when an earlier replacement
    already removed that part)."""
    parent = document
    try:
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = value
    except (KeyError, IndexError, TypeError):
        pass
    return document


@st.composite
def reports(draw) -> bytes:
    document = valid_report()
    for _ in range(draw(st.integers(0, 3))):
        document = replaced(document, draw(st.sampled_from(REPORT_PATHS)), draw(json_values))
    shape = draw(st.sampled_from(["mutated", "mutated", "random", "bytes", "cut"]))
    if shape == "random":
        return dumps(draw(json_values))
    if shape == "bytes":
        return draw(st.binary(max_size=64))
    text = dumps(document)
    return text[: draw(st.integers(0, len(text)))] if shape == "cut" else text


@pytest.fixture
def work_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository root whose cited files include a binary, an oversized sparse file and a FIFO."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def run():\n    pass\n\n\nclass App:\n    def go(self):\n        pass\n")
    (root / "src" / "bin.py").write_bytes(b"\x00\xff" * 100)
    with (root / "src" / "huge.py").open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    os.mkfifo(root / "src" / "pipe.py")
    assert run(["save", "an existing memory", "-p", "acme"]).code == 0
    return root


@FUZZ
@given(content=reports(), from_stdin=st.booleans(), dry_run=st.booleans())
def test_task_reports(work_tree: Path, content: bytes, from_stdin: bool, dry_run: bool) -> None:
    path = work_tree.parent / "report.json"
    path.write_bytes(content)
    argv = ["task", "sync", "-" if from_stdin else str(path), "--root", str(work_tree)] + (["--dry-run"] * dry_run)
    before = database_state()
    result = run(argv, stdin=content if from_stdin else b"")
    assert_no_traceback(result, before, database_state())
    if has_lone_surrogate(content):
        assert result.code == 1


def has_lone_surrogate(content: bytes) -> bool:
    """Whether the JSON decodes to a string holding a lone surrogate (a pair like ``\\ud83d\\udca5`` is fine)."""
    try:
        document = json.loads(content, parse_int=float)
        json.dumps(document, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    except (ValueError, RecursionError):  # not JSON at all (UnicodeDecodeError included)
        return False
    return False


def valid_dataset() -> dict[str, Any]:
    memories = [
        {
            "key": f"m{i}",
            "repo": "acme" if i % 2 else "global",
            "kind": kind,
            "topic": "t",
            "content": text,
            "age_days": i * 3,
            "access_count": i,
        }
        for i, (kind, text) in enumerate(
            [
                ("fact", "peewee opens one connection per thread"),
                ("pitfall", "sqlite busy timeout"),
                ("axiom", "never delete"),
            ]
        )
    ]
    questions = [
        {
            "id": "q1",
            "query": "connection per thread",
            "repo": "acme",
            "cross_repo": False,
            "answers": ["m0"],
            "category": "lexical",
        }
    ]
    return {"description": "fuzz", "now": "2026-11-29T12:00:00", "memories": memories, "questions": questions}


DATASET_PATHS = [
    ("description",),
    ("now",),
    ("memories",),
    ("memories", 0),
    ("memories", 1, "age_days"),
    ("memories", 1, "access_count"),
    ("memories", 0, "content"),
    ("memories", 2, "kind"),
    ("memories", 0, "status"),
    ("memories", 1, "key"),
    ("questions",),
    ("questions", 0, "answers"),
    ("questions", 0, "cross_repo"),
    ("questions", 0, "category"),
    ("questions", 0, "query"),
    ("x",),
]


@st.composite
def datasets(draw) -> bytes:
    document = valid_dataset()
    for _ in range(draw(st.integers(0, 2))):
        document = replaced(document, draw(st.sampled_from(DATASET_PATHS)), draw(json_values))
    return dumps(document) if draw(st.integers(0, 5)) else draw(st.binary(max_size=64))


@FUZZ
@given(content=datasets())
def test_eval_datasets(work_tree: Path, content: bytes) -> None:
    path = work_tree.parent / "dataset.json"
    path.write_bytes(content)
    before = database_state()
    result = run(["eval", str(path), "--profile", "bm25"])
    assert_no_traceback(result, before, database_state())
