"""A backend is one module behind the typed contract (``persistence/dialect.py``): no product code outside the
dialect modules branches on the backend or reaches for a backend's driver.

Allowed, and why:
- a module named for one backend (``sqlite``, ``postgres`` or ``pg`` in its file name): it is about that backend
  only, so it branches on nothing. ``sqlite_dialect.py`` and ``postgres_dialect.py`` are the backends;
  ``pg_copy.py`` decodes PostgreSQL's binary COPY for ``postgres_dialect``; ``pg_scratch.py`` and ``bench/postgresql_bench.py``
  are ``mneme bench --db postgresql://…`` (its scratch schema, its measures).
- ``persistence/dialect.py``: the contract, and the one list of backends ``dialect_for`` chooses from.
- ``config.py``, ``database_urls.py``: they parse connection URLs, so they know the URL schemes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mneme_tui
from mneme_tui.memory.persistence import dialect as contract
from mneme_tui.memory.persistence import postgres_dialect, sqlite_dialect

PACKAGE = Path(mneme_tui.__file__).parent
ALLOWED = {"memory/persistence/dialect.py", "config.py", "database_urls.py"}
BACKEND_WORDS = ("postgres", "sqlite")
BACKEND_FILE_WORDS = {"postgres", "postgresql", "sqlite", "pg"}


def _allowed(relative: str) -> bool:
    """The contract, the URL parsers, and modules named for one backend."""
    return relative in ALLOWED or bool(BACKEND_FILE_WORDS & set(Path(relative).stem.split("_")))


BACKEND_MODULES = ("sqlite3", "psycopg2", "psycopg", "sqlite_dialect", "postgres_dialect", "pg_copy", "pg_scratch")


def _names_backend(node: ast.AST) -> bool:
    """A string constant naming a backend, or a dialect's ``NAME``: what a comparison would branch on."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return any(word in node.value.lower() for word in BACKEND_WORDS)
    return isinstance(node, ast.Attribute) and node.attr == "NAME"


def _backend_class(node: ast.AST) -> bool:
    """A name or attribute naming a backend's class (``PostgresDatabase``, ``peewee.SqliteDatabase``)."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return any(word in name.lower() for word in BACKEND_WORDS)


def backend_branches(source: str) -> list[str]:
    """Each comparison with a backend's name, ``isinstance`` check of a backend's class, and import of a backend's
    module or driver in ``source``, as ``line: code``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Compare) and any(map(_names_backend, [node.left, *node.comparators]))) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and any(_backend_class(sub) for sub in ast.walk(node.args[1]))
        ):
            found.append(node)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
            if any(part in BACKEND_MODULES for name in names for part in name.split(".")):
                found.append(node)
    return [f"{node.lineno}: {ast.unparse(node)}" for node in found]


def test_no_backend_branch_outside_the_dialect_modules():
    offenders = {
        relative: branches
        for path in sorted(PACKAGE.rglob("*.py"))
        if not _allowed(relative := path.relative_to(PACKAGE).as_posix())
        and (branches := backend_branches(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


@pytest.mark.parametrize(
    "code",
    [
        'like = "ILIKE" if dialect_of(db).NAME == "postgresql" else "LIKE"',
        "if dialect.NAME != other: pass",
        "ok = isinstance(db, postgres_dialect.PostgresDatabase)",
        "ok = isinstance(db, peewee.SqliteDatabase)",
        "from mneme_tui.memory.persistence import sqlite_dialect",
        "import psycopg2.extras",
    ],
)
def test_the_check_finds_a_backend_branch(code):
    assert backend_branches(code)


def test_a_backend_is_chosen_from_its_target_once(tmp_path: Path):
    assert contract.dialect_for(tmp_path / "m.db") is sqlite_dialect
    assert contract.dialect_for(str(tmp_path / "m.db")) is sqlite_dialect
    assert contract.dialect_for("postgresql://mneme@127.0.0.1/db") is postgres_dialect
    assert contract.dialect_for("postgres://mneme@127.0.0.1/db") is postgres_dialect
    assert [dialect.NAME for dialect in contract.DIALECTS] == ["postgresql", "sqlite"]


def test_only_a_file_backend_has_a_file(tmp_path: Path):
    assert sqlite_dialect.database_file(str(tmp_path / "m.db")) == tmp_path / "m.db"
    assert postgres_dialect.database_file("postgresql://mneme@127.0.0.1/db") is None
