"""The real store as a ranker: a temporary database filled with a dataset, recalled through each profile."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.evaluation.baselines import RANK_CUTOFF, Ranker
from mneme_tui.memory.evaluation.dataset import Dataset, Question
from mneme_tui.memory.ranking import profile_names
from mneme_tui.memory.records import BENCH, Provenance
from mneme_tui.memory.store import Store


@dataclass(frozen=True)
class LoadedStore:
    """A store filled with a dataset's memories, and the map from store ids back to dataset keys."""

    store: Store
    id_to_key: dict[int, str]

    def close(self) -> None:
        self.store.close()


def load_into_store(dataset: Dataset, db_path: Path | str) -> LoadedStore:
    """Mint every dataset memory (created_at = now - age_days, access_count, status) into ``db_path``.

    ``db_path`` should be a new database file: memories already in it would compete in every recall.
    """
    store = Store(db_path)
    minted = store.mint_many(
        [
            dict(
                content=memory.content,
                kind=memory.kind,
                topic=memory.topic,
                repo_id=memory.repo,
                created_at=dataset.created_at(memory),
                access_count=memory.access_count,
                status=memory.status,
                provenance=Provenance(BENCH, "evaluation dataset"),
            )
            for memory in dataset.memories
        ]
    )
    return LoadedStore(store, {row.id: memory.key for row, memory in zip(minted, dataset.memories, strict=True)})


def store_ranker(
    dataset: Dataset,
    db_path: Path | str | None = None,
    *,
    profile: str = "spec",
    limit: int = RANK_CUTOFF,
    loaded: LoadedStore | None = None,
) -> Ranker:
    """The store's ``recall`` as a ranker: read-only, at the dataset's ``now``, scoped like the question.

    Give either a fresh ``db_path`` (the dataset is loaded into it) or ``loaded`` from
    :func:`load_into_store`, e.g. to compare several ranking profiles on one database.
    """
    if loaded is None:
        if db_path is None:
            raise MnemeError(ERR_VALIDATION_FAILED, "store_ranker needs a db_path or a loaded store")
        loaded = load_into_store(dataset, db_path)

    def rank(question: Question) -> list[str]:
        results = loaded.store.recall(
            question.query,
            repo=question.repo,
            cross_repo=question.cross_repo,
            limit=limit,
            profile=profile,
            now=dataset.now,
        )
        return [loaded.id_to_key[r.memory.id] for r in results if r.memory.id in loaded.id_to_key]

    return rank


def store_profiles() -> tuple[str, ...]:
    """The ranking profiles the store offers."""
    return tuple(profile_names())


def check_profiles(names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``names`` without repeats, each checked against ``ranking.PROFILES`` (ERR_VALIDATION_FAILED)."""
    known = store_profiles()
    for name in names:
        if name not in known:
            raise MnemeError(ERR_VALIDATION_FAILED, f"unknown profile {name!r} (valid: {', '.join(known)})")
    return tuple(dict.fromkeys(names))
