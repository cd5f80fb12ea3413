"""Stores built for each proposal kind (memories minted with fixed times through the store's own write path)."""

from __future__ import annotations

from datetime import datetime

import pytest

from mneme_tui.memory.records import DEMO, Provenance
from mneme_tui.memory.store import Store

SAMPLE = Provenance(DEMO, "curation tests")


def mint(
    store: Store,
    content: str,
    *,
    repo: str = "acme",
    kind: str = "reflection",
    topic: str = "Testing",
    created: str = "2026-11-01",
    access: int = 0,
) -> int:
    """One memory with a fixed creation time; its id."""
    return store.mint(
        content,
        kind=kind,
        topic=topic,
        repo_id=repo,
        provenance=SAMPLE,
        created_at=datetime.fromisoformat(created),
        access_count=access,
    ).id


@pytest.fixture
def store(db_target) -> Store:
    """A fresh store on each backend in turn (``tests/pg_fixtures.py``)."""
    return Store(db_target)
