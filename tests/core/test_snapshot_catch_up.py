"""A snapshot that lags behind its database: rows written since are appended into the room the snapshot
leaves after its arrays (no copy of the mapped arrays), and the answers are exactly a fresh index's."""

from __future__ import annotations

import itertools
import mmap
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from bulk_rows import REPOS, mint_bulk
from isolation import isolate
from pg_server import PgServer

from mneme_tui.config import DbTarget
from mneme_tui.memory import index_snapshot
from mneme_tui.memory.growing import GrowingArrays
from mneme_tui.memory.purge import purge
from mneme_tui.memory.snapshot_vocab import SnapshotVocab, word_table
from mneme_tui.memory.store import Store

QUERIES = (
    ("bulk row 17 cache3", "nomos", False),
    ("topic5 cache3", "acme", True),
    ("zebra crossing lantern", "nomos", False),
    ("fresh_lantern quietly", "acme", True),
    ("secret ledger", "nomos", True),
    ("bulk row 8", "acme", False),
    ("unique words", "acme", True),
)


def _answers(store: Store, profile: str) -> list[list[tuple[int, float]]]:
    return [
        [
            (r.memory.id, round(r.score, 6))
            for r in store.recall(q, repo=repo, cross_repo=cross, limit=12, profile=profile)
        ]
        for q, repo, cross in QUERIES
    ]


_copies = itertools.count(1)


@pytest.fixture(scope="module")
def bulk_templates() -> dict[str, str]:
    """The module's templates of the bulk rows, by backend: a closed SQLite file or a PostgreSQL database,
    each minted once (by the first ``bulk_target`` of its backend) and copied for every test: minting is most
    of a test's time."""
    return {}


@pytest.fixture
def bulk_target(
    request: pytest.FixtureRequest,
    db_backend: str,
    bulk_templates: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
) -> Iterator[DbTarget]:
    """A store target on the test's backend holding a copy of the module's bulk rows."""
    server: PgServer | None = None
    if db_backend == "postgresql":
        server = request.getfixturevalue("pg_server")  # skips without server binaries
    if db_backend not in bulk_templates:
        with pytest.MonkeyPatch.context() as patch:  # an isolated environment of the template's own
            isolate(patch, tmp_path_factory.mktemp("template-home"))
            if server is None:
                template = str(tmp_path_factory.mktemp("bulk-template") / "bulk.db")
                mint_bulk(template)
            else:
                template = "catch_up_template"
                mint_bulk(server.create_database(template, request.getfixturevalue("pg_template")).url)
            bulk_templates[db_backend] = template
    if server is None:
        path = tmp_path / "mneme.db"
        shutil.copyfile(bulk_templates["sqlite"], path)
        yield path
        return
    database = server.create_database(f"catch_up_{next(_copies)}", bulk_templates["postgresql"])
    yield database.url
    server.drop_database(database.name)


def _lagging_store(tmp_path, monkeypatch, target) -> tuple[Store, list[int], int]:
    """A store (holding the bulk rows) whose snapshot was written before new, changed, dismissed, superseded,
    reinforced and purged rows (by another client: a second Store); the snapshot file is put back as it was
    before the purge deleted it. (store, new ids, purged id)"""
    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "cache"))
    writer = Store(target)
    secret = writer.save("the secret ledger of bulk row 40", repo_id="nomos")
    writer.recall("bulk row", repo="nomos")  # writes the snapshot
    snapshot = writer.snapshot_file()
    assert snapshot is not None and snapshot.exists()
    stale = snapshot.read_bytes()

    new_ids = [
        writer.save(f"zebra crossing lantern {i} fresh_lantern quietly cache3", repo_id=REPOS[i % 3]).id
        for i in range(40)
    ]
    writer.update_content(7, content="zebra crossing unique words topic5")
    writer.dismiss([8, new_ids[3]])
    writer.supersede(17, "bulk row 17 cache3 rewritten with a lantern")
    writer.reinforce("T-1", [10, 11, new_ids[0]])
    purge(writer, [secret.id], reason="a test purge")
    assert not snapshot.exists()  # the purge deleted this store's own snapshot
    snapshot.write_bytes(stale)  # another process's stale copy, say
    writer.close()
    return Store(target), new_ids, secret.id


@pytest.mark.parametrize("profile", ["spec", "bm25"])
def test_a_lagging_snapshot_answers_exactly_like_a_fresh_index(tmp_path, monkeypatch, bulk_target, profile):
    lagging, new_ids, purged = _lagging_store(tmp_path, monkeypatch, bulk_target)
    lagging._load_snapshot()
    assert lagging.index.size == index_snapshot.MIN_ROWS + 51  # started from the stale snapshot
    answers = _answers(lagging, profile)

    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "empty-cache"))
    fresh = Store(bulk_target)
    assert _answers(fresh, profile) == answers
    returned = {memory_id for answer in answers for memory_id, _ in answer}
    assert purged not in returned and 8 not in returned and new_ids[3] not in returned
    assert len(returned & set(new_ids)) >= 3 and 7 in returned  # rows new and changed since the snapshot


