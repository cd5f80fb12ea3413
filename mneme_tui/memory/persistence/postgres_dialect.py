"""The PostgreSQL dialect (``dialect.Dialect``): a store is a database (or schema) on a server, named by a
``postgresql://`` URL; nothing is a file. The index loads its embeddings by one binary ``COPY`` (``pg_copy``).

Raw SQL elsewhere in ``persistence`` is written with ``?`` placeholders; ``PostgresDatabase.execute_sql``
adapts it to psycopg2's ``%s`` in one place. Writers queue on one transaction-scoped advisory lock, so ids
commit in the order they were assigned (the index's ``MAX(id)`` / ``MAX(seq)`` watermarks never skip a row).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import peewee
import psycopg2  # type: ignore[import-untyped]
import psycopg2.extensions  # type: ignore[import-untyped]
import psycopg2.extras  # type: ignore[import-untyped]

from mneme_tui import config
from mneme_tui.config import DbTarget
from mneme_tui.database_urls import ambiguous_user_part, redacted_url, scrub_url
from mneme_tui.errors import ERR_DATABASE, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.persistence import tables
from mneme_tui.memory.persistence.index_queries import SELECT_EMBEDDINGS, SELECT_INDEX_TEXT, index_rows
from mneme_tui.memory.persistence.pg_copy import copy_binary, decode_id_embeddings
from mneme_tui.memory.persistence.sql_text import placeholders, upsert_sql
from mneme_tui.memory.persistence.tables import TableShape

NAME = "postgresql"
DATABASE_ERRORS: tuple[type[BaseException], ...] = (psycopg2.Error, peewee.DatabaseError, peewee.InterfaceError)
DRIVER_ERROR: type[BaseException] = psycopg2.Error
"""What only this backend's driver raises (peewee's wrapper of it holds it as its first argument)."""
"""What a failing statement raises (the driver's errors and peewee's wrappers of them)."""
LIKE_IGNORING_CASE = "ILIKE"
COLUMN_TYPES: Mapping[str, str] = {
    tables.ID: "bigint",
    tables.INTEGER: "bigint",
    tables.TEXT: "text",
    tables.BLOB: "bytea",
    tables.TIMESTAMP: "timestamp without time zone",
    tables.TIMESTAMP_TEXT: "text",
}
"""Identity ids, ``bytea`` embeddings, ``timestamp`` times; ``synced_at`` stays text (``tables.TIMESTAMP_TEXT``)."""
WRITE_LOCK_KEY = 0x6D6E656D65  # "mneme"
"""The advisory lock every writer takes first: one writer at a time, so ids commit in order."""
LOCK_TIMEOUT = "10s"
DEFAULT_OPTIONS = f"-c lock_timeout={LOCK_TIMEOUT} -c TimeZone=UTC"
"""The session settings a connection gets when its URL names no ``options`` of its own."""
RETRYABLE = {"40001", "40P01"}
"""Serialization failure and deadlock: the transaction is safe to run again."""
PROGRAM_LIMIT_EXCEEDED = "54000"
"""An index row (or another value) past what PostgreSQL can hold: the input is too large, not the database broken."""
TRANSACTION_ATTEMPTS = 5
"""How often ``retry_transaction`` runs a transaction that keeps failing with a ``RETRYABLE`` error."""
RETRY_PAUSE_S = 0.02
"""The first pause before a rerun; it doubles each time (with jitter, so two rerun writers drift apart)."""

T = TypeVar("T")


def adapt(sql: str) -> str:
    """A statement written with ``?`` placeholders in psycopg2's style (``%s``, literal ``%`` doubled)."""
    return sql.replace("%", "%%").replace("?", "%s") if "?" in sql else sql


class PostgresDatabase(peewee.PostgresqlDatabase):
    """peewee's PostgreSQL database; raw statements written with ``?`` are adapted to ``%s`` here."""

    def execute_sql(self, sql: str, params: Any = None) -> Any:
        return super().execute_sql(adapt(sql), params)


def handles(target: DbTarget) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) URL."""
    return config.is_database_url(target)


def owns(db: peewee.Database) -> bool:
    """True for a database this module connected."""
    return isinstance(db, PostgresDatabase)


def database_file(target: DbTarget) -> Path | None:
    """None: the store lives on a server, in no file of ours."""
    return None


def retry_busy(action: Callable[[], T]) -> T:
    """Run ``action``: every lock an open takes queues on the server's ``lock_timeout``."""
    return action()


