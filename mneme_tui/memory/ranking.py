"""Hybrid ranking (spec §4.2), vectorised over the in-memory index, with two relevance profiles.

    score = relevance × decay × reinforcement × locality
    spec relevance = 0.75 · cosine + 0.25 · lexical                      (profile ``spec``, the default)
    bm25 relevance = exp(bm25 − best bm25 of the query's candidates)     (profile ``bm25``)

- cosine: dot product of unit vectors (spec §4.1), in [-1, 1].
- lexical: |distinct query tokens ∩ memory tokens| / |distinct query tokens|.
- decay: exp(-λ_kind · age_days), age clamped at 0 (``kinds.DECAY_LAMBDA``).
- reinforcement: 1 + 0.05 · min(access_count, 10).
- locality: 1.25 for an exact repo match in a scoped search, else 1.0.
Scoped searches see the repo's memories plus ``global`` ones; untyped scoped searches cap global axioms at
max(1, ⌊limit/3⌋) slots and backfill from the overflow only when too few other results scored above 0.
Only active memories are candidates and only scores above 0 are returned; the ``bm25`` profile also leaves
out rows whose bm25 is below ``RELEVANCE_FLOOR`` × the best bm25 of the query, and results scoring below
``SCORE_FLOOR`` × the top result's score.

The ``bm25`` profile keeps every factor above and replaces only the relevance (see :class:`Bm25Profile`
and the README's "Recall quality" section for the measurements behind each choice).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import numpy as np

from mneme_tui.config import GLOBAL_REPO
from mneme_tui.memory.bm25_scores import bm25_sums
from mneme_tui.memory.index import Candidates, MemoryIndex
from mneme_tui.memory.vectors import embed_tokens, tokenize

COSINE_WEIGHT = 0.75
LEXICAL_WEIGHT = 0.25
LOCALITY_BOOST = 1.25
REINFORCEMENT_STEP = 0.05
REINFORCEMENT_CAP = 10
DEFAULT_PROFILE = "bm25"
BM25_K1 = 1.2
BM25_B = 0.75
RELEVANCE_FLOOR = 0.1
"""The bm25 profile returns no row whose BM25 score is below this share of the best BM25 score of the query."""
SCORE_FLOOR = 0.01
"""The bm25 profile returns no result whose score is below this share of the top result's score."""
_MIN_LOG_RELEVANCE = -700.0  # exp(-700) is still a positive float64: a weak match never scores exactly 0


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


@dataclass(frozen=True)
class Relevance:
    """A profile's relevance for some candidates, and the named components it was made of.

    ``positions`` are positions in ``Candidates.rows``; None means every candidate, in order. ``values``
    and every array in ``parts`` are aligned with them. Candidates left out have relevance 0.
    """

    values: np.ndarray
    parts: dict[str, np.ndarray]
    positions: np.ndarray | None = None
    more_parts: Callable[[np.ndarray], dict[str, np.ndarray]] | None = None
    """Components after ``parts``, computed only for the few indexes into ``values`` that can make the result."""


class RelevanceProfile(Protocol):
    """How a profile turns query text into a relevance per candidate row (before the spec's factors)."""

    @property
    def name(self) -> str:
        """The profile's name (``--profile``)."""
        ...

    @property
    def description(self) -> str:
        """One line saying how it ranks."""
        ...

    @property
    def score_floor(self) -> float:
        """Results scoring below this share of the top result's score are not returned (0: none cut)."""
        ...

    def score(self, index: MemoryIndex, text: str, candidates: Candidates) -> Relevance:
        """Relevance of the candidates (all of them, or the ``positions`` that can score above 0)."""
        ...