def test_rows_caught_up_on_are_written_into_the_snapshot_room(tmp_path, monkeypatch, bulk_target):
    """The appended rows land in the copy-on-write map after the snapshot's rows: the same memory, no copy."""
    lagging, new_ids, _ = _lagging_store(tmp_path, monkeypatch, bulk_target)
    lagging._load_snapshot()
    mapped = {
        name: getattr(lagging.index, name).__array_interface__["data"][0]
        for name in ("ids", "vectors", "status_codes", "access")
    }
    terms = lagging.index.terms.doc_len.__array_interface__["data"][0]
    row_tokens = [
        part.__array_interface__["data"][0]
        for part in (lagging.index._row_tokens._flat, lagging.index._row_tokens._starts)
    ]
    lagging.index.refresh(lagging.db)  # the catch-up alone (the purge seen in it is the next test's)
    assert set(new_ids) <= set(lagging.index.ids[index_snapshot.MIN_ROWS :].tolist())
    for name, address in mapped.items():
        assert getattr(lagging.index, name).__array_interface__["data"][0] == address, name
    assert lagging.index.terms.doc_len.__array_interface__["data"][0] == terms  # (rows whose text changed are
    # re-analysed into new term arrays: a purge or an edit, not a save)
    tokens = lagging.index._row_tokens  # each row's token ids too (1M: 100 MB copied before)
    assert [part.__array_interface__["data"][0] for part in (tokens._flat, tokens._starts)] == row_tokens


def _keeps_holes(folder: Path) -> bool:
    """Whether the file system of ``folder`` stores a sparse file's hole without blocks."""
    probe = folder / "sparse-probe"
    with probe.open("wb") as stream:
        stream.seek(1 << 20)
        stream.write(b"x")
    blocks = probe.stat().st_blocks
    probe.unlink()
    return blocks * 512 < 1 << 19


def test_the_snapshot_room_is_a_hole_that_reads_as_zeros(tmp_path, monkeypatch, bulk_target):
    """The writer seeks past each array's room instead of writing zeros: the room reads as zeros (a catch-up
    appends into it), and a file system with sparse files stores less than the file's size."""
    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "cache"))
    store = Store(bulk_target)
    store.recall("bulk row", repo="nomos")  # writes the snapshot
    path = store.snapshot_file()
    assert path is not None and path.exists()
    with path.open("rb") as stream, mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        header, arrays, buffers, _, _ = index_snapshot._read(mapped)
        rooms = {name: buffers[name][arrays[name].shape[0] :] for name in arrays}
        assert rooms["vectors"].shape[0] >= 1_024 and all(not room.any() for room in rooms.values())
        del header, arrays, buffers, rooms  # the views, before the map closes
    assert index_snapshot.load(path, store._snapshot_key()) is not None  # its data CRC covers the zeros
    if _keeps_holes(path.parent):
        assert path.stat().st_blocks * 512 < path.stat().st_size - 256 * 1_024  # the vectors' room, at least
    store.close()


def test_growing_arrays_append_in_place_until_the_room_runs_out():
    growing = GrowingArrays()
    buffer = np.zeros(6, dtype=np.int64)
    array = growing.adopt("a", buffer, 2)
    array = growing.append("a", array, np.array([7, 8]))
    assert array.tolist() == [0, 0, 7, 8] and buffer.tolist() == [0, 0, 7, 8, 0, 0]  # written into the room
    moved = growing.append("a", array, np.arange(5))
    assert moved.tolist() == [0, 0, 7, 8, 0, 1, 2, 3, 4] and buffer.tolist() == [0, 0, 7, 8, 0, 0]  # copied out
    again = growing.append("a", array, np.array([9]))  # an older view: never written over the newer rows
    assert again.tolist() == [0, 0, 7, 8, 9] and moved.tolist() == [0, 0, 7, 8, 0, 1, 2, 3, 4]


def test_a_purge_seen_while_catching_up_leaves_no_file_with_its_words(tmp_path, monkeypatch, bulk_target):
    lagging, _, purged = _lagging_store(tmp_path, monkeypatch, bulk_target)
    snapshot = lagging.snapshot_file()
    assert b"ledger" in snapshot.read_bytes()  # the stale snapshot still holds the purged text's words
    assert purged not in {r.memory.id for r in lagging.recall("secret ledger", repo="nomos", cross_repo=True)}
    assert snapshot.exists() and b"ledger" not in snapshot.read_bytes()  # rewritten from a whole reload
    assert "ledger" not in lagging.index.vocab and lagging.index.seq == lagging._snapshot_seq


