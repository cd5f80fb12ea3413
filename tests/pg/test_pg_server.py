"""The throwaway PostgreSQL server fixture (tests/pg_server.py) and what the PostgreSQL backend will lean
on: peewee's PostgresqlDatabase over psycopg2, bytea embeddings, and a binary COPY of 100k rows decoded by
``mneme_tui.memory.persistence.pg_copy``.
"""

from __future__ import annotations

import io
import os
import pwd
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import peewee
import psycopg2
from pg_server import OS_USER, PgDatabase, PgServer, find_bin_dir, unavailable_reason

from mneme_tui.memory.persistence.pg_copy import copy_binary, decode_id_embeddings
from mneme_tui.memory.vectors import BLOB_BYTES, DIMENSIONS, embed_blobs

ROWS = 100_000


def query(database: PgDatabase, sql: str) -> list[tuple]:
    connection = psycopg2.connect(dbname=database.name, **database.params)
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall()
    finally:
        connection.close()


def test_server_listens_on_its_private_socket_folder_only(pg_server: PgServer, pg_database: PgDatabase) -> None:
    assert query(pg_database, "SHOW listen_addresses") == [("",)]  # no TCP address at all
    assert query(pg_database, "SHOW unix_socket_directories") == [(str(pg_server.socket_dir),)]
    assert int(query(pg_database, "SHOW server_version_num")[0][0]) >= 150000
    assert pg_server.socket_dir.stat().st_mode & 0o077 == 0
    if os.geteuid() == 0:  # PostgreSQL refuses root: the fixture runs it as the postgres system user
        assert pg_server.data_dir.stat().st_uid == pwd.getpwnam(OS_USER).pw_uid


