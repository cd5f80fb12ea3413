"""Opening a database: what is not ours is refused before anything changes, and many processes may
create the same new database at once without one failing."""

from __future__ import annotations

import multiprocessing
import shutil
import sqlite3
import textwrap
from pathlib import Path

import pytest

from mneme_tui.errors import ERR_DATABASE, MnemeError
from mneme_tui.memory.persistence.migrations import MIGRATIONS, SCHEMA_VERSION, pending
from mneme_tui.memory.store import Store

SCHEMA1_FIXTURE = Path(__file__).parent.parent / "data" / "mneme_schema1.db"


def _untouched(path: Path) -> tuple[bytes, bool, bool]:
    return path.read_bytes(), Path(f"{path}-wal").exists(), Path(f"{path}-shm").exists()


def _refused(path: Path, *needles: str) -> None:
    before = _untouched(path)
    with pytest.raises(MnemeError) as caught:
        Store(path)
    assert caught.value.code == ERR_DATABASE
    for needle in needles:
        assert needle in caught.value.message
    assert _untouched(path) == before  # no WAL switch, no table, no sidecar file


def _refused_unchanged(path: Path, *statements: str, needles: tuple[str, ...]) -> None:
    """Another application's SQLite file made of ``statements`` is refused, still in its own journal mode."""
    connection = sqlite3.connect(path)
    for statement in statements:
        connection.execute(statement)
    connection.commit()
    connection.close()
    _refused(path, *needles)
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    connection.close()


def test_a_foreign_sqlite_file_is_refused_unchanged(tmp_path: Path):
    _refused_unchanged(
        tmp_path / "other.db",
        "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)",
        "INSERT INTO invoices VALUES (1, 9.5)",
        needles=("not a mneme database",),
    )


def test_a_newer_schema_is_refused_unchanged(tmp_path: Path):
    path = tmp_path / "newer.db"
    connection = sqlite3.connect(path)
    connection.executescript(
        "".join(m.scripts["sqlite"] for m in MIGRATIONS) + f"PRAGMA user_version = {SCHEMA_VERSION + 1};"
    )
    connection.close()
    _refused(path, "newer mneme", f"schema {SCHEMA_VERSION + 1}")


def test_a_file_that_is_not_sqlite_is_refused_unchanged(tmp_path: Path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 200)
    _refused(path, "not a mneme database")


def test_migrations_are_one_ordered_list():
    versions = [m.version for m in MIGRATIONS]
    assert versions == list(range(1, len(MIGRATIONS) + 1)) and versions[-1] == SCHEMA_VERSION
    assert [m.version for m in pending(1)] == versions[1:] and pending(SCHEMA_VERSION) == []


# Run with exec() in each child: open the same new database as the other processes, round after round.
OPENER = textwrap.dedent(
    """
    from mneme_tui.memory.store import Store

    for round_number in range(rounds):
        barrier.wait(60)
        store = Store(f"{folder}/fresh-{round_number}.db")
        store.save(f"{tag} saved in round {round_number}", repo_id=tag)
        store.close()
    """
)


def _open_at_once(folder: Path, processes: int, rounds: int) -> None:
    """``processes`` children open ``fresh-<round>.db`` together, round after round, each saving a row."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(processes)
    children = [
        context.Process(
            target=exec, args=(OPENER, {"folder": str(folder), "rounds": rounds, "tag": f"p{n}", "barrier": barrier})
        )
        for n in range(processes)
    ]
    for child in children:
        child.start()
    for child in children:
        child.join(120)
    assert [child.exitcode for child in children] == [0] * processes


def _repos_and_schema(path: Path) -> tuple[str, int, list[str]]:
    connection = sqlite3.connect(path)
    try:
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        return mode, version, sorted(r[0] for r in connection.execute("SELECT repo_id FROM memories"))
    finally:
        connection.close()


def test_many_processes_create_one_new_database_at_once(tmp_path: Path):
    """8 processes open each of 4 brand-new files at the same moment: none fails with "database is
    locked", each file ends at the current schema in WAL mode with every process's row."""
    _open_at_once(tmp_path, processes=8, rounds=4)
    for round_number in range(4):
        assert _repos_and_schema(tmp_path / f"fresh-{round_number}.db") == (
            "wal",
            SCHEMA_VERSION,
            sorted(f"p{n}" for n in range(8)),
        )


