"""The in-memory index follows the database: writes by a second Store or a raw sqlite3 connection are seen
by the first Store's next recall."""

from __future__ import annotations

import json
import math
import os
import shutil
import sqlite3
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from bulk_rows import mint_bulk
from isolation import isolate
from provenances import SYNCED

from mneme_reference import NOW, ref_load, ref_recall
from mneme_tui.memory import index_snapshot, snapshot_vocab
from mneme_tui.memory.kinds import DECAY_LAMBDA
from mneme_tui.memory.store import Store
from mneme_tui.memory.vectors import embed, to_blob


def _ids(results) -> list[int]:
    return [r.memory.id for r in results]


@pytest.fixture
def pair(store: Store) -> tuple[Store, Store]:
    """The first store has already built its index; the second writes to the same file."""
    store.save("postgres connection pool exhausted", repo_id="nomos")
    store.save("redis cache stampede", repo_id="nomos")
    assert _ids(store.recall("postgres pool", repo="nomos", profile="spec")) != []
    return store, Store(store.path)


def _raw(store: Store) -> sqlite3.Connection:
    return sqlite3.connect(store.path, timeout=10)


def test_new_row_from_second_store_is_recalled(pair):
    first, second = pair
    new = second.save("kafka consumer lag alert", repo_id="nomos")
    assert _ids(first.recall("kafka consumer lag", repo="nomos", profile="spec"))[0] == new.id
    assert first.get(new.id).content == "kafka consumer lag alert"


def test_dismissal_by_second_store_is_excluded(pair):
    first, second = pair
    target = _ids(first.recall("postgres connection pool", repo="nomos", profile="spec"))[0]
    second.dismiss([target])
    assert target not in _ids(first.recall("postgres connection pool", repo="nomos", limit=10, profile="spec"))
    assert target not in _ids(
        first.recall("postgres connection pool", repo="nomos", cross_repo=True, limit=10, profile="spec")
    )


def test_update_content_by_second_store_changes_ranking(pair):
    first, second = pair
    before = first.recall("postgres connection pool", repo="nomos", limit=10, profile="spec")
    target = before[0].memory.id
    assert before[0].components["lexical"] == 1.0
    second.update_content(target, content="terraform state lock stuck")
    after = {r.memory.id: r for r in first.recall("postgres connection pool", repo="nomos", limit=10, profile="spec")}
    assert target not in after or after[target].components["lexical"] == 0.0
    now = first.recall("terraform state lock stuck", repo="nomos", limit=10, profile="spec")
    assert now[0].memory.id == target
    assert now[0].memory.content == "terraform state lock stuck"
    assert now[0].components["lexical"] == 1.0
    assert now[0].components["cosine"] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.sqlite_only
def test_raw_insert_is_recalled(pair):
    first, _ = pair
    connection = _raw(first)
    connection.execute(
        "INSERT INTO memories(repo_id, kind, topic, content, task_id, embedding, created_at) VALUES (?,?,?,?,?,?,?)",
        (
            "nomos",
            "decision",
            "Architecture",
            "grpc deadline propagation",
            "INT-9",
            to_blob(embed("grpc deadline propagation")),
            "2026-11-19 12:00:00",
        ),
    )
    connection.commit()
    new_id = connection.execute("SELECT MAX(id) FROM memories").fetchone()[0]
    connection.close()
    results = first.recall("grpc deadline", repo="nomos", profile="spec")
    assert _ids(results)[0] == new_id
    assert results[0].components["decay"] == pytest.approx(math.exp(-0.01 * 10))


@pytest.mark.sqlite_only
def test_raw_status_and_access_updates_are_seen(pair):
    first, _ = pair
    target = _ids(first.recall("redis cache stampede", repo="nomos", profile="spec"))[0]
    connection = _raw(first)
    connection.execute("UPDATE memories SET access_count = 4 WHERE id = ?", (target,))
    connection.commit()
    assert first.recall("redis cache stampede", repo="nomos", profile="spec")[0].components[
        "reinforcement"
    ] == pytest.approx(1.2)
    connection.execute("UPDATE memories SET status = 'superseded' WHERE id = ?", (target,))
    connection.commit()
    assert target not in _ids(first.recall("redis cache stampede", repo="nomos", limit=10, profile="spec"))
    connection.execute("UPDATE memories SET status = 'active', repo_id = 'acme' WHERE id = ?", (target,))
    connection.commit()
    connection.close()
    assert target not in _ids(first.recall("redis cache stampede", repo="nomos", limit=10, profile="spec"))
    assert target in _ids(first.recall("redis cache stampede", repo="acme", limit=10, profile="spec"))