class SpecProfile:
    """The spec's relevance, bit for bit: 0.75 · cosine + 0.25 · lexical overlap."""

    name = "spec"
    score_floor = 0.0  # the spec returns every score above 0
    description = (
        "The Mneme spec's formula, exactly: 0.75 × cosine of the 64-dim hashed vectors + 0.25 × share of "
        "query words in the memory, times decay, reinforcement and locality."
    )

    def score(self, index: MemoryIndex, text: str, candidates: Candidates) -> Relevance:
        """Float32 relevance of every candidate (BLAS rounding may differ by ~1e-7 between rows;
        ``exact`` re-scores the rows that matter)."""
        rows = candidates.rows
        tokens = tokenize(text)
        query_vector = embed_tokens(tokens)
        if not candidates.is_all and rows.size * 2 > index.size:  # a full product beats a big gather
            cosine = (index.vectors @ query_vector)[rows]
        else:
            cosine = candidates.matrix(index.vectors) @ query_vector
        distinct = len(set(tokens))
        if distinct:
            overlap = index.token_overlap(index.query_token_ids(tokens))
            lexical = (overlap if candidates.is_all else overlap[rows]) * np.float32(1.0 / distinct)
        else:
            lexical = np.zeros(rows.size, dtype=np.float32)
        relevance = cosine * np.float32(COSINE_WEIGHT)
        relevance += lexical * np.float32(LEXICAL_WEIGHT)
        return Relevance(relevance, {"cosine": cosine, "lexical": lexical})

    def exact(self, index: MemoryIndex, text: str, rows: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Float64 relevance of a few rows, computed the same way for every row (ties stay ties) and with
        the cosine clipped to [-1, 1] (spec Law 2)."""
        tokens = tokenize(text)
        query = embed_tokens(tokens).astype(np.float64)
        matrix = index.vectors[rows].astype(np.float64)
        dots = (matrix * query).sum(axis=1)  # row-wise, so identical rows give identical sums
        norms = np.sqrt((matrix * matrix).sum(axis=1)) * np.sqrt((query * query).sum())
        cosine = np.clip(np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0), -1.0, 1.0)
        distinct = len(set(tokens))
        lexical = index.row_overlap(rows, index.query_token_ids(tokens)) / distinct if distinct else np.zeros(rows.size)
        return COSINE_WEIGHT * cosine + LEXICAL_WEIGHT * lexical, {"cosine": cosine, "lexical": lexical}


@dataclass(frozen=True)
class Bm25Profile:
    """Okapi BM25 over analysed terms, as a log-odds relevance under the spec's multiplicative factors.

    - Terms: ``analysis.Analyzer`` (words, camel-case identifier parts, stop words dropped, Porter stems)
      of the memory's content, stored per row in ``MemoryIndex.terms``.
    - Statistics: N, df and avgdl over the query's candidate set (the active memories this search may
      return), so a word common in this repository weighs less here, as in the harness's BM25 baseline.
      idf = ln(1 + (N − df + 0.5) / (df + 0.5)), k1 = 1.2, b = 0.75 (the textbook values, not tuned).
      avgdl is the *median* analysed length, not the mean: one very long memory would otherwise raise the
      mean enough to shrink every other memory's length penalty and flatten their scores against the best.
    - Floors: a row whose bm25 is below ``RELEVANCE_FLOOR`` (10 %) of the query's best bm25 is not a
      candidate (on the evaluation set every right answer in the top 10 has at least 20 % of the best), and
      a result whose final score is below ``SCORE_FLOOR`` (1 %) of the top result's is not returned.
    - Relevance = exp(bm25 − best): BM25 is a sum of log-odds weights, so its exponential is an odds
      ratio that the spec's factors can scale; equivalently the ranking is by bm25 + ln decay +
      ln reinforcement + ln locality. The best match of a query has relevance 1; memories sharing no
      term with the query have relevance 0 and are not returned.
    - The 64-dim hashed vector is not used: on the evaluation set adding any share of its cosine only
      made results worse (it is a noisy projection of the same words BM25 already counts).

    Only rows sharing a term with the query are scored (posting lists, no pass over every row).
    """

    name: ClassVar[str] = "bm25"
    description: ClassVar[str] = (
        "Keyword relevance: BM25 over analysed words (identifier parts split, stop words dropped, "
        "Porter stems) with IDF from the searched memories, as exp(bm25 − best), times the spec's "
        "decay, reinforcement and locality. No vectors."
    )
    k1: float = BM25_K1
    b: float = BM25_B
    # ablation switches (the shipped profile uses the defaults; see evaluation.ablation)
    transform: str = "exp"  # "exp": exp(bm25 − best); "linear": bm25 / best
    statistics: str = "candidates"  # "candidates": N, df, avgdl of the searched set; "index": of all active rows
    cosine_weight: float = 0.0  # w > 0: relevance = (1 − w) · relevance + w · spec cosine, for every candidate
    floor: float = RELEVANCE_FLOOR  # rows with bm25 below floor × the best bm25 are not returned
    score_floor: float = SCORE_FLOOR  # results scoring below score_floor × the top result's are not returned

    def __post_init__(self) -> None:
        if self.transform not in ("exp", "linear") or self.statistics not in ("candidates", "index"):
            raise ValueError(f"bad Bm25Profile options: {self.transform!r}, {self.statistics!r}")

    def score(self, index: MemoryIndex, text: str, candidates: Candidates) -> Relevance:
        term_ids, distinct = index.terms.query_terms(text)
        stats = candidates
        if self.statistics == "index":
            stats = index.candidates(None, True, None, GLOBAL_REPO)  # every active row
        # only rows a query term reaches, and of those none negligible next to the best match
        sums = bm25_sums(index, candidates, stats, term_ids, self.k1, self.b, self.floor)
        hits, bm25, best = sums.rows, sums.bm25, sums.best
        if self.transform == "linear":
            relevance = bm25 / best if best > 0 else bm25
        else:
            relevance = bm25 - best  # a new array: bm25 is reported as it is
            if best * (1.0 - self.floor) > -_MIN_LOG_RELEVANCE:  # else the floor keeps every row above the clamp
                np.maximum(relevance, _MIN_LOG_RELEVANCE, out=relevance)
            np.exp(relevance, out=relevance)
        positions = hits if candidates.is_all else candidates.maps(index.size)[1][hits]

        def matched(chosen: np.ndarray) -> dict[str, np.ndarray]:
            return {"matched": sums.matched(hits[chosen]) / float(max(distinct, 1))}

        parts = {"relevance": relevance, "bm25": bm25}
        if self.cosine_weight <= 0:
            return Relevance(relevance, parts, positions, more_parts=matched)
        parts.update(matched(np.arange(hits.size)))
        dense = {name: np.zeros(candidates.rows.size) for name in parts}
        for name, values in parts.items():
            dense[name][positions] = values
        matrix = index.vectors if candidates.is_all else index.vectors[candidates.rows]
        cosine = matrix @ embed_tokens(tokenize(text))
        mixed = (1.0 - self.cosine_weight) * dense["relevance"] + self.cosine_weight * cosine
        return Relevance(mixed, {**dense, "cosine": cosine})


PROFILES: dict[str, RelevanceProfile] = {"spec": SpecProfile(), "bm25": Bm25Profile()}

PROFILE_DESCRIPTIONS: dict[str, str] = {name: profile.description for name, profile in PROFILES.items()}
"""One line per profile, for the TUI's Recall screen, ``--help`` and the README."""

