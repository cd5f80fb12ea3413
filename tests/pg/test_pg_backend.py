"""The PostgreSQL backend itself: choosing it, credentials never shown, its schema, and many writers at once.

The core, CLI, Legion and learning tests run on PostgreSQL too (``db_target``); these are the checks that only
make sense on a server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import psycopg2
import pytest

from mneme_tui import config
from mneme_tui.errors import ERR_DATABASE, MnemeError
from mneme_tui.memory.persistence.migrations import SCHEMA_VERSION
from mneme_tui.memory.store import Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://alice:s3cret@db.example:5432/team", "postgresql://alice@db.example:5432/team"),
        ("postgresql://alice@db.example/team", "postgresql://alice@db.example/team"),
        (
            "postgres://:pw@/team?host=/run/pg&password=pw2&sslmode=require",
            "postgres://@/team?host=/run/pg&sslmode=require",
        ),
        ("postgresql:///team", "postgresql:///team"),
    ],
)
def test_redacted_url_drops_every_password(url: str, shown: str):
    assert config.redacted_url(url) == shown


def test_a_url_selects_postgresql_from_flag_environment_and_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    url = "postgresql://alice@db.example/team"
    assert config.resolve_db_path(url) == url
    monkeypatch.setenv("MNEME_DB", url)
    assert config.resolve_db_path() == url
    monkeypatch.delenv("MNEME_DB")
    config_file = tmp_path / "config.toml"
    config_file.write_text(f'db = "{url}"\n', encoding="utf-8")
    monkeypatch.setenv("MNEME_CONFIG", str(config_file))
    assert config.resolve_db_path() == url
    assert config.resolve_db_path(str(tmp_path / "x.db")) == tmp_path / "x.db"  # a path is SQLite


def test_a_failing_connection_is_one_error_without_the_password(pg_server):
    database = pg_server.database("no_such_database")
    url = f"postgresql://{database.user}:hunter2@/no_such_database?host={database.host}&port={database.port}"
    with pytest.raises(MnemeError) as caught:
        Store(url)
    assert caught.value.code == ERR_DATABASE
    assert "hunter2" not in caught.value.message
    assert "no_such_database" in caught.value.message and "\n" not in caught.value.message


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from mneme_tui.cli import main

    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_error_and_json_never_show_the_password(pg_database, capsys):
    url = f"postgresql://{pg_database.user}:hunter2@/{pg_database.name}?host={pg_database.host}&port={pg_database.port}"
    code, out, _ = _cli(capsys, "--db", url, "save", "team memory", "--json")
    assert code == 0 and json.loads(out)["content"] == "team memory"
    missing = url.replace(pg_database.name, "missing_db")
    code, out, err = _cli(capsys, "--db", missing, "list")
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert "ERR_DATABASE" in err and "missing_db" in err and "hunter2" not in err


def test_schema_version_lives_in_mneme_meta_and_text_sorts_as_sqlite(pg_database, tmp_path: Path):
    store = Store(pg_database.url)
    with psycopg2.connect(pg_database.url) as connection, connection.cursor() as cursor:
        cursor.execute("SELECT value FROM mneme_meta WHERE key = 'schema_version'")
        assert int(cursor.fetchone()[0]) == SCHEMA_VERSION
    sqlite = Store(tmp_path / "m.db")
    for topic in ("b", "B", "a", "Z", "é", "_"):
        store.save(f"about {topic}", topic=topic)
        sqlite.save(f"about {topic}", topic=topic)
    listed = [m.topic for m in store.list(order="topic", limit=None)]
    assert listed == [m.topic for m in sqlite.list(order="topic", limit=None)] == sorted(listed)


def test_a_second_open_does_not_migrate_again(pg_database):
    first = Store(pg_database.url)
    first.save("kept")
    second = Store(pg_database.url)
    assert [m.content for m in second.list()] == ["kept"]


WORKER = textwrap.dedent("""
    import sys
    from mneme_tui.memory.store import Store
    url, worker, saves = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    store = Store(url)
    ids = [store.save(f"worker {worker} memory {n}", topic=f"w{worker}", repo_id="team").id for n in range(saves)]
    store.dismiss(ids[::10])
    store.recall("memory", repo="team", task_id="SHARED-TASK", limit=20)
    print(len(ids))
""")


def test_many_processes_lose_nothing(pg_database, tmp_path: Path):
    """8 processes × 200 saves, each dismissing every tenth of its own and recalling for one shared task,
    while this process runs a Legion sync: every row is there once, and the shared task reinforces each
    memory at most once."""
    from mneme_tui.bench.legion_bench import synthetic_outcomes
    from mneme_tui.legion.mirror.sync import sync
    from mneme_tui.legion.skill.api import LegionMemory

    workers, saves = 8, 200
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, pg_database.url, str(n), str(saves)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(workers)
    ]
    store = Store(pg_database.url)
    legion = LegionMemory.for_project(
        tmp_path / "project", branch_provider=lambda root: "main", claude_home=tmp_path / "home"
    )
    legion.memory_dir.mkdir(parents=True)
    (legion.memory_dir / "OUTCOMES.md").write_text(synthetic_outcomes(50), encoding="utf-8")
    report = sync(store, legion, "proj")
    for process in processes:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        assert out.strip() == str(saves)
    team = store.list(repo_id="team", status="all", limit=None)
    assert len(team) == workers * saves
    assert sorted(m.content for m in team) == sorted(
        f"worker {w} memory {n}" for w in range(workers) for n in range(saves)
    )
    assert store.count(repo_id="team", status="tombstoned") == workers * (saves // 10)
    assert len({m.id for m in team}) == len(team)
    assert max(m.access_count for m in team) == 1  # one task: at most one reinforcement per memory
    assert report.synced and store.count(repo_id="proj") == 50
    store.refresh_index()
    assert store.index.size == store.count()


def test_same_task_recalling_at_once_counts_once(pg_database):
    store = Store(pg_database.url)
    memory = store.save("the shared pitfall", repo_id="team")
    script = textwrap.dedent("""
        import sys
        from mneme_tui.memory.store import Store
        store = Store(sys.argv[1])
        print(store.reinforce("TASK-1", [int(sys.argv[2])]))
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", script, pg_database.url, str(memory.id)], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    outputs = [json.loads(p.communicate(timeout=120)[0]) for p in processes]
    assert sorted(len(o) for o in outputs) == [0, 0, 0, 1]
    assert store.get(memory.id).access_count == 1


def test_index_loads_by_binary_copy_with_null_embeddings_as_zeros(pg_database, tmp_path: Path):
    import numpy as np

    from mneme_tui.memory.persistence.index_queries import index_rows
    from mneme_tui.memory.persistence.memories import index_load

    store = Store(pg_database.url)
    saved = [store.save(f"memory number {n}", repo_id="team") for n in range(5)]
    with psycopg2.connect(pg_database.url) as connection, connection.cursor() as cursor:
        cursor.execute("UPDATE memories SET embedding = NULL WHERE id = %s", (saved[2].id,))
    rows, vectors = index_load(store.db)
    assert vectors is not None and vectors.shape == (5, 64)
    assert not vectors[2].any() and vectors[0].any()
    plain = index_rows(store.db)
    assert [row[:5] + row[6:] for row in rows] == [row[:5] + row[6:] for row in plain]
    expected = np.frombuffer(bytes(plain[0][5]), dtype="<f4")
    assert np.array_equal(vectors[0], expected)
    fresh = Store(pg_database.url)
    assert [r.memory.id for r in fresh.recall("memory number", repo="team", limit=5)] == [
        r.memory.id for r in store.recall("memory number", repo="team", limit=5)
    ]