@pytest.mark.sqlite_only
def test_raw_content_update_with_new_embedding(pair):
    first, _ = pair
    target = _ids(first.recall("redis cache stampede", repo="nomos", profile="spec"))[0]
    connection = _raw(first)
    connection.execute(
        "UPDATE memories SET content = ?, embedding = ? WHERE id = ?",
        ("zookeeper session expiry", to_blob(embed("zookeeper session expiry")), target),
    )
    connection.commit()
    connection.close()
    assert _ids(first.recall("zookeeper session", repo="nomos", profile="spec"))[0] == target
    stale = {r.memory.id: r for r in first.recall("redis stampede", repo="nomos", limit=10, profile="spec")}
    assert target not in stale or stale[target].components["lexical"] == 0.0


def test_many_interleaved_writes_stay_consistent(store: Store):
    other = Store(store.path)
    expected = {}
    for i in range(30):
        writer = store if i % 2 else other
        memory = writer.save(f"interleaved entry token{i}", repo_id="nomos")
        expected[memory.id] = f"token{i}"
        if i % 3 == 0:
            assert _ids(store.recall(f"token{i}", repo="nomos", limit=1, profile="spec")) == [memory.id]
    for memory_id, token in expected.items():
        assert _ids(store.recall(token, repo="nomos", limit=1, profile="spec")) == [memory_id]
        assert _ids(other.recall(token, repo="nomos", limit=1, profile="spec")) == [memory_id]


# ----------------------------------------------------- rows written by the Go implementation
# mattn/go-sqlite3 stores a Go time.Time as "2006-01-02 15:04:05.999999999-07:00"; other tools write ISO
# "T…Z". A mneme.db shared with the spec's Go implementation holds such rows.
GO_STAMP = "2026-11-29 10:00:00.123456789+02:00"  # = 08:00:00.123 UTC, 4 hours before NOW


def _insert_stamp(store: Store, stamp: str) -> int:
    connection = _raw(store)
    connection.execute(
        "INSERT INTO memories(repo_id, kind, topic, content, task_id, embedding, created_at) VALUES (?,?,?,?,?,?,?)",
        ("global", "reflection", "General", "written by go", "", to_blob(embed("written by go")), stamp),
    )
    connection.commit()
    new_id = connection.execute("SELECT MAX(id) FROM memories").fetchone()[0]
    connection.close()
    return new_id


@pytest.mark.sqlite_only
def test_go_timestamp_with_offset_ages_from_utc(store: Store):
    _insert_stamp(store, GO_STAMP)
    decay = store.recall("written by go", repo="global", profile="spec")[0].components["decay"]
    age_hours = -math.log(decay) / 0.02 * 24
    assert age_hours == pytest.approx(4.0 - 0.123456789 / 3600, abs=1e-3)


@pytest.mark.sqlite_only
@pytest.mark.parametrize("stamp", ["2026-11-29T08:00:00Z", "2026-11-29 08:00:00+00:00"])
def test_timezone_suffixed_timestamps_load_without_warnings(store: Store, stamp):
    _insert_stamp(store, stamp)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        decay = store.recall("written by go", repo="global", profile="spec")[0].components["decay"]
    assert decay == pytest.approx(math.exp(-0.02 * 4 / 24))


@pytest.mark.sqlite_only
@pytest.mark.parametrize("stamp", ["2026-11-29T08:00:00Z", GO_STAMP])
def test_timezone_suffixed_timestamps_become_naive_utc(store: Store, stamp):
    memory_id = _insert_stamp(store, stamp)
    memory = store.get(memory_id)
    assert memory.created_at.tzinfo is None
    assert memory.created_at.replace(microsecond=0) == NOW.replace(hour=8)
    assert memory.to_json()["created_at"] == "2026-11-29T08:00:00Z"


