"""Nothing outside ``memory/persistence/`` talks SQL: that is what lets a second backend be one module."""

from __future__ import annotations

import re
from pathlib import Path

import mneme_tui

PACKAGE = Path(mneme_tui.__file__).parent
PERSISTENCE = PACKAGE / "memory" / "persistence"
SQL = re.compile(
    r"execute_sql|executemany|executescript|\.atomic\(|^\s*(import|from) sqlite3|sqlite_master|PRAGMA "
    r"|[\"'](SELECT|INSERT INTO|INSERT OR|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX|TRIGGER)|DROP )",
    re.MULTILINE,
)


def test_no_sql_outside_the_persistence_layer():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if PERSISTENCE in path.parents:
            continue
        for match in SQL.finditer(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(PACKAGE)}: {match.group(0)!r}")
    assert offenders == []


def test_the_probe_finds_sql_where_it_is():
    assert any(SQL.search(path.read_text(encoding="utf-8")) for path in PERSISTENCE.glob("*.py"))