WORDS = ["zeta", "alpha", "ölbad", "42", "日本", "alphabet", "a", "mu", "straße", "Σίσυφος", "a\0b", "alph"]


def test_a_batch_of_lookups_finds_what_one_by_one_lookups_find():
    arrays = word_table("v", dict(zip(WORDS, range(len(WORDS)))))
    batch = SnapshotVocab(arrays["v"], arrays["v_start"], arrays["v_order"], new_ids=False)
    probes = [*WORDS, "alp", "alphabets", "zz", "", "a\0", "日", "ölbadx", "0", "~"]
    batch.prefetch(probes)
    assert batch._lookups == 0 and not batch._filled
    assert {word: batch.get(word) for word in probes} == {
        word: WORDS.index(word) if word in WORDS else None for word in probes
    }
    assert batch._lookups == 0  # every look-up was answered by the batch


def test_a_vocabulary_being_filled_has_its_whole_length(monkeypatch):
    """A snapshot's postings are built beside its write, which fills the vocabularies (``word_table``): the
    builder reads ``len(vocab)`` meanwhile, so the length must be the whole vocabulary's at every moment of a
    fill (a vocabulary marked filled before its words were in counted only those looked up: a postings build
    with too few terms)."""
    from mneme_tui.memory import snapshot_vocab

    arrays = word_table("v", dict(zip(WORDS, range(len(WORDS)))))
    vocab = SnapshotVocab(arrays["v"], arrays["v_start"], arrays["v_order"], new_ids=True)
    vocab.setdefault("brand-new", len(WORDS))  # a word given an id before the fill
    seen = []
    words_of = snapshot_vocab._words

    def watched(data):
        words = words_of(data)
        seen.append(len(vocab))  # what another thread reads while the fill runs
        return words

    monkeypatch.setattr(snapshot_vocab, "_words", watched)
    assert set(vocab) == {*WORDS, "brand-new"}  # fills it
    assert seen == [len(WORDS) + 1] and len(vocab) == len(WORDS) + 1


def test_the_postings_are_built_beside_the_write_and_end_the_file(tmp_path, monkeypatch, bulk_target):
    """The token and term postings are built by a helper thread while the other arrays are written, and come
    last in the file; its header, written at the end, fits the room kept for it; the snapshot loads and its
    postings are the ones a fresh build makes."""
    from mneme_tui.memory.index import MemoryIndex

    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "cache"))
    builders = []
    ensure = MemoryIndex._ensure_postings

    def recorded(index: MemoryIndex) -> None:
        builders.append(threading.current_thread().name)
        ensure(index)

    monkeypatch.setattr(MemoryIndex, "_ensure_postings", recorded)
    store = Store(bulk_target)
    store.recall("bulk row", repo="nomos")  # writes the snapshot
    assert "mneme-snapshot-postings" in builders
    path = store.snapshot_file()
    assert path is not None
    with path.open("rb") as stream, mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        header, arrays, _, _, _ = index_snapshot._read(mapped)
        table = header["arrays"]
        by_offset = sorted(table, key=lambda name: table[name][2])
        assert tuple(by_offset[-len(index_snapshot.POSTINGS) :]) == index_snapshot.POSTINGS
        saved = {name: np.array(arrays[name]) for name in index_snapshot.POSTINGS}
        del arrays  # the views, before the map closes
    loaded = index_snapshot.load(path, store._snapshot_key())
    assert loaded is not None and loaded.size == store.index.size
    fresh = Store(bulk_target)
    fresh.index.refresh(fresh.db)
    fresh.index._ensure_postings()
    built = (fresh.index._postings_rows, fresh.index._postings_start, *fresh.index.terms.postings())
    for name, array in zip(index_snapshot.POSTINGS, built, strict=True):
        assert np.array_equal(saved[name], array), name
    for opened in (store, fresh):
        opened.close()


def test_a_postings_build_that_fails_leaves_no_file(tmp_path, monkeypatch, bulk_target):
    """The build's error is raised in the writer's thread after the other arrays were written: the temporary
    file is removed and no snapshot is left (the next refresh tries again)."""
    from mneme_tui.memory.index import MemoryIndex

    monkeypatch.setenv("MNEME_CACHE_DIR", str(tmp_path / "cache"))
    store = Store(bulk_target)
    store.index.refresh(store.db)

    def fails(index: MemoryIndex) -> None:
        raise MemoryError("no room for the postings")

    monkeypatch.setattr(MemoryIndex, "_ensure_postings", fails)
    path = store.snapshot_file()
    assert path is not None
    with pytest.raises(MemoryError, match="no room"):
        index_snapshot.save(store.index, path, store._snapshot_key())
    assert not path.exists() and not list(path.parent.glob(".index-*"))
    assert not [thread for thread in threading.enumerate() if thread.name == "mneme-snapshot-postings"]
    store.close()