# ------------------------------------------------------------------- on-disk index snapshot
def test_cold_store_from_snapshot_sees_later_changes(tmp_path):
    """A big store writes an index snapshot; a later process starts from it and applies what changed since."""
    path = tmp_path / "big.db"
    first = Store(path)
    first.mint_many(
        [
            dict(
                content=f"bulk row {i} topic{i % 97} cache{i % 13}",
                provenance=SYNCED,
                kind="reflection",
                repo_id=("nomos", "acme", "global")[i % 3],
            )
            for i in range(index_snapshot.MIN_ROWS + 50)
        ]
    )
    first.recall("bulk row", repo="nomos", profile="spec")
    snapshot = index_snapshot.snapshot_path(path)
    assert snapshot.exists()

    writer = Store(path)
    writer.update_content(7, content="zebra crossing unique words")
    writer.dismiss([8])
    connection = _raw(writer)
    connection.execute("UPDATE memories SET access_count = 9 WHERE id = 10")
    connection.commit()
    connection.close()
    added = writer.save("zebra crossing unique words again", repo_id="nomos")

    cold = Store(path)
    rows = ref_load(path)
    for query, repo, cross in (
        ("zebra crossing unique", "nomos", False),
        ("topic5 cache3", "acme", True),
        ("bulk row 10", "nomos", False),
        ("bulk row 8", "acme", True),
    ):
        got = cold.recall(query, repo=repo, cross_repo=cross, limit=8, profile="spec")
        expected = ref_recall(rows, query, repo=repo, cross_repo=cross, limit=8, lambdas=DECAY_LAMBDA)
        assert [r.memory.id for r in got] == [e[0] for e in expected], query
        for result, (_, score, _) in zip(got, expected):
            assert result.score == pytest.approx(score, abs=1e-5)
    assert {7, added.id} <= set(
        _ids(cold.recall("zebra crossing unique", repo="nomos", cross_repo=True, profile="spec"))
    )
    assert 8 not in _ids(cold.recall("bulk row 8", repo="nomos", cross_repo=True, limit=50, profile="spec"))


def test_snapshot_of_a_replaced_database_is_not_used(tmp_path):
    path = tmp_path / "replaced.db"
    old = Store(path)
    old.mint_many(
        [
            dict(content=f"ghost row {i}", provenance=SYNCED, kind="reflection")
            for i in range(index_snapshot.MIN_ROWS + 10)
        ]
    )
    old.recall("ghost row", repo="global", profile="spec")
    old.close()
    assert index_snapshot.snapshot_path(path).exists()
    for suffix in ("", "-wal", "-shm"):
        target = tmp_path / f"replaced.db{suffix}"
        if target.exists():
            target.unlink()
    new = Store(path)
    fresh = new.save("fresh row in the new database")
    assert _ids(new.recall("ghost row", repo="global", limit=50, profile="spec")) in ([], [fresh.id])
    assert _ids(new.recall("fresh row", repo="global", profile="spec")) == [fresh.id]


# ------------------------------------------------------------------- a damaged snapshot is rebuilt, said once
QUERIES = (("bulk row 17", "nomos", False), ("topic5 cache3", "acme", True), ("cache7 topic11", "global", False))


@pytest.fixture(scope="module")
def big_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A closed database of ``MIN_ROWS + 50`` rows in three repositories, minted once for the module (in an
    isolated environment of its own) and copied by ``big_store``: minting them is most of a test's time."""
    path = tmp_path_factory.mktemp("big-template") / "big.db"
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, tmp_path_factory.mktemp("home"))
        mint_bulk(path)
    return path


@pytest.fixture
def big_store(big_template: Path) -> Callable[[Path], Store]:
    """A store at a path with the template's rows whose snapshot a recall has just written."""

    def make(path: Path) -> Store:
        shutil.copyfile(big_template, path)
        store = Store(path)
        store.recall("bulk row", repo="nomos")  # writes the snapshot
        assert index_snapshot.snapshot_path(path).exists()
        return store

    return make


