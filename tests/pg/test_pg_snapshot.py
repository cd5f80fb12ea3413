"""A client of a PostgreSQL store keeps an index snapshot in its cache folder, named by the database's
identity (``db_uuid``, database, schema), never trusted past the revision the server reports."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from isolation import isolate
from pg_server import PgDatabase, PgServer
from provenances import SYNCED

from mneme_tui.memory import index_snapshot
from mneme_tui.memory.store import Store


@pytest.fixture(scope="module")
def walnut_template(pg_server: PgServer, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A closed database of ``MIN_ROWS + 20`` walnut rows, minted once for the module and copied by
    ``_fill``: minting them is most of a test's time."""
    template = "snapshot_template"
    with pytest.MonkeyPatch.context() as patch:  # an isolated environment of its own
        isolate(patch, tmp_path_factory.mktemp("template-home"))
        store = Store(pg_server.create_database(template).url)
        store.mint_many(
            [
                dict(content=f"walnut row {i} cache{i % 13}", kind="reflection", provenance=SYNCED, repo_id="team")
                for i in range(index_snapshot.MIN_ROWS + 20)
            ]
        )
        store.close()
    return template


def _fill(server: PgServer, name: str, template: str) -> tuple[PgDatabase, Store]:
    """A new database ``name`` with the template's rows, and a store on it whose snapshot a recall wrote."""
    database = server.create_database(name, template)
    store = Store(database.url)
    store.recall("walnut row 3", repo="team")  # writes the snapshot
    return database, store


def _ids(store: Store, query: str) -> list[int]:
    return [r.memory.id for r in store.recall(query, repo="team", cross_repo=True, limit=10)]


def test_a_server_store_snapshot_lives_in_the_cache_named_by_no_url(pg_server, walnut_template, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("MNEME_CACHE_DIR", str(cache))
    database, store = _fill(pg_server, "snapshot_named", walnut_template)
    snapshot = store.snapshot_file()
    assert snapshot is not None and snapshot.exists() and snapshot.parent == cache
    names = sorted(path.name for path in cache.iterdir())
    assert all(re.fullmatch(r"index-server-[0-9a-f]{16}\.(idx|checked)", name) for name in names), names
    data = snapshot.read_bytes()
    assert database.url.encode() not in data and b"snapshot_named" not in data and b"postgresql" not in data

    cold = Store(database.url)
    cold._load_snapshot()
    assert cold.index.size == index_snapshot.MIN_ROWS + 20  # a new client starts from the snapshot


def test_another_clients_write_is_seen_by_the_next_recall(pg_server, walnut_template, tmp_path, monkeypatch):
    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "cache"))
    database, store = _fill(pg_server, "snapshot_writes", walnut_template)
    url = database.url
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


def test_a_new_database_at_the_same_url_never_reuses_the_old_snapshot(
    pg_server, walnut_template, tmp_path, monkeypatch
):
    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "cache"))
    database, old = _fill(pg_server, "snapshot_replaced", walnut_template)
    old_snapshot = old.snapshot_file()
    old.close()
    pg_server.drop_database(database.name)
    again = pg_server.create_database(database.name)
    assert again.url == database.url
    new = Store(again.url)
    fresh = new.save("fresh row in the new database", repo_id="team")
    assert new.snapshot_file() != old_snapshot
    assert _ids(new, "walnut row 7") in ([], [fresh.id])
    assert _ids(new, "fresh row") == [fresh.id]