def connect(target: DbTarget, create: bool = True) -> PostgresDatabase:
    """A peewee database for the URL ``target`` (the database must exist: ``create`` makes no difference;
    credentials from the URL, ``PG*`` variables or ``~/.pgpass``). A URL
    whose user part libpq would read differently from what we show (an unencoded ``@`` or ``/`` in the
    password) is refused before libpq sees it: its errors would quote pieces of the password."""
    url = str(target)
    if ambiguous_user_part(url):
        raise MnemeError(
            ERR_DATABASE,
            f"{redacted_url(url)} is not a valid PostgreSQL URL (an '@' or '/' in the "
            f"password or database name must be percent-encoded: %40, %2F)",
        )
    try:
        params = psycopg2.extensions.parse_dsn(url)
    except psycopg2.ProgrammingError as exc:
        reason = scrub_url(_first_line(exc), url)
        raise MnemeError(ERR_DATABASE, f"{redacted_url(url)} is not a valid PostgreSQL URL ({reason})") from None
    extra: dict[str, Any] = {}
    if "options" not in params:
        extra["options"] = DEFAULT_OPTIONS
    return PostgresDatabase("postgresql://" + url.split("://", 1)[1], **extra)


@contextmanager
def read_snapshot(db: peewee.Database) -> Iterator[None]:
    """A read-only transaction whose statements all see one snapshot of the database (REPEATABLE READ)."""
    with db.atomic():
        db.execute_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def batches(db: peewee.Database, sql: str, size: int) -> Iterator[list[tuple]]:
    """The rows of ``sql`` (no parameters), ``size`` at a time from a server-side cursor; inside a transaction
    (``DECLARE``/``FETCH``: peewee runs psycopg2 in autocommit mode, where its named cursors are refused)."""
    db.execute_sql(f"DECLARE mneme_batches NO SCROLL CURSOR FOR {sql}")  # closed by the transaction's end too
    while rows := db.execute_sql(f"FETCH FORWARD {int(size)} FROM mneme_batches").fetchall():
        yield rows
    db.execute_sql("CLOSE mneme_batches")