def _answers(store: Store) -> list[list[tuple[int, float]]]:
    return [
        [(r.memory.id, r.score) for r in store.recall(q, repo=repo, cross_repo=cross, limit=8)]
        for q, repo, cross in QUERIES
    ]


def _prefix(version: int) -> bytes:
    return index_snapshot._PREFIX.pack(index_snapshot.MAGIC, version, 0, 0, 0)


def _crafted_header(change):
    """Damage that keeps both checksums valid: the header JSON changed by ``change``, padded to its old length."""

    def craft(data: bytes) -> bytes:
        magic, version, length, _, data_crc = index_snapshot._PREFIX.unpack_from(data)
        start = index_snapshot._PREFIX.size
        header = json.loads(data[start : start + length])
        head = json.dumps(change(header), separators=(",", ":")).encode()
        assert len(head) <= length
        head += b" " * (length - len(head))
        prefix = index_snapshot._PREFIX.pack(magic, version, length, zlib.crc32(head), data_crc)
        return prefix + head + data[start + length :]

    return craft


def _with(**values):
    return lambda header: {**header, **values}


DAMAGE = {
    "truncated": lambda data: data[: len(data) // 2],
    "truncated in the header": lambda data: data[:40],
    "empty": lambda data: b"",
    "garbage data": lambda data: data[: len(data) - 5000] + b"\xff" * 100 + data[len(data) - 4900 :],
    "garbage header": lambda data: data[:30] + b"}{" + data[32:],
    "not a snapshot": lambda data: b"PK\x03\x04 an old zip file" + data[20:],
    "another format version": lambda data: (
        _prefix(index_snapshot.FORMAT_VERSION + 1) + data[index_snapshot._PREFIX.size :]
    ),
    "arrays a list": _crafted_header(_with(arrays=[])),
    "header a list": _crafted_header(lambda header: []),
    "negative shape": _crafted_header(_with(arrays={"ids": ["<i8", [-1], 0]})),
    "huge shape": _crafted_header(_with(arrays={"ids": ["<i8", [10**30], 0]})),
    "object dtype": _crafted_header(_with(arrays={"ids": ["|O", [1], 0]})),
    "shape a number": _crafted_header(_with(arrays={"ids": ["<i8", 7, 0]})),
    "size not a number": _crafted_header(_with(size="many")),
    "repos a number": _crafted_header(_with(repos=5)),
    "nested 600 deep": _crafted_header(lambda header: json.loads("[" * 600 + "]" * 600)),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_snapshot_is_rebuilt_and_reported_once(tmp_path, big_store, caplog, damage):
    path = tmp_path / "big.db"
    expected = _answers(big_store(path))
    snapshot = index_snapshot.snapshot_path(path)
    snapshot.write_bytes(DAMAGE[damage](snapshot.read_bytes()))
    with caplog.at_level("WARNING"):
        assert _answers(Store(path)) == expected
        warned = [r.getMessage() for r in caplog.records]
        assert len(warned) == 1 and str(snapshot) in warned[0] and "rebuilding" in warned[0], warned
        assert index_snapshot.load(snapshot, Store(path)._db_uuid()) is not None  # rebuilt at once
        caplog.clear()
        assert _answers(Store(path)) == expected
        assert caplog.records == []


def test_missing_snapshot_is_rebuilt_silently(tmp_path, big_store, caplog):
    path = tmp_path / "big.db"
    expected = _answers(big_store(path))
    index_snapshot.snapshot_path(path).unlink()
    with caplog.at_level("WARNING"):
        assert _answers(Store(path)) == expected
    assert caplog.records == []
    assert index_snapshot.snapshot_path(path).exists()


def test_snapshot_of_an_older_format_is_replaced_silently(tmp_path, big_store, caplog):
    """After an upgrade the old snapshot is simply rebuilt: not damage, so no warning."""
    path = tmp_path / "big.db"
    expected = _answers(big_store(path))
    snapshot = index_snapshot.snapshot_path(path)
    data = snapshot.read_bytes()
    snapshot.write_bytes(_prefix(index_snapshot.FORMAT_VERSION - 1) + data[index_snapshot._PREFIX.size :])
    with caplog.at_level("WARNING"):
        assert _answers(Store(path)) == expected
    assert caplog.records == []
    assert index_snapshot.load(snapshot, Store(path)._db_uuid()) is not None


def test_snapshot_loads_as_a_copy_on_write_map(tmp_path, big_store):
    """Rows updated in place after a load change the index, never the file; postings come from the file."""
    path = tmp_path / "big.db"
    big_store(path)
    snapshot = index_snapshot.snapshot_path(path)
    before = snapshot.read_bytes()
    cold = Store(path)
    cold._load_snapshot()
    assert cold.index._postings_built_for == cold.index.size and not cold.index._postings_stale
    assert cold.index.terms._built_for == cold.index.size and not cold.index.terms._stale  # bm25's postings too
    Store(path).dismiss([5])
    Store(path).update_content(6, content="zebra crossing")
    assert _ids(cold.recall("zebra crossing", repo="nomos", cross_repo=True))[0] == 6
    assert 5 not in _ids(cold.recall("bulk row 5", repo="nomos", cross_repo=True, limit=50))
    assert snapshot.read_bytes() == before


def _later_tick(path) -> None:
    """Wait until the file system's clock has moved past ``path``'s last change (timestamps are coarse)."""
    import time

    changed = path.stat().st_ctime_ns
    probe = path.with_name("tick-probe")
    while True:
        probe.write_bytes(b"")
        if probe.stat().st_mtime_ns > changed:
            probe.unlink()
            return
        time.sleep(0.001)


def test_a_fully_checked_snapshot_is_trusted_until_it_changes(tmp_path, big_store):
    """The data checksum pass runs until a check in a later clock tick than the file's last change leaves
    a stamp; any change to the file after that (even with its size and mtime put back) voids the stamp."""
    path = tmp_path / "big.db"
    expected = _answers(big_store(path))
    snapshot = index_snapshot.snapshot_path(path)
    _later_tick(snapshot)
    assert _answers(Store(path)) == expected  # a load that checks everything and stamps the file
    identity = snapshot.stat()
    data_crc = index_snapshot._PREFIX.unpack_from(snapshot.read_bytes())[4]
    assert index_snapshot._is_checked(snapshot, identity, data_crc)
    assert not index_snapshot._is_checked(snapshot, identity, data_crc + 1)

    data = bytearray(snapshot.read_bytes())
    data[-4000:-3900] = b"\xff" * 100
    with snapshot.open("r+b") as stream:  # same inode, same size
        stream.write(data)
    os.utime(snapshot, ns=(identity.st_atime_ns, identity.st_mtime_ns))  # and the old mtime
    assert not index_snapshot._is_checked(snapshot, snapshot.stat(), data_crc)
    assert index_snapshot.load(snapshot, Store(path)._db_uuid()) is None  # detected, deleted
    assert not snapshot.exists()


def test_a_stamp_from_the_clock_tick_of_the_change_is_not_trusted(tmp_path, big_store):
    path = tmp_path / "big.db"
    big_store(path)
    snapshot = index_snapshot.snapshot_path(path)
    identity = snapshot.stat()
    data_crc = index_snapshot._PREFIX.unpack_from(snapshot.read_bytes())[4]
    index_snapshot._stamp(snapshot, identity, data_crc)
    stamp = snapshot.with_suffix(index_snapshot.CHECKED_SUFFIX)
    os.utime(stamp, ns=(identity.st_ctime_ns, identity.st_ctime_ns))
    assert not index_snapshot._is_checked(snapshot, identity, data_crc)
    os.utime(stamp, ns=(identity.st_ctime_ns + 1, identity.st_ctime_ns + 1))
    assert index_snapshot._is_checked(snapshot, identity, data_crc)


def test_cli_reports_a_damaged_snapshot_in_one_line(tmp_path, big_store):
    import subprocess
    import sys

    path = tmp_path / "big.db"
    big_store(path)
    snapshot = index_snapshot.snapshot_path(path)
    command = [sys.executable, "-m", "mneme_tui", "recall", "bulk row 17", "-p", "nomos", "--db", str(path), "--json"]
    good = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ), check=True)
    snapshot.write_bytes(b"\0" * 100)
    damaged = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ), check=True)
    again = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ), check=True)
    assert json.loads(damaged.stdout) == json.loads(good.stdout) == json.loads(again.stdout)
    assert damaged.stderr.count("\n") == 1 and "index cache" in damaged.stderr and "Traceback" not in damaged.stderr
    assert good.stderr == again.stderr == ""


