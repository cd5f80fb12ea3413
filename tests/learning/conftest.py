"""Builders for task reports, a small repository work tree, and a command-line runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

STORE_PY = '''"""The store."""


class Store:
    def save(self, item):
        return self._insert(self._validate(item))

    def _validate(self, item):
        return item

    async def _insert(self, item):
        return item


def open_store(path):
    return Store()
'''

SCHEMA_GO = """package schema

type Table struct {
}

func (t *Table) Columns() []string {
	return nil
}

func Parse(text string) (*Table, error) {
	return nil, nil
}
"""


@pytest.fixture
def repo_root(tmp_path: Path) -> Path:
    """A work tree with a Python module, a Go file and a root file."""
    root = tmp_path / "work"
    (root / "src" / "store").mkdir(parents=True)
    (root / "src" / "schema").mkdir(parents=True)
    (root / "src" / "store" / "store.py").write_text(STORE_PY)
    (root / "src" / "store" / "models.py").write_text("class Row:\n    pass\n")
    (root / "src" / "schema" / "table.go").write_text(SCHEMA_GO)
    (root / "setup.py").write_text("def main():\n    pass\n")
    return root


def gate(name: str, passed: bool, message: str = "", file: str | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {"name": name, "passed": passed, "message": message}
    if file is not None:
        document["file"] = file
    return document


def report(
    task_id: str = "INT-1",
    *,
    repo: str = "acme",
    files: tuple[str, ...] = ("src/store/store.py",),
    trapped: tuple[tuple[str, str | None], ...] = (("Cognitive Complexity", "src/store/store.py"),),
    final_passed: bool = True,
    walkthrough: str = "Split Store.save into _validate and _insert so each stays small.",
) -> dict[str, Any]:
    """A report whose first run fails the ``trapped`` (gate, file) pairs and whose final run passes all
    of them (or fails the first one when ``final_passed`` is false)."""
    names = [name for name, _ in trapped] or ["Statement Coverage"]
    first = [gate(name, False, f"{name} over the limit", file) for name, file in trapped]
    first.append(gate("Statement Coverage", True, "92%"))
    final = [gate(name, True, "ok", file) for name, file in trapped]
    final.append(gate("Statement Coverage", True, "93%"))
    if not final_passed:
        final[0] = gate(names[0], False, "still over the limit", trapped[0][1] if trapped else None)
    return {
        "task_id": task_id,
        "repo": repo,
        "modified_files": list(files),
        "walkthrough": walkthrough,
        "runs": [{"gates": first}, {"gates": final}],
    }


@pytest.fixture
def make_report():
    """The ``report`` builder."""
    return report


@pytest.fixture
def make_gate():
    """The ``gate`` builder."""
    return gate


@pytest.fixture
def write_report(tmp_path: Path):
    """Write a report document (or raw text) to a file and return its path."""
    counter = iter(range(1_000_000))

    def write(document: Any, *, raw: bool = False) -> Path:
        path = tmp_path / f"report-{next(counter)}.json"
        path.write_text(document if raw else json.dumps(document))
        return path

    return write


@pytest.fixture
def store(db_target):
    """A fresh Store on each backend (``db_target``)."""
    from mneme_tui.memory.store import Store

    opened = Store(db_target)
    yield opened
    opened.close()


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], new_db_target):
    """Run ``mneme`` in-process against a database of its own (``cli.db`` or a PostgreSQL database): returns
    (exit code, stdout, stderr)."""
    from mneme_tui.cli import main

    db = new_db_target("cli")

    def run(*argv: str) -> tuple[int, str, str]:
        code = main([*argv, "--db", str(db)])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    run.db = db
    return run


@pytest.fixture
def cli_store(cli):
    """A Store on the same file as ``cli`` (to inspect what a command wrote)."""
    from mneme_tui.memory.store import Store

    return Store(cli.db)
