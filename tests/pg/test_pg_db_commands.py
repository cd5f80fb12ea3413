"""``mneme db info`` and ``mneme db copy`` between SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg2
import pytest
from provenances import SYNCED

from mneme_tui.cli import main
from mneme_tui.memory.persistence.migrations import SCHEMA_VERSION
from mneme_tui.memory.store import Store


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _fill(store: Store) -> None:
    first = store.save("peewee keeps one connection per thread", topic="Arch", repo_id="team")
    store.save("never delete memories", kind="axiom", repo_id="global")
    store.supersede(first.id, "peewee: one connection per worker thread")
    store.mint("guard x before use", kind="pitfall", provenance=SYNCED, task_id="INT-1", repo_id="team")
    dismissed = store.save("stale", repo_id="team")
    store.dismiss([dismissed.id])
    store.reinforce("INT-2", [first.id])


def _snapshot(store: Store) -> list[tuple]:
    return [
        (
            m.id,
            m.to_json(),
            [(e.from_status, e.to_status, e.reason) for e in store.history(m.id)],
            store.task_ids_for(m.id),
        )
        for m in store.list(status="all", limit=None, order="id")
    ]


def test_copy_sqlite_to_postgresql_and_back_keeps_everything(pg_database, tmp_path: Path, capsys):
    sqlite_path = tmp_path / "team.db"
    _fill(Store(sqlite_path))
    code, out, err = _cli(capsys, "db", "copy", str(sqlite_path), pg_database.url, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["kept_ids"] and report["verified"] and report["copied"]["memories"] == 5
    assert _snapshot(Store(pg_database.url)) == _snapshot(Store(sqlite_path))
    back = tmp_path / "back.db"
    assert _cli(capsys, "db", "copy", pg_database.url, str(back))[0] == 0
    assert _snapshot(Store(back)) == _snapshot(Store(sqlite_path))
    after = Store(pg_database.url).save("next one gets a fresh id")
    assert after.id == 6


def test_copy_refuses_a_non_empty_destination_unless_merging(pg_database, tmp_path: Path, capsys):
    sqlite_path = tmp_path / "team.db"
    _fill(Store(sqlite_path))
    Store(pg_database.url).save("already here")
    code, out, err = _cli(capsys, "db", "copy", str(sqlite_path), pg_database.url)
    assert (code, out) == (1, "") and "ERR_VALIDATION_FAILED" in err and "--merge" in err
    assert Store(pg_database.url).count() == 1
    assert _cli(capsys, "db", "copy", str(sqlite_path), pg_database.url, "--merge")[0] == 0
    merged = Store(pg_database.url)
    assert merged.count() == 6
    new = {m.content: m for m in merged.list(status="all", limit=None)}
    old = new["peewee keeps one connection per thread"]
    assert old.status == "superseded" and merged.get(old.superseded_by).content.startswith("peewee: one")
    assert merged.task_ids_for(old.id) == ["INT-2"]


def test_db_info_names_backend_and_hides_the_password(pg_database, capsys):
    url = f"postgresql://{pg_database.user}:hunter2@/{pg_database.name}?host={pg_database.host}&port={pg_database.port}"
    Store(url).save("one")
    code, out, _ = _cli(capsys, "db", "info", "--db", url, "--json")
    info = json.loads(out)
    assert code == 0 and "hunter2" not in out
    assert (info["backend"], info["schema_version"], info["memories"]["active"]) == ("postgresql", SCHEMA_VERSION, 1)
    code, out, _ = _cli(capsys, "--db", url, "db", "info")
    assert code == 0 and "postgresql" in out and "hunter2" not in out


def test_copy_from_a_missing_file_creates_nothing(pg_database, tmp_path: Path, capsys):
    missing = tmp_path / "missing.db"
    code, out, err = _cli(capsys, "db", "copy", str(missing), pg_database.url)
    assert (code, out) == (1, "") and "ERR_DATABASE" in err and "nothing to copy" in err
    assert not missing.exists()


def test_copy_onto_the_same_postgresql_store_is_refused(pg_database, capsys):
    Store(pg_database.url).save("one memory, not two")
    other_spelling = pg_database.url + "&application_name=mneme-copy"
    code, out, err = _cli(capsys, "db", "copy", pg_database.url, other_spelling, "--merge")
    assert (code, out) == (1, "") and "ERR_VALIDATION_FAILED" in err and "same database" in err
    assert Store(pg_database.url).count() == 1


def test_another_applications_memories_table_on_a_server_is_refused_unchanged(pg_database, capsys):
    connection = psycopg2.connect(dbname=pg_database.name, **pg_database.params)
    try:
        with connection, connection.cursor() as cursor:
            cursor.execute("CREATE TABLE memories (id bigint PRIMARY KEY, note text)")
            cursor.execute("INSERT INTO memories VALUES (1, 'my own notes')")
        code, out, err = _cli(capsys, "list", "--db", pg_database.url)
        assert code != 0 and out == ""
        assert "not a mneme database" in err and "topic" in err and len(err.strip().splitlines()) == 1
        with connection.cursor() as cursor:
            cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            assert cursor.fetchall() == [("memories",)]  # nothing was created beside it
            cursor.execute("SELECT * FROM memories")
            assert cursor.fetchall() == [(1, "my own notes")]
    finally:
        connection.close()
