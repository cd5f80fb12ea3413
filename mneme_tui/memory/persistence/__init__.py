"""The persistence layer: every table, migration and SQL statement of the store lives in this package.

- ``schema``: the spec's ``memories`` DDL, the side tables' DDL and the peewee models.
- ``migrations``: the ordered list of migrations (a script per dialect) and the schema version
  (``PRAGMA user_version`` on SQLite, ``mneme_meta.schema_version`` on PostgreSQL).
- ``dialect``: everything specific to SQLite (pragmas, write locks, upserts, row ids, error mapping).
- ``dialect_pg``: the same names for PostgreSQL (``?`` → ``%s``, advisory write lock, ``RETURNING`` ids,
  rerunning a write transaction after a serialization failure or deadlock).
- ``database``: opening a database safely (refuse foreign or newer ones first, then migrate); picks the
  dialect by the target, a file path or a ``postgresql://`` URL.
- ``pg_copy``: decoding a binary ``COPY`` of ids and embeddings (the index load from PostgreSQL).
- ``store_copy``: copying a whole store between databases (``mneme db copy``).
- ``pg_scratch``: a throwaway PostgreSQL schema for ``mneme bench --db postgresql://…`` (dropped after).
- ``memories``: reading and writing ``memories`` rows.
- ``repositories``: one small class per side table (audit, task access, revision, Legion records,
  task-sync ledger).

Nothing outside this package writes SQL.
"""