@contextmanager
def write_transaction(db: peewee.Database) -> Iterator[None]:
    """A transaction that queues behind every other writer (``pg_advisory_xact_lock``) before it writes. A
    nested one is a savepoint in the outer transaction, which already holds the lock until it ends (peewee does
    not count savepoints in ``transaction_depth``, so the outermost is told apart before entering)."""
    outermost = db.transaction_depth() == 0
    with db.atomic():
        if outermost:
            _commit.started = False
            db.execute_sql("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_KEY,))
        yield
        if outermost:
            _commit.started = True  # from here on a lost connection leaves it unknown whether the write committed


_commit = threading.local()
"""Whether this thread's outermost write transaction reached its COMMIT (``retry_transaction`` reads it)."""
CONNECTION_LOST = {"57P01", "57P02", "57P03", "08000", "08003", "08006"}
"""The server shut the connection (administrator command, crash, restart) or it broke."""


def _connection_lost(exc: BaseException) -> bool:
    """True when ``exc`` (or what it was made of) says the connection to the server is gone."""
    code = _pgcode(exc)
    if code is not None:
        return code in CONNECTION_LOST
    while exc is not None:
        if isinstance(exc, psycopg2.OperationalError | psycopg2.InterfaceError):
            return True
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return False


def _pgcode(exc: BaseException | None) -> str | None:
    """The SQLSTATE of a driver error, of peewee's wrapper of one, or of the ERR_DATABASE made of one."""
    while exc is not None:
        code = getattr(exc, "pgcode", None) or getattr(getattr(exc, "orig", None), "pgcode", None)
        if code:
            return str(code)
        exc = exc.__cause__
    return None


def is_busy(exc: BaseException) -> bool:
    """True when ``exc`` says another connection holds a lock, or the transaction may be retried."""
    code = _pgcode(exc)
    return code in RETRYABLE or code == "55P03"


def retry_transaction(action: Callable[[], T], db: peewee.Database | None = None) -> T:
    """Run ``action``, one whole write transaction, and run it again when the server aborted it with a
    serialization failure or a deadlock (``RETRYABLE``, raised as it is or as the ERR_DATABASE made of it), up
    to ``TRANSACTION_ATTEMPTS`` times with a short growing pause; the last failure is raised (ERR_DATABASE
    "… is busy"). Only an outermost transaction may be rerun: one nested in another was rolled back with it.

    With ``db``, a transaction whose connection was lost (a server restart) is run again on a new connection
    too, but only when it provably did not commit: the loss came before its COMMIT was sent. A loss during the
    COMMIT is raised, as nobody can tell whether the write happened."""
    attempt, pause = 1, RETRY_PAUSE_S
    while True:
        _commit.started = False
        try:
            return action()
        except Exception as exc:
            lost = db is not None and _connection_lost(exc) and not _commit.started
            if lost and db is not None:
                db.close()  # the next statement connects anew
            elif _pgcode(exc) not in RETRYABLE:
                raise
            if attempt >= TRANSACTION_ATTEMPTS:
                raise
        time.sleep(pause * (0.5 + random.random()))
        attempt, pause = attempt + 1, pause * 2


def schema_version(db: peewee.Database) -> int:
    """The schema version recorded in ``mneme_meta`` (0 for a new database)."""
    if db.execute_sql("SELECT to_regclass('mneme_meta')").fetchone()[0] is None:
        return 0
    row = db.execute_sql("SELECT value FROM mneme_meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def table_names(db: peewee.Database) -> set[str]:
    """The names of the tables in the current schema (read only)."""
    return {
        row[0]
        for row in db.execute_sql("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").fetchall()
    }


IDLE_PROBE_S = 1.0
"""A connection unused for this long is probed (``SELECT 1``) before its next use: a server restart meanwhile
closed it, and the probe, not the caller's statement, is what then fails."""
_last_use = threading.local()


def ensure_connected(db: peewee.Database) -> None:
    """Before an outermost use of this thread's connection: when it was idle for ``IDLE_PROBE_S`` (or is known
    closed), probe it and, if the server closed it, drop it, so the next statement connects anew. Nothing had
    run on the dropped connection, so whatever the caller runs next is its first attempt."""
    now = time.monotonic()
    if db.is_closed():
        return
    connection = db.connection()
    fresh = getattr(_last_use, "connection", None) == id(connection) and now - _last_use.at < IDLE_PROBE_S
    _last_use.at, _last_use.connection = now, id(connection)
    if fresh and not connection.closed:
        return
    try:
        if not connection.closed:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            return
    except psycopg2.Error:
        pass
    db.close()


_INDEXES = """SELECT i.relname, x.indisprimary, array_agg(a.attname ORDER BY k.ord)
FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
WHERE t.relname = ? AND n.nspname = current_schema() GROUP BY i.relname, x.indisprimary"""


def column_names(db: peewee.Database, table: str) -> tuple[str, ...]:
    """``table``'s column names in order, from ``pg_attribute`` (``information_schema.columns`` and the index
    query of ``table_shape`` take about 10 ms on a new connection, half of what opening a store costs)."""
    rows = db.execute_sql(
        "SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = ? AND c.relkind IN ('r', 'p') "
        "AND n.nspname = current_schema() AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
        (table,),
    ).fetchall()
    return tuple(row[0] for row in rows)


def table_shape(db: peewee.Database, table: str) -> TableShape:
    """``table`` as the catalogue of the current schema reports it (``information_schema``, ``pg_index``)."""
    columns = tuple(
        (name, kind, nullable == "NO")
        for name, kind, nullable in db.execute_sql(
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
            (table,),
        ).fetchall()
    )
    primary_key: tuple[str, ...] = ()
    indexes = {}
    for name, primary, names in db.execute_sql(_INDEXES, (table,)).fetchall():
        if primary:
            primary_key = tuple(names)
        else:
            indexes[name] = tuple(names)
    return TableShape(columns, primary_key, indexes)


def database_identity(db: peewee.Database) -> tuple[object, ...]:
    """What tells this store from any other, whatever URL reaches it (another host name, address or user): its
    ``db_uuid``, database (name and oid: a database made again at the same name, or copied from a template,
    is another one) and schema."""
    row = db.execute_sql(
        "SELECT (SELECT value FROM mneme_meta WHERE key = 'db_uuid'), current_database(), "
        "(SELECT oid FROM pg_database WHERE datname = current_database()), "
        "current_schema()"
    ).fetchone()
    return NAME, *row


def enable_wal(db: peewee.Database) -> None:
    """Nothing to do: PostgreSQL always logs ahead."""


def secure_delete(db: peewee.Database) -> None:
    """Nothing to do: the server keeps old row versions until its next VACUUM (see docs/secrets.md)."""


def scrub(db: peewee.Database) -> bool:
    """Nothing to do here: ``VACUUM`` is the server owner's to run (it cannot run in our transaction); True."""
    return True


def migrate(db: peewee.Database, scripts: Sequence[tuple[int, str]]) -> None:
    """Run each ``(version, script)`` and record the last version, in one transaction after taking the write
    lock; re-reads the version under the lock, so two processes migrating at once do it once."""
    with write_transaction(db):
        current = schema_version(db)
        for version, script in scripts:
            if version <= current:
                continue
            if script.strip():
                db.execute_sql(script)
            db.execute_sql(
                "INSERT INTO mneme_meta(key, value) VALUES ('schema_version', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (str(version),),
            )


def insert_or_replace_sql(table: str, columns: Sequence[str], key: str) -> str:
    """An insert that replaces the row with the same primary key ``key`` (an upsert)."""
    return upsert_sql(table, columns, key)


def insert_ignore_sql(table: str, columns: Sequence[str]) -> str:
    """An insert that does nothing when the row's key is already there."""
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders(len(columns))}) ON CONFLICT DO NOTHING"


