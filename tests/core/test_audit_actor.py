"""Who made each change (issue 15): every audit row and every mint records an actor — ``MNEME_ACTOR``, else
``actor`` in the config file, else the operating system's ``user@host`` — and ``show`` (plain, ``--json``),
the TUI's detail and ``db copy`` carry it."""

from __future__ import annotations

import getpass
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mneme_tui import config
from mneme_tui.errors import ERR_CONFIG, MnemeError
from mneme_tui.legion.markdown.schemas import ERRORS
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory.records import MCP
from mneme_tui.memory.store import Store

ALICE = "alice@laptop"
ERROR_ROW = "| E-001 | 2026-02-02 | main | TypeError: x is undefined | guard x | agent-a | true | js |\n"


def _who(store: Store, memory_id: int) -> list[tuple[str, str, str]]:
    return [(entry.to_status, entry.reason, entry.actor) for entry in store.history(memory_id)]


def test_every_change_and_every_mint_records_the_actor(store: Store, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MNEME_ACTOR", ALICE)  # read at the store's first write
    old = store.save("use WAL", kind="decision")
    change = store.dismiss([old.id])
    store.undo(change)
    new = store.supersede(old.id, "use WAL with a busy timeout", source=MCP, detail="claude-code")
    store.restore([old.id])
    assert _who(store, old.id) == [
        ("tombstoned", "dismissed", ALICE),
        ("active", "undo", ALICE),
        ("superseded", f"superseded by {new.id}", ALICE),
        ("active", "restored", ALICE),
    ]
    assert store.detail(old.id).created_by == ALICE and store.detail(new.id).created_by == ALICE
    assert (new.provenance.source, new.provenance.detail) == (MCP, "claude-code")  # supersede's detail
    assert store.get(new.id).provenance.detail == "claude-code"


def test_a_legion_sync_records_the_actor_of_its_imports_and_status_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MNEME_ACTOR", "sync-bot@ci")
    store = Store(tmp_path / "mneme.db")
    legion = LegionMemory.for_project(
        tmp_path / "project", branch_provider=lambda _: "main", claude_home=tmp_path / "home"
    )
    legion.memory_dir.mkdir(parents=True)
    errors = legion.memory_dir / "ERRORS.md"
    errors.write_text(ERRORS.template + ERROR_ROW, encoding="utf-8")
    sync(store, legion, "proj")
    [imported] = store.list(status="all", limit=None)
    assert store.detail(imported.id).created_by == "sync-bot@ci"
    errors.write_text(ERRORS.template, encoding="utf-8")  # the record left the file: the sync supersedes it
    sync(store, legion, "proj")
    assert _who(store, imported.id) == [("superseded", "no longer in ERRORS.md", "sync-bot@ci")]
    store.close()


def test_show_prints_and_returns_who(cli, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MNEME_ACTOR", ALICE)
    saved = cli("save", "peewee keeps one connection per thread", "--json").json()
    monkeypatch.setenv("MNEME_ACTOR", "bob@desk")
    assert cli("dismiss", str(saved["id"])).code == 0
    out = cli("show", str(saved["id"])).out
    created = next(line for line in out.splitlines() if line.strip().startswith("created"))
    assert created.endswith(f"ago) by {ALICE}")
    assert "active → tombstoned  dismissed  (by bob@desk)" in out
    document = cli("show", str(saved["id"]), "--json").json()
    assert document["created_by"] == ALICE
    assert [(entry["to_status"], entry["actor"]) for entry in document["history"]] == [("tombstoned", "bob@desk")]


def test_the_config_file_names_the_actor_when_the_environment_does_not(
    isolated_environment: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("MNEME_ACTOR")
    Path(os.environ["MNEME_CONFIG"]).write_text('actor = "  carol@team  "\n', encoding="utf-8")
    assert config.resolve_actor() == "carol@team"
    monkeypatch.setenv("MNEME_ACTOR", ALICE)  # the environment wins
    assert config.resolve_actor() == ALICE


def test_without_a_setting_the_actor_is_the_os_user_at_the_host(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("MNEME_ACTOR")
    assert config.resolve_actor() == f"{getpass.getuser()}@{socket.gethostname()}"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to take a uid with no user")
def test_a_user_the_system_does_not_know_is_unknown(tmp_path: Path):
    """A process whose uid has no password entry and no login name in its environment (a container's
    arbitrary uid): getpass fails for real, and the actor says ``unknown@host``."""
    script = "import os; from mneme_tui import config; os.setuid(54321); print(config.os_actor())"
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"unknown@{socket.gethostname()}"


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("alice\nbob", "one line of printable text"),
        ("alice\x1b[31m", "one line of printable text"),
        ("a" * (config.MAX_ACTOR_CHARS + 1), f"longer than {config.MAX_ACTOR_CHARS} characters"),
    ],
)
def test_a_bad_actor_fails_a_write_with_one_line_and_changes_nothing(
    cli, monkeypatch: pytest.MonkeyPatch, value: str, needle: str
):
    saved = cli("save", "kept as it is", "--json").json()
    monkeypatch.setenv("MNEME_ACTOR", value)
    cli("dismiss", str(saved["id"])).assert_one_error_line(1, "ERR_CONFIG", "MNEME_ACTOR", needle)
    cli("save", "never written").assert_one_error_line(1, "ERR_CONFIG", "MNEME_ACTOR")
    listed = cli("list", "--status", "all", "--json")  # reads never need the actor
    assert listed.code == 0 and [(m["id"], m["status"]) for m in listed.json()] == [(saved["id"], "active")]


def test_an_actor_that_is_not_utf8_or_not_text_is_refused(isolated_environment: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MNEME_ACTOR", "al\udcffice")
    with pytest.raises(MnemeError, match="MNEME_ACTOR is not valid UTF-8"):
        config.resolve_actor()
    monkeypatch.delenv("MNEME_ACTOR")
    Path(os.environ["MNEME_CONFIG"]).write_text("actor = 7\n", encoding="utf-8")
    with pytest.raises(MnemeError, match="actor in the config file must be a non-empty string") as raised:
        config.resolve_actor()
    assert raised.value.code == ERR_CONFIG


def test_db_copy_carries_the_actors(tmp_path: Path, db_target, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MNEME_ACTOR", ALICE)
    source = Store(tmp_path / "source.db")
    memory = source.save("copied with its history")
    source.dismiss([memory.id])
    monkeypatch.setenv("MNEME_ACTOR", "bob@desk")  # whoever copies: the rows keep who made them
    destination = Store(db_target)
    source.copy_into(destination)
    copied = destination.detail(memory.id)
    assert copied.created_by == ALICE and [entry.actor for entry in copied.history] == [ALICE]
    source.close()
    destination.close()


def test_a_postgresql_schema_4_store_upgrades_to_actors_and_stops_notifying(pg_database):
    """Schema 4 on PostgreSQL sent ``mneme_changed`` notifications nobody listened to; schema 5 adds the actor
    columns (old rows: '', shown as unknown) and drops the notifications."""
    import psycopg2

    from mneme_tui.memory.persistence.migrations import MIGRATIONS, script_at

    connection = psycopg2.connect(dbname=pg_database.name, **pg_database.params)
    with connection, connection.cursor() as cursor:
        for migration in MIGRATIONS[:4]:
            if migration.scripts["postgresql"].strip():
                cursor.execute(script_at(migration, "2026-11-01 09:00:00", "postgresql"))
        # schema 1 as it was first released: a statement trigger notified every insert
        cursor.execute("""
            CREATE OR REPLACE FUNCTION mneme_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_notify('mneme_changed', ''); RETURN NULL; END $$;
            CREATE TRIGGER memories_inserted AFTER INSERT ON memories FOR EACH STATEMENT EXECUTE FUNCTION mneme_notify();
            INSERT INTO mneme_meta(key, value) VALUES ('schema_version', '4');
            INSERT INTO memories(repo_id, kind, topic, content, task_id, created_at, status)
                VALUES ('acme', 'decision', 'General', 'written by schema 4', '', '2026-11-01 10:00:00', 'tombstoned');
            INSERT INTO memory_audit(memory_id, from_status, to_status, at, reason)
                VALUES (1, 'active', 'tombstoned', '2026-11-02 10:00:00', 'dismissed');
            INSERT INTO memory_provenance(memory_id, source) VALUES (1, 'save');
        """)
    store = Store(pg_database.url)
    assert store.info()["schema_version"] == 7  # through schema 5 (actors), 6 (curation) to 7 (text keys)
    detail = store.detail(1)
    assert detail.created_by == "" and [entry.actor for entry in detail.history] == [""]
    with connection, connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_proc WHERE proname = 'mneme_notify'")
        assert cursor.fetchone()[0] == 0
        cursor.execute("SELECT count(*) FROM pg_trigger WHERE tgname = 'memories_inserted'")
        assert cursor.fetchone()[0] == 0
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = 'mneme_revision'")
        assert "pg_notify" not in cursor.fetchone()[0]
    connection.close()
    store.restore([1])
    assert [entry.actor for entry in store.history(1)] == ["", "tester@ci"]
    store.close()