def test_many_processes_upgrade_one_old_database_at_once(tmp_path: Path):
    """6 processes open the same schema-1 database together: one upgrades it, none fails, nothing is lost."""
    for round_number in range(2):
        shutil.copyfile(SCHEMA1_FIXTURE, tmp_path / f"fresh-{round_number}.db")
    old_repos = _repos_and_schema(SCHEMA1_FIXTURE)[2]
    _open_at_once(tmp_path, processes=6, rounds=2)
    for round_number in range(2):
        assert _repos_and_schema(tmp_path / f"fresh-{round_number}.db") == (
            "wal",
            SCHEMA_VERSION,
            sorted(old_repos + [f"p{n}" for n in range(6)]),
        )


def test_another_applications_memories_table_is_refused_unchanged(tmp_path: Path):
    _refused_unchanged(
        tmp_path / "app.db",
        "CREATE TABLE memories (id INTEGER PRIMARY KEY, note TEXT)",
        "INSERT INTO memories VALUES (1, 'my own notes')",
        needles=("not a mneme database", "topic"),
    )


def test_a_schema_version_without_tables_is_refused_unchanged(tmp_path: Path):
    path = tmp_path / "versioned.db"
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA user_version = 3")
    connection.close()
    _refused(path, "not a mneme database", "schema version 3")


@pytest.mark.parametrize(
    "command",
    [["list"], ["recall", "x"], ["show", "1"], ["dismiss", "1"], ["db", "info"], ["task", "candidates"], ["edit", "1"]],
)
def test_a_read_command_on_a_missing_store_creates_nothing(tmp_path: Path, capsys, command: list[str]):
    from mneme_tui.cli import main

    missing = tmp_path / "no" / "such" / "x.db"
    assert main(["--db", str(missing), *command]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ERR_DATABASE" in err and "no database at" in err
    assert not (tmp_path / "no").exists()
    assert main(["--db", str(missing), "save", "a write command still makes a new store"]) == 0
    assert missing.is_file()


def _copy_cli(capsys, *argv: str) -> tuple[int, str]:
    from mneme_tui.cli import main

    code = main(["db", "copy", *argv])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("spelling", ["same", "relative", "symlink", "hard link", "dot-dot"])
def test_a_copy_onto_itself_is_refused(tmp_path: Path, capsys, monkeypatch, spelling: str):
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "a.db"
    store = Store(source)
    store.save("one memory, not two")
    (tmp_path / "sub").mkdir()
    destination = {"same": str(source), "relative": "a.db", "dot-dot": "sub/../a.db"}.get(spelling, "other.db")
    if spelling == "symlink":
        (tmp_path / "other.db").symlink_to(source)
    elif spelling == "hard link":
        (tmp_path / "other.db").hardlink_to(source)
    code, err = _copy_cli(capsys, str(source), destination, "--merge")
    assert code == 1 and "ERR_VALIDATION_FAILED" in err and "same database" in err and err.count("\n") == 1
    assert Store(source).count() == 1
    assert _copy_cli(capsys, str(source), "b.db", "--merge")[0] == 0  # a real second store is still fine
    assert Store(tmp_path / "b.db").count() == 1


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def test_a_long_lived_store_follows_its_file_when_it_is_deleted_or_replaced(tmp_path: Path):
    """The TUI and the MCP server hold one Store for hours: a write after ``X.db*`` was deleted, or another
    store's file was put at the path, lands in the file the path names now, never in the unlinked one."""
    path = tmp_path / "X.db"
    store = Store(path)
    store.save("first")
    _remove_database(path)
    memory = store.save("after the deletion")
    assert Store(path).get(memory.id).content == "after the deletion"
    other = tmp_path / "other.db"
    another = Store(other)
    another.save("another store")
    another.close()  # the last connection: its write-ahead log is folded into the file
    _remove_database(path)
    other.replace(path)
    assert [m.content for m in store.list()] == ["another store"]
    memory = store.save("into the replacement")
    assert Store(path).get(memory.id).content == "into the replacement"
    assert [r.memory.content for r in store.recall("replacement", repo="global", cross_repo=True)] == [
        "into the replacement"
    ]
