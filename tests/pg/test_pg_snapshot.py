"""A client of a PostgreSQL store keeps an index snapshot in its cache folder, named by the database's
identity (``db_uuid``, database, schema), never trusted past the revision the server reports."""

from __future__ import annotations

import re
import subprocess
import sys

from provenances import SYNCED

from mneme_tui.memory import index_snapshot
from mneme_tui.memory.store import Store


def _fill(url: str, word: str) -> Store:
    store = Store(url)
    store.mint_many(
        [
            dict(content=f"{word} row {i} cache{i % 13}", kind="reflection", provenance=SYNCED, repo_id="team")
            for i in range(index_snapshot.MIN_ROWS + 20)
        ]
    )
    store.recall(f"{word} row 3", repo="team")  # writes the snapshot
    return store


def _ids(store: Store, query: str) -> list[int]:
    return [r.memory.id for r in store.recall(query, repo="team", cross_repo=True, limit=10)]


def test_a_server_store_snapshot_lives_in_the_cache_named_by_no_url(pg_server, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("MNEME_CACHE_DIR", str(cache))
    database = pg_server.create_database("snapshot_named")
    store = _fill(database.url, "walnut")
    snapshot = store.snapshot_file()
    assert snapshot is not None and snapshot.exists() and snapshot.parent == cache
    names = sorted(path.name for path in cache.iterdir())
    assert all(re.fullmatch(r"index-server-[0-9a-f]{16}\.(idx|checked)", name) for name in names), names
    data = snapshot.read_bytes()
    assert database.url.encode() not in data and b"snapshot_named" not in data and b"postgresql" not in data

    cold = Store(database.url)
    cold._load_snapshot()
    assert cold.index.size == index_snapshot.MIN_ROWS + 20  # a new client starts from the snapshot


def test_another_clients_write_is_seen_by_the_next_recall(pg_server, tmp_path, monkeypatch):
    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "cache"))
    url = pg_server.create_database("snapshot_writes").url
    store = _fill(url, "walnut")
    other = Store(url)  # another client (its own cache would do as well)
    added = other.save("walnut orchard unique harvest", repo_id="team")
    other.dismiss([5])
    assert _ids(store, "walnut orchard unique harvest")[0] == added.id  # warm
    command = [
        sys.executable,
        "-m",
        "mneme_tui",
        "recall",
        "walnut orchard unique harvest",
        "-A",
        "--db",
        url,
        "--json",
    ]
    cold = subprocess.run(command, capture_output=True, text=True, check=True)  # cold, from the snapshot
    assert f'"id": {added.id},' in cold.stdout and cold.stderr == ""
    assert 5 not in _ids(Store(url), "walnut row 4 cache4")


def test_a_new_database_at_the_same_url_never_reuses_the_old_snapshot(pg_server, tmp_path, monkeypatch):
    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "cache"))
    database = pg_server.create_database("snapshot_replaced")
    old = _fill(database.url, "ghost")
    old_snapshot = old.snapshot_file()
    old.close()
    pg_server.drop_database(database.name)
    again = pg_server.create_database(database.name)
    assert again.url == database.url
    new = Store(again.url)
    fresh = new.save("fresh row in the new database", repo_id="team")
    assert new.snapshot_file() != old_snapshot
    assert _ids(new, "ghost row 7") in ([], [fresh.id])
    assert _ids(new, "fresh row") == [fresh.id]
