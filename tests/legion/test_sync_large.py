"""A large OUTCOMES.md syncs in batches (bounded memory) and stores exactly what a one-batch sync stores."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from provenances import SAVED

from mneme_tui.bench.legion_bench import synthetic_outcomes
from mneme_tui.legion.markdown.schemas import OUTCOMES
from mneme_tui.legion.mirror import sync as sync_module
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.legion.mirror.sync_report import SyncReport
from mneme_tui.memory import vectors
from mneme_tui.memory.store import Store

ROWS = 20_000
P = "proj"


def _tables(path: Path) -> dict[str, list[tuple]]:
    """Every stored row a sync writes, in id order (the embedding bytes included)."""
    connection = sqlite3.connect(path)
    try:
        return {
            table: connection.execute(f"SELECT * FROM {table} ORDER BY {key}").fetchall()
            for table, key in (("memories", "id"), ("legion_records", "memory_id"), ("memory_provenance", "memory_id"))
        }
    finally:
        connection.close()


def _sync_into(path: Path, memory_dir: Path) -> SyncReport:
    store = Store(path)
    try:
        return sync(store, memory_dir, repo=P)
    finally:
        store.close()


@pytest.fixture(scope="module")
def memory_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("large") / ".planning" / "memory"
    folder.mkdir(parents=True)
    (folder / OUTCOMES.file_name).write_text(synthetic_outcomes(ROWS), encoding="utf-8")
    return folder


def test_batched_sync_stores_what_one_batch_stores(
    memory_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sync_module, "BATCH_ROWS", ROWS * 2)  # everything in one batch: the reference
    monkeypatch.setattr(vectors, "EMBED_BATCH", ROWS * 2)
    _sync_into(tmp_path / "one.db", memory_dir)

    monkeypatch.setattr(sync_module, "BATCH_ROWS", 1_500)  # 14 batches, the last one short
    monkeypatch.setattr(vectors, "EMBED_BATCH", 700)  # batches that do not line up with the sync's
    report = _sync_into(tmp_path / "batched.db", memory_dir)
    assert report.totals["records"] == ROWS and report.totals["added"] == ROWS

    batched, reference = _tables(tmp_path / "batched.db"), _tables(tmp_path / "one.db")
    assert batched == reference
    record_ids = [row[7] for row in batched["legion_records"]]
    assert len(record_ids) == ROWS and set(record_ids) == {f"O-{n:03d}" for n in range(1, ROWS + 1)}  # once each
    assert [row[0] for row in batched["memories"]] == [row[0] for row in batched["legion_records"]]

    again = _sync_into(tmp_path / "batched.db", memory_dir)  # the companion rows read back (shared values)
    assert again.totals["unchanged"] == ROWS and not again.changed
    assert _tables(tmp_path / "batched.db") == batched


def test_embed_blobs_in_batches_matches_embed(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [f"line {n}\nshared line\n{'long ' * (n % 7)}text {n % 3}" for n in range(23)] + ["", "..."]
    monkeypatch.setattr(vectors, "EMBED_BATCH", 4)
    assert vectors.embed_blobs(texts) == [vectors.to_blob(vectors.embed(text)) for text in texts]


def test_bench_reports_the_import_process_peak_rss() -> None:
    from mneme_tui.bench.legion_bench import bench_import

    result = bench_import(rows=200, repeats=1)
    assert 10 < result["peak_rss_mb"] < 100_000  # the child's ru_maxrss, in MB


RESYNC_ROWS = 8_000
SAVER_BUSY_MS = 1_500


def test_saves_beside_a_resync_that_changes_every_row_all_succeed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-sync that updates 8,000 memories commits in slices: a saver waiting at most 1.5 s never fails."""
    import threading

    from mneme_tui.memory.persistence import sqlite_dialect

    folder = tmp_path / ".planning" / "memory"
    folder.mkdir(parents=True)
    outcomes = folder / OUTCOMES.file_name
    outcomes.write_text(synthetic_outcomes(RESYNC_ROWS), encoding="utf-8")
    store = Store(tmp_path / "m.db")
    sync(store, folder, repo=P)
    outcomes.write_text(
        outcomes.read_text(encoding="utf-8").replace(" complete |", " completed, then changed |"), encoding="utf-8"
    )
    monkeypatch.setattr(sqlite_dialect, "BUSY_TIMEOUT_MS", SAVER_BUSY_MS)  # the saver's store waits 1.5 s, not 10 s
    done, failures, saved = threading.Event(), [], []

    def save_until_done() -> None:
        saver = Store(tmp_path / "m.db")
        try:
            while (not done.is_set() or len(saved) < 3) and len(failures) < 5:
                try:
                    saved.append(
                        saver.mint(
                            f"saved beside the re-sync {len(saved)}",
                            kind="reflection",
                            topic="t",
                            repo_id=P,
                            provenance=SAVED,
                        ).id
                    )
                except Exception as exc:
                    failures.append(str(exc))
                done.wait(0.01)
        finally:
            saver.close()

    thread = threading.Thread(target=save_until_done)
    thread.start()
    try:
        report = sync(store, folder, repo=P)
    finally:
        done.set()
        thread.join(timeout=120)
        store.close()
    assert report.totals["updated"] == RESYNC_ROWS - RESYNC_ROWS // 10
    assert not failures, failures[:3]
    assert len(saved) >= 3
