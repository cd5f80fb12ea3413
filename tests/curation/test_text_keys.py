"""The no-new-duplicates check's text keys (schema 8, ``memory_text_keys``) stay right on every path that writes
text: save, supersede, mint_many (import and sync go through it), a content update, restore, purge, ``db copy``;
an old store is keyed by the backfill; and ``db copy`` carries the review decisions over, renumbered."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from mneme_tui.memory.curation import text_features as T
from mneme_tui.memory.curation.proposals import open_proposals
from mneme_tui.memory.curation.review import decide
from mneme_tui.memory.curation.same_text import similarities, text_key
from mneme_tui.memory.persistence.migrations import MIGRATIONS, script_at
from mneme_tui.memory.persistence.text_keys import PROGRESS
from mneme_tui.memory.purge import purge
from mneme_tui.memory.records import DEMO, Provenance
from mneme_tui.memory.store import Store

from .conftest import mint

TEXT = "Keep one peewee connection per thread."


def keys_of(store: Store) -> dict[int, tuple[str, str, int]]:
    rows = store.db.execute_sql("SELECT memory_id, repo_id, kind, text_key FROM memory_text_keys").fetchall()
    return {int(i): (str(repo), str(kind), int(key)) for i, repo, kind, key in rows}


def expected_keys(store: Store) -> dict[int, tuple[str, str, int]]:
    rows = store.db.execute_sql("SELECT id, repo_id, kind, content FROM memories").fetchall()
    return {int(i): (str(repo or ""), str(kind), text_key(content)) for i, repo, kind, content in rows}


def test_the_key_ignores_case_whitespace_and_punctuation() -> None:
    assert text_key(TEXT) == text_key("  keep ONE peewee, connection per thread!") != text_key(TEXT + " worker")


def test_save_supersede_mint_many_and_update_keep_every_key(db_target) -> None:
    store = Store(db_target)
    first = store.save(TEXT, repo_id="acme")
    store.supersede(first.id, "Keep one peewee connection per worker thread.")
    store.mint_many(
        [
            {"content": f"Imported lesson {n}", "kind": "reflection", "repo_id": "legion", "provenance": DEMO_SOURCE}
            for n in range(3)
        ]
    )
    other = store.save("Another lesson about the busy timeout", repo_id="acme")
    store.update_content(other.id, content="The busy timeout is 5 s now")
    assert keys_of(store) == expected_keys(store) and len(keys_of(store)) == 6
    assert store.save_checked("the busy timeout is 5 S now!", repo_id="acme")[1].duplicate_of == other.id


DEMO_SOURCE = Provenance(DEMO, "text key tests")


def test_a_restored_memory_is_found_again_and_a_purged_one_loses_its_key(db_target) -> None:
    store = Store(db_target)
    kept = store.save(TEXT, repo_id="acme")
    store.dismiss([kept.id])
    assert store.save_checked(TEXT, repo_id="acme")[1].duplicate_of is None  # a tombstoned memory is no duplicate
    store.restore([kept.id])
    assert store.save_checked(TEXT, repo_id="acme")[1].duplicate_of in {kept.id, kept.id + 1}
    purge(store, [kept.id], reason="test")
    assert kept.id not in keys_of(store)
    assert {i: k for i, k in expected_keys(store).items() if i != kept.id} == keys_of(store)


def test_db_copy_carries_the_keys_and_the_decisions(new_db_target) -> None:
    source = Store(new_db_target("source"))
    a = mint(source, TEXT, created="2026-10-01")
    mint(source, "keep one peewee connection per thread", created="2026-10-02")
    [proposal] = open_proposals(source, "acme")
    decide(source, proposal.id, "reject")
    source.pin([a])
    destination = Store(new_db_target("destination"))
    mint(destination, "Already there", created="2026-09-01")
    mint(destination, "Also already there", created="2026-09-02")
    for run in (1, 2):
        result = source.copy_into(destination, merge=True)
        assert result.counts["curation_decisions"] == (1 if run == 1 else 0)
    assert keys_of(destination) == expected_keys(destination) and len(keys_of(destination)) == 4
    assert destination.save_checked(TEXT, repo_id="acme")[1].duplicate_of in set(result.new_ids.values()) | {3, 4}
    assert open_proposals(destination, "acme") == []  # still rejected, under its new ids
    assert destination.pinned_ids() == {3}


def test_an_old_store_is_keyed_in_batches_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = Store(path)
    for n in range(5):
        store.save(f"Lesson number {n} about the clock", repo_id="acme")
    store.close()
    connection = sqlite3.connect(path)
    connection.executescript("DROP TABLE memory_text_keys; PRAGMA user_version = 6;")
    connection.close()
    upgraded = Store(path)  # migration 7, then the backfill
    assert keys_of(upgraded) == expected_keys(upgraded)
    assert not upgraded.db.execute_sql("SELECT 1 FROM mneme_meta WHERE key = ?", (PROGRESS,)).fetchall()
    assert upgraded.save_checked("lesson number 3 about the CLOCK", repo_id="acme")[1].duplicate_of == 4


def test_a_long_lived_store_keys_an_older_file_put_in_its_place(tmp_path: Path) -> None:
    path, older = tmp_path / "m.db", tmp_path / "older.db"
    first = Store(path)
    first.save("First lesson", repo_id="acme")
    first.close()
    writer = Store(older)
    writer.save("Lesson number 1 about the clock", repo_id="acme")
    writer.close()
    connection = sqlite3.connect(older)
    connection.executescript("DROP TABLE memory_text_keys; PRAGMA user_version = 6;")
    connection.close()
    store = Store(path)
    store.close()
    for name in ("m.db", "m.db-wal", "m.db-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    older.replace(path)  # another tool put an older store there
    assert store.save_checked("lesson number 1 about the CLOCK", repo_id="acme")[1].duplicate_of == 1


def test_the_backfill_resumes_where_it_stopped(db_target) -> None:
    store = Store(db_target)
    for n in range(5):
        store.save(f"Lesson number {n} about the clock", repo_id="acme")
    text_keys_step = next(m for m in MIGRATIONS if m.version == 8)
    marker = script_at(text_keys_step, "2026-12-02 00:00:00", store.dialect.NAME).split(";")[-2]  # text_keys_after = 0
    with store.write_transaction():
        store.db.execute_sql("DELETE FROM memory_text_keys")
        store.db.execute_sql(marker)
    with store.write_transaction():
        assert store.text_keys.backfill_batch(batch=2)  # more to do
    assert sorted(keys_of(store)) == [1, 2]
    reopened = Store(db_target)
    assert keys_of(reopened) == expected_keys(reopened)
    assert not reopened.text_keys.backfill_pending()


def test_the_near_duplicate_similarities_are_jaccards_of_shingles() -> None:
    rng = random.Random(21)
    words = ["a", "b", "c", "d", "e"]
    for _ in range(200):
        mine = [rng.choice(words) for _ in range(rng.randint(0, 6))]
        others = [[rng.choice(words) for _ in range(rng.randint(0, 6))] for _ in range(rng.randint(0, 4))]
        expected = [T.jaccard(T.shingles(mine), T.shingles(other)) for other in others]
        assert similarities(mine, others).tolist() == pytest.approx(expected)
