"""``mneme bench --db postgresql://…`` against a real throwaway server: every PostgreSQL figure is reported,
a database that holds memories is refused untouched, and the bench leaves nothing behind. No timing asserts."""

from __future__ import annotations

import psycopg2
import pytest

from mneme_tui import config
from mneme_tui.bench import postgresql_bench
from mneme_tui.bench.store_bench import check_targets
from mneme_tui.bench.synthetic import generate
from mneme_tui.cli import main
from mneme_tui.memory.persistence.pg_scratch import SCHEMA_PREFIX, with_search_path
from mneme_tui.memory.ranking import PROFILES
from mneme_tui.memory.store import Store


def _objects(database) -> list[tuple[str, str]]:
    """Every (schema, relation) and (schema, function) outside the system schemas."""
    connection = psycopg2.connect(dbname=database.name, **database.params)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') "
                "UNION ALL SELECT n.nspname, p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') "
                "UNION ALL SELECT nspname, '' FROM pg_namespace WHERE nspname LIKE 'mneme%' ORDER BY 1, 2"
            )
            return cursor.fetchall()
    finally:
        connection.close()


def test_bench_reports_every_postgresql_figure_and_leaves_nothing_behind(pg_database, tmp_path):
    """The PostgreSQL side alone, on a SQLite store as the bench's SQLite side leaves it (``bench.db``)."""
    store = Store(tmp_path / "bench.db")
    store.mint_many(generate(200, now=config.now()))
    store.close()
    before = _objects(pg_database)
    figures = postgresql_bench.run_size(pg_database.url, 200, str(tmp_path))
    assert set(figures) == {  # docs/json.md's table lists these
        "size",
        "memories",
        "db_copy_s",
        "index_load_ms",
        "recall",
        "save_per_s",
        "concurrent_save_per_s",
        "writers",
        "write_to_visible_ms",
        "peak_rss_mb",
        "cold_recall_ms",
        "cold_recall_peak_rss_mb",
    }
    assert (
        set(figures["cold_recall_ms"])
        == set(figures["cold_recall_peak_rss_mb"])
        == {"with_snapshot", "without_snapshot"}
    )
    assert figures["size"] == figures["memories"] == 200
    assert set(figures["recall"]) == set(PROFILES)
    for profile in figures["recall"].values():
        assert set(profile) == {"scoped", "cross_repo", "first_round"}
        for timing in (profile["scoped"], profile["cross_repo"], *profile["first_round"].values()):
            assert 0 <= timing["p50_ms"] <= timing["p95_ms"]
    assert figures["db_copy_s"] > 0 and figures["index_load_ms"] > 0 and figures["peak_rss_mb"] > 0
    assert figures["save_per_s"] > 0 and figures["concurrent_save_per_s"] > 0 and figures["writers"] == 8
    visible = figures["write_to_visible_ms"]
    assert visible["rounds"] > 0 and 0 < visible["p50_ms"] <= visible["max_ms"]
    assert check_targets({"200": {"recall": figures["recall"]}}, {"200": figures}) == []  # none at this size
    assert _objects(pg_database) == before


def test_bench_refuses_a_database_with_memories_and_leaves_it_untouched(pg_database, capsys):
    store = Store(pg_database.url)
    kept = store.save("the team's real memory", repo_id="team")
    store.close()
    before = _objects(pg_database)
    assert main(["bench", "--sizes", "200", "--db", pg_database.url]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("mneme: ERR_VALIDATION_FAILED:") and "already holds memories (1)" in err
    assert len(err.splitlines()) == 1
    assert _objects(pg_database) == before
    store = Store(pg_database.url)
    assert [m.to_json() for m in store.list(status="all", limit=None)] == [kept.to_json()]
    store.close()


def test_bench_names_an_unreachable_server_in_one_line_without_the_password(capsys):
    url = "postgresql://bench:s3cret@/nowhere?host=/nonexistent-socket-folder"
    assert main(["bench", "--sizes", "200", "--db", url]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("mneme: ERR_DATABASE:") and len(err.splitlines()) == 1 and "s3cret" not in err


@pytest.mark.parametrize(
    "url, options",
    [
        (
            "postgresql://u@/db?host=/tmp/s&port=5432",
            "-c lock_timeout=10s -c TimeZone=UTC -c search_path=mneme_bench_x",
        ),
        ("postgresql://u@h/db?options=-c%20work_mem%3D8MB", "-c work_mem=8MB -c search_path=mneme_bench_x"),
    ],
)
def test_the_scratch_url_keeps_the_url_and_puts_the_schema_first(url, options):
    scratch = with_search_path(url, SCHEMA_PREFIX + "x")
    assert psycopg2.extensions.parse_dsn(scratch) == {**psycopg2.extensions.parse_dsn(url), "options": options}
