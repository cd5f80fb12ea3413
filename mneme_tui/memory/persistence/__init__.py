"""The persistence layer: every table, migration and SQL statement of the store lives in this package.

- ``tables``: every table declared once (columns, kinds, NOT NULL, primary keys, indexes).
- ``schema``: the migrations' DDL per dialect (the spec's ``memories`` DDL verbatim), the column tuples derived
  from ``tables``, and the peewee models.
- ``migrations``: the ordered list of migrations (a script per dialect) and the schema version.
- ``dialect``: the ``Dialect`` contract (a typed Protocol), the list of backends, and choosing one from a
  target (``dialect_for``) or an open database (``dialect_of``).
- ``sqlite_dialect``, ``postgres_dialect``: the two backends, one module each (the only places that branch on
  the backend); ``pg_copy`` decodes PostgreSQL's binary ``COPY`` for the latter.
- ``sql_text``: SQL text every dialect accepts (``?`` placeholders, plain inserts, id chunks).
- ``database``: opening a database safely (refuse foreign or newer ones first, then migrate), through its dialect.
- ``index_queries``: the SQL the in-memory index reads with (run by each dialect's bulk load).
- ``memories``: reading and writing ``memories`` rows.
- ``repositories``, ``curation``: one small class per side table.
- ``store_copy``: copying a whole store between databases (``mneme db copy``).
- ``pg_scratch``: a throwaway PostgreSQL schema for ``mneme bench --db postgresql://…`` (dropped after).

Nothing outside this package writes SQL.
"""
