"""A scratch schema in a PostgreSQL database, for ``mneme bench --db postgresql://…``.

The bench never writes into a user's tables. :func:`memory_count` tells whether the URL's own schema holds
memories (the bench refuses such a database); :func:`scratch_schema` creates a new schema of the bench's
own (``mneme_bench_<random>``) and yields a URL whose connections put that schema first on their
``search_path``, so every table, trigger and function mneme creates lands there; at the end it drops that
schema and everything in it, and nothing else.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import peewee

from mneme_tui.memory.persistence import postgres_dialect

SCHEMA_PREFIX = "mneme_bench_"


def memory_count(url: str) -> int:
    """How many memories the database at ``url`` holds in its own schema (0 when it has no store)."""
    with _connected(url) as db:
        if db.execute_sql("SELECT to_regclass('memories')").fetchone()[0] is None:
            return 0
        return int(db.execute_sql("SELECT COUNT(*) FROM memories").fetchone()[0])


def schemas(url: str) -> list[str]:
    """The names of the schemas in the database at ``url`` (to check that a bench left none behind)."""
    with _connected(url) as db:
        return sorted(row[0] for row in db.execute_sql("SELECT nspname FROM pg_namespace").fetchall())


@contextmanager
def scratch_schema(url: str) -> Iterator[str]:
    """Create a new, empty schema in the database at ``url``; yield a URL that works inside it; drop it."""
    name = SCHEMA_PREFIX + secrets.token_hex(6)
    with _connected(url) as db:
        db.execute_sql(f"CREATE SCHEMA {name}")  # fails if the name exists: never adopts someone's schema
    try:
        yield with_search_path(url, name)
    finally:
        with _connected(url) as db:
            db.execute_sql(f"DROP SCHEMA {name} CASCADE")


def with_search_path(url: str, schema: str) -> str:
    """``url`` with ``schema`` first on the connection's ``search_path`` (other options kept)."""
    split = urlsplit(url)
    query = parse_qsl(split.query, keep_blank_values=True)
    options = next((value for key, value in query if key == "options"), postgres_dialect.DEFAULT_OPTIONS)
    query = [(key, value) for key, value in query if key != "options"]
    query.append(("options", f"{options} -c search_path={schema}"))
    return urlunsplit(split._replace(query=urlencode(query, quote_via=quote)))


@contextmanager
def _connected(url: str) -> Iterator[peewee.Database]:
    """An autocommit connection to ``url``; a failure is one ERR_DATABASE line without the password."""
    db = postgres_dialect.connect(url)
    try:
        db.connect()  # peewee's connections autocommit outside ``atomic()``
        yield db
    except postgres_dialect.DATABASE_ERRORS as exc:
        raise postgres_dialect.database_error(url, exc) from None
    finally:
        db.close()
