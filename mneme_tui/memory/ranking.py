"""Hybrid ranking (spec §4.2), vectorised over the in-memory index.

    score = relevance × decay × reinforcement × locality
    spec relevance = 0.75 · cosine + 0.25 · lexical

- cosine: dot product of unit vectors (spec §4.1), in [-1, 1].
- lexical: |distinct query tokens ∩ memory tokens| / |distinct query tokens|.
- decay: exp(-λ_kind · age_days), age clamped at 0 (``kinds.DECAY_LAMBDA``).
- reinforcement: 1 + 0.05 · min(access_count, 10).
- locality: 1.25 for an exact repo match in a scoped search, else 1.0.
Scoped searches see the repo's memories plus ``global`` ones; untyped scoped searches cap global axioms at
max(1, ⌊limit/3⌋) slots and backfill from the overflow only when too few other results scored above 0.
Only active memories are candidates and only scores above 0 are returned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from mneme_tui.config import GLOBAL_REPO
from mneme_tui.memory.index import Candidates, MemoryIndex
from mneme_tui.memory.vectors import embed_tokens, tokenize

COSINE_WEIGHT = 0.75
LEXICAL_WEIGHT = 0.25
LOCALITY_BOOST = 1.25
REINFORCEMENT_STEP = 0.05
REINFORCEMENT_CAP = 10
DEFAULT_PROFILE = "spec"


@dataclass(frozen=True)
class RecallQuery:
    """What to rank: the query text and the search options of spec §5.2."""

    text: str
    repo: str
    now_days: float
    cross_repo: bool = False
    kind: str | None = None
    limit: int = 5
    profile: str = DEFAULT_PROFILE


@dataclass(frozen=True)
class RankedRow:
    """One ranked index row: its position, id, score, factors and reasons."""

    position: int
    memory_id: int
    score: float
    components: dict[str, float]
    reasons: tuple[str, ...] = field(default_factory=tuple)


class RelevanceProfile(Protocol):
    """How a profile turns query text into a relevance per candidate row (before the spec's factors)."""

    name: str

    def relevance(
        self, index: MemoryIndex, text: str, rows: np.ndarray, is_all: bool
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Relevance of ``rows`` and the named components it was made of (arrays aligned with rows)."""
        ...


class SpecProfile:
    """The spec's relevance, bit for bit: 0.75 · cosine + 0.25 · lexical overlap."""

    name = "spec"

    def relevance(
        self, index: MemoryIndex, text: str, rows: np.ndarray, is_all: bool
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        tokens = tokenize(text)
        query_vector = embed_tokens(tokens)
        matrix = index.vectors if is_all else index.vectors[rows]
        cosine = matrix @ query_vector
        distinct = len(set(tokens))
        if distinct:
            overlap = index.token_overlap(index.query_token_ids(tokens))
            lexical = (overlap if is_all else overlap[rows]) / np.float32(distinct)
        else:
            lexical = np.zeros(rows.size, dtype=np.float32)
        relevance = COSINE_WEIGHT * cosine + LEXICAL_WEIGHT * lexical
        return relevance, {"cosine": cosine, "lexical": lexical}


PROFILES: dict[str, RelevanceProfile] = {"spec": SpecProfile()}


def profile_names() -> tuple[str, ...]:
    return tuple(PROFILES)


def decay_factor(lam: np.ndarray, age_days: np.ndarray) -> np.ndarray:
    """Ebbinghaus decay exp(-λ · age), with negative ages (future timestamps) counted as 0."""
    return np.exp(-lam * np.maximum(age_days, 0.0))


def reinforcement_factor(access_count: np.ndarray) -> np.ndarray:
    """1 + 0.05 · min(access_count, 10)."""
    return 1.0 + REINFORCEMENT_STEP * np.minimum(access_count, REINFORCEMENT_CAP)


def axiom_slots(limit: int) -> int:
    """How many global axioms an untyped scoped query may show: max(1, ⌊limit/3⌋)."""
    return max(1, limit // 3)


def rank(index: MemoryIndex, query: RecallQuery) -> list[RankedRow]:
    """The top ``query.limit`` candidates by hybrid score, with the global-axiom cap applied."""
    profile = PROFILES[query.profile]
    with index.lock:
        candidates = index.candidates(query.repo, query.cross_repo, query.kind, GLOBAL_REPO)
        rows = candidates.rows
        if rows.size == 0 or query.limit <= 0:
            return []
        relevance, parts = profile.relevance(index, query.text, rows, candidates.is_all)
        lam = index.kind_lambda[index.kind_codes[rows]]
        decay = decay_factor(lam, query.now_days - index.created_days[rows])
        reinforcement = reinforcement_factor(index.access[rows])
        locality = np.where(candidates.local, LOCALITY_BOOST, 1.0) if not query.cross_repo else np.ones(rows.size)
        score = relevance * decay * reinforcement * locality
        picked, backfilled = _select(score, candidates, index.ids[rows], query.limit)
        results = []
        for local_position in picked:
            components = {name: float(values[local_position]) for name, values in parts.items()}
            components.update(
                decay=float(decay[local_position]),
                reinforcement=float(reinforcement[local_position]),
                locality=float(locality[local_position]),
            )
            results.append(
                RankedRow(
                    position=int(rows[local_position]),
                    memory_id=int(index.ids[rows[local_position]]),
                    score=float(score[local_position]),
                    components=components,
                    reasons=_reasons(candidates, query, local_position, local_position in backfilled),
                )
            )
        return results


def _top(score: np.ndarray, ids: np.ndarray, subset: np.ndarray, k: int) -> np.ndarray:
    """Positions (from ``subset``) of the k best scores, best first, ties by lower id."""
    if subset.size > k:
        part = np.argpartition(-score[subset], k - 1)[:k]
        threshold = score[subset[part]].min()
        subset = subset[score[subset] >= threshold]  # keep ties at the boundary for a stable order
    order = np.lexsort((ids[subset], -score[subset]))
    return subset[order][:k]


def _select(score: np.ndarray, candidates: Candidates, ids: np.ndarray, limit: int) -> tuple[list[int], set[int]]:
    positive = score > 0
    if not candidates.capped.any():
        return _top(score, ids, np.flatnonzero(positive), limit).tolist(), set()
    others = _top(score, ids, np.flatnonzero(positive & ~candidates.capped), limit)
    axioms = _top(score, ids, np.flatnonzero(positive & candidates.capped), limit)
    slots = axiom_slots(limit)
    merged = np.concatenate([others, axioms[:slots]])
    merged = merged[np.lexsort((ids[merged], -score[merged]))][:limit]
    backfill = axioms[slots : slots + max(0, limit - merged.size)]
    chosen = np.concatenate([merged, backfill])
    chosen = chosen[np.lexsort((ids[chosen], -score[chosen]))]
    return chosen.tolist(), set(backfill.tolist())


def _reasons(candidates: Candidates, query: RecallQuery, position: int, backfilled: bool) -> tuple[str, ...]:
    if query.cross_repo:
        return ("cross-repo search: no locality boost",)
    if candidates.local[position]:
        return (f"repo match ×{LOCALITY_BOOST:g}",)
    if candidates.capped[position]:
        slots = axiom_slots(query.limit)
        if backfilled:
            return (f"global axiom, backfilled past the cap of {slots}: few repo matches",)
        return (f"global axiom, capped at {slots} slot{'s' if slots != 1 else ''}",)
    return ("global memory",)
