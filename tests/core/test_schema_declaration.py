"""The schema is declared once (``persistence/tables.py``): each dialect's migrations build exactly that shape
(columns, types, NOT NULL, primary keys, indexes; PostgreSQL on a real server), an old SQLite store migrates to
it, and the peewee models agree with it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import peewee
import pytest

from mneme_tui.memory.persistence import tables
from mneme_tui.memory.persistence.dialect import DIALECTS, Dialect
from mneme_tui.memory.persistence.migrations import MIGRATIONS, SCHEMA_VERSION, script_at
from mneme_tui.memory.persistence.schema import AuditRow, MemoryRow, TaskAccessRow
from mneme_tui.memory.store import Store

NOW = "2026-12-01 09:00:00"
BACKEND_TABLES = {"sqlite_sequence"}
"""Tables a backend keeps for itself (SQLite's AUTOINCREMENT counters), not part of the store's schema."""


def _expected_columns(dialect: Dialect, table: tables.Table) -> tuple[tuple[str, str, bool], ...]:
    return tuple(
        (column.name, dialect.COLUMN_TYPES[column.kind], column.not_null or column.name in table.primary_key)
        for column in table.columns
    )


def _assert_declared_shape(dialect: Dialect, db: peewee.Database) -> None:
    assert dialect.table_names(db) - BACKEND_TABLES == {table.name for table in tables.TABLES}
    for table in tables.TABLES:
        shape = dialect.table_shape(db, table.name)
        assert shape.columns == _expected_columns(dialect, table), table.name
        assert dialect.column_names(db, table.name) == table.column_names(), table.name  # what opening checks
        assert shape.primary_key == table.primary_key, table.name
        assert dict(shape.indexes) == dict(table.indexes), table.name


def test_each_dialect_builds_exactly_the_declared_tables(db_target):
    store = Store(db_target)
    try:
        _assert_declared_shape(store.dialect, store.db)
    finally:
        store.close()


@pytest.mark.parametrize("version", range(1, SCHEMA_VERSION))
def test_an_older_sqlite_store_migrates_to_the_declared_tables(tmp_path: Path, version: int):
    path = tmp_path / "old.db"
    connection = sqlite3.connect(path)
    connection.executescript(
        "".join(script_at(m, NOW) for m in MIGRATIONS[:version]) + f"PRAGMA user_version = {version};"
    )
    connection.close()
    store = Store(path)
    try:
        _assert_declared_shape(store.dialect, store.db)
    finally:
        store.close()


def test_every_migration_has_a_script_for_every_dialect():
    names = {dialect.NAME for dialect in DIALECTS}
    assert all(set(migration.scripts) == names for migration in MIGRATIONS)


def test_every_dialect_maps_every_kind_of_column():
    assert all(set(dialect.COLUMN_TYPES) == set(tables.KINDS) for dialect in DIALECTS)
    assert {column.kind for table in tables.TABLES for column in table.columns} <= set(tables.KINDS)


MODEL_KINDS = {
    peewee.AutoField: tables.ID,
    peewee.IntegerField: tables.INTEGER,
    peewee.TextField: tables.TEXT,
    peewee.BlobField: tables.BLOB,
    peewee.DateTimeField: tables.TIMESTAMP,
}


@pytest.mark.parametrize(
    "model, table", [(MemoryRow, tables.MEMORIES), (AuditRow, tables.AUDIT), (TaskAccessRow, tables.TASK_ACCESS)]
)
def test_the_peewee_models_have_the_declared_columns(model: type[peewee.Model], table: tables.Table):
    fields = [model._meta.fields[name] for name in model._meta.sorted_field_names]
    assert [(field.column_name, MODEL_KINDS[type(field)]) for field in fields] == [
        (column.name, column.kind) for column in table.columns
    ]