PROFILE_COMPONENTS: dict[str, tuple[str, ...]] = {
    "spec": ("cosine", "lexical", "decay", "reinforcement", "locality"),
    "bm25": ("relevance", "bm25", "matched", "decay", "reinforcement", "locality"),
}
"""The components each profile reports in ``ScoredMemory.components``, in reading order."""

COMPONENT_DESCRIPTIONS: dict[str, str] = {
    "cosine": "cosine of the 64-dim hashed word vectors of query and memory (−1…1; spec weight 0.75)",
    "lexical": "share of the query's distinct words found in the memory (0…1; spec weight 0.25)",
    "relevance": "exp(bm25 − the best bm25 for this query): 1 for the best keyword match, falling towards 0",
    "bm25": "BM25 keyword score: rarer shared terms and repeated terms weigh more, long memories less (0…)",
    "matched": "share of the query's analysed terms (stems, identifier parts; no stop words) in the memory (0…1)",
    "decay": "exp(−λ_kind × age in days): older memories fade, each kind at its own rate (0…1)",
    "reinforcement": "1 + 0.05 × min(access count, 10): memories that tasks used before rank higher (1…1.5)",
    "locality": "1.25 for a memory of the searched repository in a scoped search, else 1",
}
"""What each component means, for the Recall detail pane and the README."""

COMPONENT_RANGES: dict[str, tuple[float, float | None]] = {
    "cosine": (-1.0, 1.0),
    "lexical": (0.0, 1.0),
    "relevance": (0.0, 1.0),
    "bm25": (0.0, None),
    "matched": (0.0, 1.0),
    "decay": (0.0, 1.0),
    "reinforcement": (1.0, 1.5),
    "locality": (1.0, 1.25),
}
"""(low, high) each component can take; None = unbounded (e.g. for drawing bars)."""


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


