"""The Mneme core: peewee models, deterministic vectors, hybrid ranking and the Store API (no Textual)."""
