"""Memories of every kind a handshake reads, for tests that compare its ranking (``mixed_items``), and where its
covering index comes in the migrations."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta

from mneme_tui.memory.persistence import schema
from mneme_tui.memory.persistence.migrations import MIGRATIONS
from mneme_tui.memory.records import DEMO, LEGION_IMPORT, TASK_SYNC, Provenance

NOW = datetime(2026, 3, 1, 9, 0, 0)
"""The clock the items are dated against (set ``MNEME_NOW`` to it)."""
GATES = ("Cognitive Complexity", "cognitive  complexity", "Lint", "Nil Check", "Test Coverage")
SCOPES = ("src/store", "src/ui", "docs", "")
INDEX_COLUMNS = ("repo_id", "kind", "status", "topic", "task_id", "created_at", "access_count")
"""The columns of the handshake's covering index, ``idx_memories_orientation``."""


def orientation_index_step() -> int:
    """Where the migration that adds the covering index is in ``MIGRATIONS`` (its number may change at a merge)."""
    return next(i for i, m in enumerate(MIGRATIONS) if m.scripts["sqlite"] == schema.ORIENTATION_INDEX_DDL)


def mixed_items(rng: random.Random, count: int) -> Iterator[dict]:
    """``count`` items for ``Store.mint_ids``: pitfalls (most), patterns, imported practices and errors and a
    kind the handshake does not read; several repositories, gates spelled two ways, tasks with spaces or none,
    dates over 40 days (some equal), some tombstoned, some not task-synced."""
    for number in range(count):
        kind = rng.choice(("pitfall",) * 5 + ("pattern", "practice", "error", "decision"))
        scope = rng.choice(SCOPES)
        if kind == "pattern":
            topic = f"pattern:{scope}" if scope else "Patterns in general"
        else:
            topic = f"{rng.choice(GATES)} @ {scope}" if scope else rng.choice(GATES)
        if kind in ("practice", "error"):
            provenance = Provenance(LEGION_IMPORT, f"PRACTICES.md#P-{number:03d}")
        else:
            provenance = Provenance(rng.choice((TASK_SYNC, TASK_SYNC, DEMO)), f"T-{number}")
        yield {
            "kind": kind,
            "topic": topic,
            "content": f"memory {number}\nwith a second line",
            "repo_id": rng.choice(("acme", "acme", "global", "other")),
            "task_id": rng.choice(("", " ", "T-1", "T-2 ", "T-3", f"T-{number}")),
            "created_at": NOW - timedelta(days=rng.randrange(0, 40), seconds=rng.randrange(0, 3) * 3600),
            "status": rng.choice(("active",) * 6 + ("tombstoned",)),
            "access_count": rng.choice((0, 0, 1, 3, 5)),
            "provenance": provenance,
        }
