"""The persistence layer: every table, migration and SQL statement of the store lives in this package.

- ``schema``: the spec's ``memories`` DDL, the side tables' DDL and the peewee models.
- ``migrations``: the ordered list of migrations and the schema version (``PRAGMA user_version``).
- ``dialect``: everything specific to SQLite (pragmas, write locks, upserts, row ids, error mapping).
- ``database``: opening a database file safely (refuse foreign or newer files first, then migrate).
- ``memories``: reading and writing ``memories`` rows.
- ``repositories``: one small class per side table (audit, task access, revision, Legion records,
  task-sync ledger).

Nothing outside this package writes SQL; a second backend is one more ``dialect`` module.
"""