def _vocab(words: list[str], *, new_ids: bool) -> snapshot_vocab.SnapshotVocab:
    arrays = snapshot_vocab.word_table("v", dict(zip(words, range(len(words)))))
    return snapshot_vocab.SnapshotVocab(arrays["v"], arrays["v_start"], arrays["v_order"], new_ids=new_ids)


WORDS = ["zeta", "alpha", "ölbad", "42", "日本", "alphabet", "a", "mu", "straße", "Σίσυφος"]


def test_snapshot_vocabulary_answers_like_the_dict_it_stands_for():
    vocab = _vocab(WORDS, new_ids=True)
    assert len(vocab) == len(WORDS) and not vocab._filled
    for word_id, word in enumerate(WORDS):
        assert word in vocab and vocab[word] == word_id
    assert "alph" not in vocab and "zzz" not in vocab and 7 not in vocab
    assert not vocab._filled  # look-ups alone never build the dict
    assert vocab["brand-new"] == len(WORDS) and not vocab._filled  # a new word gets the next id, no dict built
    assert vocab["newer"] == len(WORDS) + 1 and len(vocab) == len(WORDS) + 2 and vocab["brand-new"] == len(WORDS)
    assert "newer" in vocab and vocab["mu"] == 7 and not vocab._filled
    assert dict(vocab) == {**dict(zip(WORDS, range(len(WORDS)))), "brand-new": len(WORDS), "newer": len(WORDS) + 1}
    assert len(vocab) == len(WORDS) + 2 and vocab["newest"] == len(WORDS) + 2  # filled: ids go on

    terms = _vocab(WORDS, new_ids=False)
    with pytest.raises(KeyError):
        terms["missing"]
    assert terms.get("missing") is None and terms.get("mu") == 7 and not terms._filled
    assert terms.setdefault("mu", 99) == 7 and terms.setdefault("new", len(terms)) == len(WORDS)
    assert not terms._filled
    with pytest.raises(ValueError):
        terms.setdefault("other", 0)  # only the next id keeps ids unique
    assert terms == {**dict(zip(WORDS, range(len(WORDS)))), "new": len(WORDS)}
    assert sorted(_vocab(WORDS, new_ids=False), key=_vocab(WORDS, new_ids=False).__getitem__) == WORDS
    assert len(_vocab([], new_ids=True)) == 0 and "x" not in _vocab([], new_ids=False)


