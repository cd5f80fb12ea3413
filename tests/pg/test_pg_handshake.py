"""The handshake on PostgreSQL: the same orientation as on SQLite for the same memories (heads read from the
covering index, dates as the server returns them), and a store made before the covering index gains it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from handshake_rows import INDEX_COLUMNS, NOW, mixed_items, orientation_index_step

from mneme_tui.memory.learning.orientation import orientation
from mneme_tui.memory.persistence.migrations import MIGRATIONS
from mneme_tui.memory.store import Store

INDEX = "idx_memories_orientation"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setenv("MNEME_NOW", NOW.isoformat())


@pytest.mark.postgres
def test_the_handshake_is_the_same_on_both_backends(pg_database, tmp_path: Path):
    stores = [Store(tmp_path / "mneme.db"), Store(pg_database.url)]
    for store in stores:
        rng = random.Random(24)
        ids = store.mint_ids(mixed_items(rng, 300))
        store.pin(rng.sample(ids, 12))
    for files in ((), ("src/store/store.py",), ("docs/index.md",)):
        for limit in (None, 3):
            sqlite, postgresql = (orientation(s, "acme", modified=files, limit=limit).to_json() for s in stores)
            assert postgresql == sqlite
    reinforced = [orientation(s, "acme", task_id="T-9", limit=3).to_json() for s in stores]
    assert reinforced[1] == reinforced[0] and reinforced[0]["reinforced"]
    for store in stores:
        store.close()


@pytest.mark.postgres
def test_an_existing_postgresql_store_gains_the_index(pg_database):
    store = Store(pg_database.url)
    store.db.execute_sql(f"DROP INDEX {INDEX}")
    before = MIGRATIONS[orientation_index_step() - 1].version
    store.db.execute_sql("UPDATE mneme_meta SET value = %s WHERE key = 'schema_version'", (str(before),))
    store.close()
    store = Store(pg_database.url)
    assert store.dialect.table_shape(store.db, "memories").indexes[INDEX] == INDEX_COLUMNS
    store.close()
