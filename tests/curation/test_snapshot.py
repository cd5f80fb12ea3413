"""The catalogue kept on disk (``curation/snapshot.py``): a new process that starts from it and reads only what
changed since gives the proposals a process that computes everything from nothing gives, on a generated store of
a few thousand memories with the duplicate, conflict and cold kinds, across merges, supersedes, new copies,
dismissals, a topic change and reads; an unusable file is deleted, reported once and rebuilt; a purge deletes
it with the index snapshot."""

from __future__ import annotations

import logging
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from mneme_tui import config
from mneme_tui.bench.review_bench import first_review, review_figures
from mneme_tui.bench.synthetic import generate
from mneme_tui.memory.curation import snapshot
from mneme_tui.memory.curation.proposals import _unkept, open_proposals
from mneme_tui.memory.curation.review import decide
from mneme_tui.memory.purge import purge
from mneme_tui.memory.store import Store

from .test_fast_path import REPO, _copies

SIZE = 2_500


@pytest.fixture
def small_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots for stores this small, and a new one after 100 revisions (so the tests stay quick)."""
    monkeypatch.setattr(snapshot, "MIN_ROWS", 100)
    monkeypatch.setattr(snapshot, "RESAVE_ROWS", 100)


def _generated(path: Path) -> Store:
    store = Store(path)
    now = config.now()
    store.mint_ids(generate(SIZE, now=now))
    store.mint_ids(_copies(now))
    return store


def _from_nothing(path: Path, monkeypatch: pytest.MonkeyPatch, repo: str | None) -> list:
    """The proposals of a new process that has no snapshot (an empty cache folder, emptied again after)."""
    cache = path.parent / "no-cache"
    with monkeypatch.context() as elsewhere:
        elsewhere.setenv("MNEME_CACHE_DIR", str(cache))
        fresh = Store(path)
        try:
            assert not snapshot.snapshot_path(path).exists()
            return open_proposals(fresh, repo)
        finally:
            fresh.close()
            shutil.rmtree(cache, ignore_errors=True)


def _restored_agrees(path: Path, monkeypatch: pytest.MonkeyPatch) -> list:
    """A new process that starts from the snapshot gives what one from nothing gives (every repo, one repo)."""
    restored = Store(path)
    try:
        for repo in (None, REPO):
            assert open_proposals(restored, repo) == _from_nothing(path, monkeypatch, repo)
        assert restored.catalogue.saved_revision >= 0  # it did start from the snapshot
        return open_proposals(restored, None)
    finally:
        restored.close()


def test_a_new_process_from_the_snapshot_equals_one_from_nothing(
    tmp_path: Path, small_snapshots, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "generated.db"
    live = _generated(path)
    proposals = open_proposals(live, None)
    assert {p.kind for p in proposals} == {"duplicate", "conflict", "cold"}
    assert snapshot.snapshot_path(path).is_file()
    assert _restored_agrees(path, monkeypatch) == proposals
    duplicate = next(p for p in proposals if p.kind == "duplicate")
    decide(live, duplicate.id, "accept")  # a merge after the snapshot: statuses change
    conflict = next(p for p in proposals if p.kind == "conflict" and len(p.memory_ids) == 2)
    decide(live, conflict.id, "accept")
    live.mint_ids(
        [{**next(generate(1, now=config.now())), "content": live.get(conflict.memory_ids[1]).content, "repo_id": REPO}]
    )  # a new exact copy
    live.dismiss([proposals[-1].memory_ids[0]])
    moved = next(p for p in proposals if p.kind == "conflict" and p.id != conflict.id).memory_ids[0]
    live.update_content(moved, content=live.get(moved).content, topic="Elsewhere")
    live.reinforce("INT-1", [next(p for p in proposals if p.kind == "cold").memory_ids[0]])
    _restored_agrees(path, monkeypatch)
    live.mint_ids(generate(300, seed=5, now=config.now()))  # enough for a new snapshot at the next review
    before = snapshot.snapshot_path(path).stat().st_mtime_ns
    open_proposals(live, None)
    assert snapshot.snapshot_path(path).stat().st_mtime_ns != before
    _restored_agrees(path, monkeypatch)
    live.close()


def _truncated(file: Path) -> None:
    file.write_bytes(file.read_bytes()[: file.stat().st_size // 2])


def _flipped(file: Path) -> None:
    data = bytearray(file.read_bytes())
    data[len(data) // 3] ^= 0xFF  # inside an array's data: its CRC no longer matches
    file.write_bytes(bytes(data))


def _fifo(file: Path) -> None:
    file.unlink()
    os.mkfifo(file)


@pytest.mark.parametrize("damage", [_truncated, _flipped, _fifo], ids=["truncated", "flipped byte", "fifo"])
def test_an_unusable_snapshot_is_deleted_reported_and_rebuilt(
    tmp_path: Path, small_snapshots, damage, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "generated.db"
    live = _generated(path)
    proposals = open_proposals(live, None)
    live.close()
    file = snapshot.snapshot_path(path)
    damage(file)
    with caplog.at_level(logging.WARNING, logger="mneme_tui"):
        cold = Store(path)
        assert open_proposals(cold, None) == proposals == _from_nothing(path, monkeypatch, None)
        cold.close()
    warnings = [record.getMessage() for record in caplog.records if "review cache" in record.getMessage()]
    assert len(warnings) == 1 and str(file) in warnings[0]
    reopened = Store(path)
    assert file.is_file() and snapshot.load(file, reopened._db_uuid(), _unkept) is not None  # rebuilt at once
    reopened.close()


def test_another_databases_snapshot_is_not_used(
    tmp_path: Path, small_snapshots, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, other_path = tmp_path / "generated.db", tmp_path / "other.db"
    first = _generated(path)
    open_proposals(first, None)
    first.close()
    other = Store(other_path)
    other.mint_ids(generate(200, seed=9, now=config.now()))
    snapshot.snapshot_path(other_path).write_bytes(snapshot.snapshot_path(path).read_bytes())
    assert snapshot.load(snapshot.snapshot_path(other_path), other._db_uuid(), _unkept) is None
    assert open_proposals(other, None) == _from_nothing(other_path, monkeypatch, None)
    assert other.catalogue.rows.ids.size == 200
    other.close()


def test_a_purge_deletes_the_snapshot(tmp_path: Path, small_snapshots) -> None:
    path = tmp_path / "generated.db"
    store = _generated(path)
    proposals = open_proposals(store, None)
    assert snapshot.snapshot_path(path).is_file()
    purge(store, [proposals[0].memory_ids[0]], reason="a test of the review cache")
    assert not snapshot.snapshot_path(path).exists()


def test_the_benchs_first_review_leaves_the_cache_its_cold_review_starts_from(
    tmp_path: Path, small_snapshots, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "generated.db"
    _generated(path).close()
    assert first_review(str(path))["first_ms"] > 0
    assert snapshot.snapshot_path(path).is_file()
    expected = Counter(proposal.kind for proposal in _from_nothing(path, monkeypatch, None))
    assert review_figures(str(path))["proposals"] == dict(expected)