def test_snapshot_vocabulary_fills_itself_after_many_lookups(monkeypatch):
    monkeypatch.setattr(snapshot_vocab.SnapshotVocab, "LOOKUPS_BEFORE_FILLING", 3)
    vocab = _vocab(WORDS, new_ids=False)
    assert [vocab[w] for w in WORDS[:3]] == [0, 1, 2] and not vocab._filled
    assert vocab[WORDS[5]] == 5 and vocab._filled and len(vocab) == len(WORDS)


@pytest.mark.parametrize("intruder", ["fifo", "directory"])
def test_something_other_than_a_file_at_the_snapshot_path_is_replaced(tmp_path, big_store, intruder):
    """A FIFO (which would block an open for reading forever) or a folder at the snapshot path: a recall
    answers, says so in one line and writes a real snapshot in place of a FIFO."""
    import subprocess
    import sys

    path = tmp_path / "big.db"
    big_store(path)
    snapshot = index_snapshot.snapshot_path(path)
    command = [sys.executable, "-m", "mneme_tui", "recall", "bulk row 17", "-p", "nomos", "--db", str(path), "--json"]
    good = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ), check=True, timeout=120)
    snapshot.unlink()
    os.mkfifo(snapshot) if intruder == "fifo" else snapshot.mkdir()
    odd = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ), check=True, timeout=120)
    assert json.loads(odd.stdout) == json.loads(good.stdout)
    assert odd.stderr.count("\n") == 1 and "not a regular file" in odd.stderr and "Traceback" not in odd.stderr
    if intruder == "fifo":
        assert snapshot.is_file()