def rank(index: MemoryIndex, query: RecallQuery, profile: RelevanceProfile | None = None) -> list[RankedRow]:
    """The top ``query.limit`` candidates by hybrid score, with the global-axiom cap applied.

    Two passes: a float32 pass over every candidate (cached per-row factors, no Python loop) finds the
    few rows that can make the list, then an exact float64 pass re-scores just those and picks the
    result, so rounding noise never reorders near-ties (equal scores go to the lower id).
    ``profile`` overrides ``PROFILES[query.profile]`` (the evaluation's ablations rank with variants).
    """
    profile = profile or PROFILES[query.profile]
    with index.lock:
        candidates = index.candidates(query.repo, query.cross_repo, query.kind, GLOBAL_REPO)
        if candidates.rows.size == 0 or query.limit <= 0:
            return []
        found = profile.score(index, query.text, candidates)
        positions = found.positions  # None: every candidate was scored
        approximate = found.values * _factors(index, candidates, query).approximate(query.now_days, positions)
        capped = None  # no capped candidate: no gather of the flags
        if candidates.any_capped:
            capped = candidates.capped if positions is None else candidates.capped[positions]
        pool = _pool(approximate, capped, query.limit)
        at = pool if positions is None else positions[pool]  # positions in candidates.rows
        rows = candidates.rows[at]
        exact = getattr(profile, "exact", None)
        if exact is not None:
            relevance, parts = exact(index, query.text, rows)
        else:
            relevance = np.asarray(found.values[pool], dtype=np.float64)
            parts = {name: np.asarray(values[pool], dtype=np.float64) for name, values in found.parts.items()}
            if found.more_parts is not None:
                parts.update(found.more_parts(pool))
        decay = decay_factor(index.kind_lambda[index.kind_codes[rows]], query.now_days - index.created_days[rows])
        reinforcement = reinforcement_factor(index.access[rows].astype(np.float64))
        local = candidates.local[at]
        locality = np.where(local & (not query.cross_repo), LOCALITY_BOOST, 1.0)
        score = relevance * decay * reinforcement * locality
        picked, backfilled = _select(score, candidates.capped[at], index.ids[rows], query.limit)
        if picked and profile.score_floor > 0:  # negligible next to the top result: not a result
            top = float(score[picked[0]])
            picked = [i for i in picked if score[i] >= profile.score_floor * top]
        results = []
        for i in picked:
            components = {name: float(values[i]) for name, values in parts.items()}
            components.update(decay=float(decay[i]), reinforcement=float(reinforcement[i]), locality=float(locality[i]))
            results.append(
                RankedRow(
                    position=int(rows[i]),
                    memory_id=int(index.ids[rows[i]]),
                    score=float(score[i]),
                    components=components,
                    reasons=_reasons(bool(local[i]), bool(candidates.capped[at][i]), query, i in backfilled),
                )
            )
        return results


@dataclass
class _Factors:
    """decay × reinforcement × locality of every candidate at a reference time, in float32.

    At another time t ≥ ref the decay of a row of kind k is its value at ref times exp(-λ_k (t − ref)), so
    a query multiplies by a per-kind scale instead of recomputing an exponential per row.
    """

    ref_days: float
    static: np.ndarray  # float32 factor per candidate at ref_days
    kind_codes: np.ndarray  # kind code per candidate
    kind_lambda: np.ndarray  # λ per kind code
    newest_days: float  # latest creation day among the candidates

    def approximate(self, now_days: float, positions: np.ndarray | None = None) -> np.ndarray:
        """The factor at ``now_days`` of the candidates at ``positions`` (None: of every candidate)."""
        static = self.static if positions is None else self.static[positions]
        if now_days == self.ref_days:
            return static
        kinds = self.kind_codes if positions is None else self.kind_codes[positions]
        scale = np.exp(-self.kind_lambda * (now_days - self.ref_days)).astype(np.float32)
        return static * scale[kinds]