def test_each_test_gets_an_empty_database_of_its_own(pg_database: PgDatabase) -> None:
    assert query(pg_database, "SELECT current_database()") == [(pg_database.name,)]
    assert query(pg_database, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [(0,)]
    connection = psycopg2.connect(pg_database.url)  # the URL form reaches the same database
    try:
        assert connection.get_dsn_parameters()["dbname"] == pg_database.name
    finally:
        connection.close()


def test_missing_binaries_give_a_one_line_skip_reason(tmp_path: Path) -> None:
    assert find_bin_dir(str(tmp_path / "*" / "bin")) is None
    (tmp_path / "9" / "bin").mkdir(parents=True)  # a version folder without the server binaries
    assert find_bin_dir(str(tmp_path / "*" / "bin")) is None
    reason = unavailable_reason(None)
    assert reason is not None and "\n" not in reason and "postgresql" in reason


def test_peewee_round_trips_256_byte_blobs_in_bytea_exactly(pg_database: PgDatabase) -> None:
    db = peewee.PostgresqlDatabase(pg_database.name, **pg_database.params)

    class Blob(peewee.Model):
        id = peewee.BigAutoField()
        embedding = peewee.BlobField(null=True)

        class Meta:
            database = db

    rng = np.random.default_rng(7)
    blobs = [
        bytes(range(256)),
        bytes(256),
        b"\xff" * 256,
        *embed_blobs(["peewee keeps one connection per thread"]),
        *(rng.integers(0, 256, 256, dtype=np.uint8).tobytes() for _ in range(50)),
    ]
    with db:
        db.create_tables([Blob])
        assert db.execute_sql(
            "SELECT data_type FROM information_schema.columns WHERE table_name = 'blob' AND column_name = 'embedding'"
        ).fetchall() == [("bytea",)]
        ids = [Blob.insert(embedding=blob).execute() for blob in blobs]
        Blob.insert(embedding=None).execute()
        stored = {row.id: row.embedding for row in Blob.select()}
    assert all(len(blob) == BLOB_BYTES for blob in blobs)
    assert [bytes(stored[i]) for i in ids] == blobs  # psycopg2 hands bytea back as a memoryview
    assert sorted(value for value in stored.values() if value is None) == [None]


def fill(database: PgDatabase, ids: np.ndarray, blobs: list[bytes | None]) -> None:
    """Create ``vectors(id bigint, embedding bytea)`` and load the rows with a text COPY (hex bytea)."""
    cells = [r"\N" if blob is None else r"\\x" + blob.hex() for blob in blobs]
    lines = "".join(f"{i}\t{cell}\n" for i, cell in zip(ids.tolist(), cells))
    connection = psycopg2.connect(dbname=database.name, **database.params)
    try:
        with connection, connection.cursor() as cursor:
            cursor.execute("CREATE TABLE vectors (id bigint PRIMARY KEY, embedding bytea)")
            cursor.copy_expert("COPY vectors FROM STDIN", io.BytesIO(lines.encode()))
    finally:
        connection.close()


def copy_out(database: PgDatabase) -> bytes:
    connection = psycopg2.connect(dbname=database.name, **database.params)
    try:
        with connection.cursor() as cursor:
            return copy_binary(cursor, "SELECT id, embedding FROM vectors ORDER BY id")
    finally:
        connection.close()


def test_binary_copy_of_100k_embeddings_decodes_exactly(pg_database: PgDatabase) -> None:
    rng = np.random.default_rng(15)
    matrix = rng.standard_normal((ROWS, DIMENSIONS)).astype("<f4")
    ids = np.arange(1, ROWS + 1, dtype=np.int64) * 3 + 2**40  # past 32 bits: the whole bigint is read
    fill(pg_database, ids, [row.tobytes() for row in matrix])

    data = copy_out(pg_database)
    started = time.perf_counter()
    decoded_ids, decoded = decode_id_embeddings(data)
    elapsed = time.perf_counter() - started
    print(f"\ndecode_id_embeddings: {ROWS} rows ({len(data) / 1e6:.1f} MB) in {elapsed * 1000:.1f} ms")

    assert decoded_ids.dtype == np.int64 and decoded.dtype == np.float32
    assert decoded.shape == (ROWS, DIMENSIONS) and decoded.flags.c_contiguous
    np.testing.assert_array_equal(decoded_ids, ids)
    assert decoded.tobytes() == matrix.tobytes()  # bit for bit


def test_binary_copy_with_null_and_odd_sized_embeddings_decodes_them_as_zeros(pg_database: PgDatabase) -> None:
    (vector,) = embed_blobs(["binary copy of the embeddings"])
    ids = np.array([-5, 1, 2, 3, 2**62], dtype=np.int64)
    fill(pg_database, ids, [vector, None, b"\x01\x02\x03", b"", vector])

    decoded_ids, decoded = decode_id_embeddings(copy_out(pg_database))

    np.testing.assert_array_equal(decoded_ids, ids)
    expected = np.frombuffer(vector, dtype="<f4")
    np.testing.assert_array_equal(decoded[[0, 4]], [expected, expected])
    assert not decoded[1:4].any()


def test_server_stops_and_its_folder_goes_when_its_process_is_killed(pg_server: PgServer) -> None:
    code = (
        "import sys, time; sys.path.insert(0, sys.argv[1]); import pg_server; "
        "server = pg_server.start(pg_server.find_bin_dir()); print(server.root, flush=True); time.sleep(600)"
    )
    tests_dir = str(Path(__file__).parents[1])
    child = subprocess.Popen([sys.executable, "-c", code, tests_dir], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        root = Path(child.stdout.readline().strip())
        postmaster = int((root / "data" / "postmaster.pid").read_text().split()[0])
    finally:
        child.send_signal(signal.SIGKILL)  # no atexit, no finalizer: only the watchdog is left to clean up
        child.wait()
    for _ in range(600):  # the watchdog stops the server and deletes the folder; wait for it (60 s at most)
        if not root.exists():
            break
        time.sleep(0.1)
    assert not root.exists()
    status = Path(f"/proc/{postmaster}/status")
    assert not status.exists() or "State:\tZ" in status.read_text()  # gone (or a zombie nobody reaped yet)
