"""The spec's hybrid formula as a plain per-row Python loop: the baseline ``mneme bench`` compares against.

It reads the same rows as the index and computes the same score, one memory at a time, without numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import peewee

from mneme_tui.config import GLOBAL_REPO
from mneme_tui.memory.index import days_since_epoch
from mneme_tui.memory.kinds import DECAY_LAMBDA
from mneme_tui.memory.persistence.memories import naive_rows
from mneme_tui.memory.ranking import axiom_slots
from mneme_tui.memory.vectors import embed_tokens, from_blob, tokenize


@dataclass(frozen=True)
class NaiveRow:
    id: int
    repo_id: str
    kind: str
    status: str
    vector: list[float]
    tokens: frozenset[str]
    created_days: float
    access_count: int


def naive_rows_of(db: peewee.Database) -> list[NaiveRow]:
    """Every memory of ``db`` as a :class:`NaiveRow` (its vector and words decoded once)."""
    return [
        NaiveRow(
            r[0],
            r[1],
            r[2],
            r[3],
            from_blob(r[4]).tolist(),
            frozenset(tokenize(r[7])),
            float(days_since_epoch([r[5]])[0]),
            r[6],
        )
        for r in naive_rows(db)
    ]


def naive_rank(
    rows: list[NaiveRow],
    text: str,
    *,
    repo: str,
    now_days: float,
    cross_repo: bool = False,
    kind: str | None = None,
    limit: int = 5,
) -> list[tuple[int, float]]:
    """(id, score) of the top ``limit`` rows, computed row by row."""
    tokens = tokenize(text)
    distinct = set(tokens)
    query = [float(x) for x in embed_tokens(tokens)]
    scored: list[tuple[float, int, bool]] = []
    for row in rows:
        if row.status != "active" or (kind is not None and row.kind != kind):
            continue
        local = row.repo_id == repo
        if not cross_repo and not local and row.repo_id != GLOBAL_REPO:
            continue
        cosine = sum(a * b for a, b in zip(row.vector, query))
        lexical = len(distinct & row.tokens) / len(distinct) if distinct else 0.0
        decay = math.exp(-DECAY_LAMBDA.get(row.kind, 0.02) * max(now_days - row.created_days, 0.0))
        reinforcement = 1.0 + 0.05 * min(row.access_count, 10)
        locality = 1.25 if (local and not cross_repo) else 1.0
        score = (0.75 * cosine + 0.25 * lexical) * decay * reinforcement * locality
        if score > 0:
            capped = not cross_repo and kind is None and not local and row.kind == "axiom"
            scored.append((score, row.id, capped))
    scored.sort(key=lambda item: (-item[0], item[1]))
    slots = axiom_slots(limit)
    chosen = [item for item in scored if not item[2]][:limit]
    axioms = [item for item in scored if item[2]]
    chosen = sorted(chosen + axioms[:slots], key=lambda item: (-item[0], item[1]))[:limit]
    chosen += axioms[slots : slots + max(0, limit - len(chosen))]
    chosen.sort(key=lambda item: (-item[0], item[1]))
    return [(item[1], item[0]) for item in chosen]
