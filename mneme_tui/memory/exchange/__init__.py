"""``mneme export`` / ``mneme import``: memories with their status, links, provenance and audit history as
JSONL (the interchange format, ``export_lines``), read back into any store (``importer``), or as Markdown for
people (``markdown``). docs/export.md documents the shapes."""