def _factors(index: MemoryIndex, candidates: Candidates, query: RecallQuery) -> _Factors:
    """The candidates' cached factors, rebuilt when the clock moved backwards or past a future row."""
    cached = candidates.factors
    if isinstance(cached, _Factors) and cached.ref_days <= query.now_days and cached.newest_days <= cached.ref_days:
        return cached
    rows = None if candidates.is_all else candidates.rows
    pick = (lambda values: values) if rows is None else (lambda values: values[rows])
    kind_codes = pick(index.kind_codes)
    created = pick(index.created_days)
    static = decay_factor(index.kind_lambda[kind_codes], query.now_days - created)
    static *= reinforcement_factor(pick(index.access).astype(np.float64))
    if not query.cross_repo:
        static *= np.where(candidates.local, LOCALITY_BOOST, 1.0)
    factors = _Factors(
        ref_days=query.now_days,
        static=static.astype(np.float32),
        kind_codes=kind_codes,
        kind_lambda=index.kind_lambda.copy(),
        newest_days=float(created.max()) if created.size else 0.0,
    )
    candidates.factors = factors
    return factors


_TOLERANCE = 1e-5
"""Relative slack of the float32 pass: rows within it of the cut-off are re-scored exactly."""


def _pool(score: np.ndarray, capped: np.ndarray | None, limit: int) -> np.ndarray:
    """Positions that can make the final list: the best ``limit`` non-capped and capped scores above 0,
    plus everything within the float32 tolerance of either cut-off (``capped`` None: no row is capped)."""
    chosen = []
    for group in (~capped, capped) if capped is not None and capped.any() else (None,):
        values = score if group is None else np.where(group, score, -np.inf)
        if values.size > limit:
            threshold = _kth_largest(values, limit)
        else:
            threshold = values.min() if values.size else 0.0
        threshold = max(float(threshold), 0.0)
        cut = threshold - _TOLERANCE * abs(threshold)
        chosen.append(np.flatnonzero((values >= cut) & (values > 0) if threshold == 0.0 else values >= cut))
    return _sorted_unique(np.concatenate(chosen))


def _kth_largest(values: np.ndarray, k: int) -> float:
    """The k-th largest of ``values`` (more than k of them): partitioned among the values near the top when at
    least k of them are there (the same number, at a fraction of the cost of partitioning all of them)."""
    high = float(values.max())
    if high > 0 and values.size > 64 * k:
        for share in (0.5, 0.1):
            top = values[values >= high * share]
            if top.size >= k:
                return float(-np.partition(-top, k - 1)[k - 1])
    return float(-np.partition(-values, k - 1)[k - 1])


def _sorted_unique(positions: np.ndarray) -> np.ndarray:
    """``np.unique`` by sort and diff: ``np.unique`` imports ``numpy.ma``, which costs a cold start ~30 ms."""
    if positions.size == 0:
        return positions
    positions = np.sort(positions)
    keep = np.empty(positions.size, dtype=bool)
    keep[0] = True
    np.not_equal(positions[1:], positions[:-1], out=keep[1:])
    return positions[keep]


def _top(score: np.ndarray, ids: np.ndarray, subset: np.ndarray, k: int) -> np.ndarray:
    """Positions (from ``subset``) of the k best scores, best first, ties by lower id."""
    order = np.lexsort((ids[subset], -score[subset]))
    return subset[order][:k]


def _select(score: np.ndarray, capped: np.ndarray, ids: np.ndarray, limit: int) -> tuple[list[int], set[int]]:
    """The final list from the exactly scored pool: best first, at most the axiom slots of capped rows
    unless too few others scored above 0 (backfill)."""
    positive = score > 0
    if not capped.any():
        return _top(score, ids, np.flatnonzero(positive), limit).tolist(), set()
    others = _top(score, ids, np.flatnonzero(positive & ~capped), limit)
    axioms = _top(score, ids, np.flatnonzero(positive & capped), limit)
    slots = axiom_slots(limit)
    merged = np.concatenate([others, axioms[:slots]])
    merged = merged[np.lexsort((ids[merged], -score[merged]))][:limit]
    backfill = axioms[slots : slots + max(0, limit - merged.size)]
    chosen = np.concatenate([merged, backfill])
    chosen = chosen[np.lexsort((ids[chosen], -score[chosen]))]
    return chosen.tolist(), set(backfill.tolist())


def _reasons(local: bool, capped: bool, query: RecallQuery, backfilled: bool) -> tuple[str, ...]:
    if query.cross_repo:
        return ("cross-repo search: no locality boost",)
    if local:
        return (f"repo match ×{LOCALITY_BOOST:g}",)
    if capped:
        slots = axiom_slots(query.limit)
        if backfilled:
            return (f"global axiom, backfilled past the cap of {slots}: few repo matches",)
        return (f"global axiom, capped at {slots} slot{'s' if slots != 1 else ''}",)
    return ("global memory",)