def insert_many(db: peewee.Database, sql: str, rows: Sequence[tuple]) -> None:
    """Run ``sql`` once per row in one call."""
    cursor = db.cursor()
    psycopg2.extras.execute_batch(cursor, adapt(sql), rows, page_size=1000)


def insert_returning_ids(db: peewee.Database, table: str, columns: Sequence[str], rows: Sequence[tuple]) -> list[int]:
    """Insert ``rows`` in one statement; the ids the database gave them, in order (``RETURNING``)."""
    cursor = db.cursor()
    returned = psycopg2.extras.execute_values(
        cursor,
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES %s RETURNING id",
        rows,
        page_size=max(len(rows), 1),
        fetch=True,
    )
    return [int(row[0]) for row in returned]


def after_explicit_ids(db: peewee.Database, table: str) -> None:
    """Move ``table``'s identity past the ids inserted explicitly (a copy keeps a store's ids)."""
    db.execute_sql(
        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM {table}"
    )


def timestamp_order(field: peewee.Field) -> Any:
    """Stored timestamps are real ``timestamp`` values: they sort by time as they are."""
    return field


def database_error(target: DbTarget, exc: BaseException) -> MnemeError:
    """A one-line ERR_DATABASE for a failure on the database at URL ``target`` (never its password: the
    driver's message is scrubbed of it too, as libpq quotes pieces of a URL it cannot read)."""
    where = redacted_url(str(target))
    text = scrub_url(_first_line(exc), str(target))
    if _pgcode(exc) in RETRYABLE:
        return MnemeError(
            ERR_DATABASE, f"{where} is busy: other writers' transactions kept conflicting with this one ({text})"
        )
    if is_busy(exc):
        return MnemeError(ERR_DATABASE, f"{where} is busy: another process holds a write lock ({text})")
    if _pgcode(exc) == PROGRAM_LIMIT_EXCEEDED:
        return MnemeError(
            ERR_VALIDATION_FAILED,
            f"{where} refused a value too large for its indexes (a repo, topic or task id; {text})",
        )
    return MnemeError(ERR_DATABASE, f"{where}: {text}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0].strip()


def index_load(db: peewee.Database) -> tuple[list[tuple], np.ndarray | None]:
    """Every row for a cold index load, by id: the embeddings as one float32 matrix by a binary COPY (the rows'
    embedding slot is None) and the rest in one plain select; when a write slipped in between the two
    statements, the rows with their embeddings and no matrix."""
    rows = db.execute_sql(SELECT_INDEX_TEXT + " ORDER BY id").fetchall()
    ids, vectors = decode_id_embeddings(copy_binary(db.cursor(), SELECT_EMBEDDINGS))
    if not np.array_equal(ids, np.fromiter((row[0] for row in rows), np.int64, len(rows))):
        return index_rows(db), None
    return rows, vectors


def index_load_batches(db: peewee.Database, size: int) -> Iterator[tuple[list[tuple], np.ndarray | None]]:
    """``index_load`` ``size`` rows at a time: the embeddings first, by one binary COPY, then the rows from a
    server-side cursor, all in one read-only snapshot; each batch carries its slice of the matrix. Inside a
    transaction already (a snapshot is chosen only at a transaction's start), one checked batch."""
    if db.in_transaction():
        yield index_load(db)
        return
    with read_snapshot(db):
        ids, vectors = decode_id_embeddings(copy_binary(db.cursor(), SELECT_EMBEDDINGS))
        start = 0
        for rows in batches(db, SELECT_INDEX_TEXT + " ORDER BY id", size):
            end = start + len(rows)
            if not np.array_equal(ids[start:end], np.fromiter((row[0] for row in rows), np.int64, len(rows))):
                raise MnemeError(ERR_DATABASE, "the memories table changed inside one read snapshot")
            yield rows, vectors[start:end]
            start = end
