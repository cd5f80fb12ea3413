"""The bulk rows the snapshot tests mint: ``MIN_ROWS + 50`` reflections in three repositories (enough for a
store to write an index snapshot), minted once per module into a template the tests copy."""

from __future__ import annotations

from provenances import SYNCED

from mneme_tui.config import DbTarget
from mneme_tui.memory import index_snapshot
from mneme_tui.memory.store import Store

REPOS = ("nomos", "acme", "global")


def mint_bulk(target: DbTarget) -> None:
    """Mint the bulk rows into the store at ``target``, then close it."""
    store = Store(target)
    store.mint_many(
        [
            dict(
                content=f"bulk row {i} topic{i % 97} cache{i % 13}",
                kind="reflection",
                provenance=SYNCED,
                repo_id=REPOS[i % 3],
            )
            for i in range(index_snapshot.MIN_ROWS + 50)
        ]
    )
    store.close()
