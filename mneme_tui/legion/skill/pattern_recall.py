"""Recall of patterns, errors and preferences (spec §8, §9, §13) and the preference boost.

- Patterns: tag and branch filters, sorted by recency weight only (no importance), limit 10.
- Errors: with ``error_text``, entries sharing no key term are dropped; resolved fixes rank first,
  then by key-term overlap, then by recency; limit 5.
- Preferences: signal / decision-point / tags / agent / branch filters (AND), recency sort, limit 10;
  entries marked ``(SUPERSEDED by X)`` are left out unless ``include_superseded``.
- Preference boost per agent: positive +1, corrective +0.5, negative -1; ``boost = sum x 0.5``.
- Preference notes: corrective ``review-verdict`` signals that cluster (>= 2) on one tag give
  "Previous preference signals suggest {latest user choice} for {tag}" (advisory only).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Any

from mneme_tui.legion.markdown import schemas
from mneme_tui.legion.markdown.legion_records import ErrorRecord, PatternRecord, PreferenceRecord
from mneme_tui.legion.skill.errormatch import key_terms
from mneme_tui.legion.skill.scoring import (
    DEFAULT_LIMIT,
    list_matches,
    parse_record_date,
    recency_sort_key,
    recency_weight,
    tags_match,
)

PATTERN_LIMIT = 10
ERROR_LIMIT = 5
PREFERENCE_LIMIT = 10
SIGNAL_POINTS = {"positive": 1.0, "corrective": 0.5, "negative": -1.0}
NOTE_DECISION_POINT = "review-verdict"
NOTE_MIN_SIGNALS = 2
NOTE_LIMIT = 3

OUTCOMES, PATTERNS, ERRORS, PREFERENCES = "outcomes", "patterns", "errors", "preferences"
#: The four record types ``mneme legion recall KIND`` and the MCP ``legion_recall`` tool take.
KINDS = (OUTCOMES, PATTERNS, ERRORS, PREFERENCES)
FILES = {
    OUTCOMES: schemas.OUTCOMES.file_name,
    PATTERNS: schemas.PATTERNS.file_name,
    ERRORS: schemas.ERRORS.file_name,
    PREFERENCES: schemas.PREFERENCES.file_name,
}
DEFAULT_LIMITS = {OUTCOMES: DEFAULT_LIMIT, PATTERNS: PATTERN_LIMIT, ERRORS: ERROR_LIMIT, PREFERENCES: PREFERENCE_LIMIT}
#: Filters that only some kinds have: filter name -> the kinds that take it.
KIND_FILTERS = {
    "agent": (OUTCOMES, PREFERENCES),
    "task_type": (OUTCOMES,),
    "signal": (PREFERENCES,),
    "decision_point": (PREFERENCES,),
    "include_superseded": (PREFERENCES,),
}


def _branch_ok(branch_value: str, branch: str | None) -> bool:
    return not branch or branch == "all" or branch_value == branch


def recall_patterns(
    records: Sequence[PatternRecord],
    today: date,
    *,
    tags: Iterable[str] | None = None,
    branch: str | None = None,
    limit: int | None = PATTERN_LIMIT,
) -> list[PatternRecord]:
    tag_list = [t for t in (tags or []) if t.strip()]
    kept = [
        replace(r, recency_weight=recency_weight(r.date, today))
        for r in records
        if (not tag_list or tags_match(r, tag_list)) and _branch_ok(r.branch, branch)
    ]
    kept.sort(key=lambda r: recency_sort_key(r, r.recency_weight or 0.0))
    return kept if limit is None else kept[: max(0, limit)]


def recall_errors(
    records: Sequence[ErrorRecord],
    *,
    error_text: str | None = None,
    tags: Iterable[str] | None = None,
    branch: str | None = None,
    limit: int | None = ERROR_LIMIT,
) -> list[ErrorRecord]:
    tag_list = [t for t in (tags or []) if t.strip()]
    wanted = key_terms(error_text) if error_text else set()
    kept: list[ErrorRecord] = []
    for record in records:
        if tag_list and not tags_match(record, tag_list):
            continue
        if not _branch_ok(record.branch, branch):
            continue
        score = len(wanted & key_terms(record.error_signature)) if error_text else 0
        if error_text and score == 0:
            continue
        kept.append(replace(record, match_score=score))

    def order(record: ErrorRecord) -> tuple[int, int, int, int]:
        when = parse_record_date(record.date)
        return (
            0 if record.resolved else 1,
            -(record.match_score or 0),
            -(when.toordinal() if when else 0),
            -record.line,
        )

    kept.sort(key=order)
    return kept if limit is None else kept[: max(0, limit)]


def recall_preferences(
    records: Sequence[PreferenceRecord],
    today: date,
    *,
    signal: str | None = "all",
    decision_point: str | None = "all",
    tags: Iterable[str] | None = None,
    agent: str | None = None,
    branch: str | None = None,
    include_superseded: bool = False,
    limit: int | None = PREFERENCE_LIMIT,
) -> list[PreferenceRecord]:
    tag_list = [t for t in (tags or []) if t.strip()]
    kept: list[PreferenceRecord] = []
    for record in records:
        if record.superseded_by and not include_superseded:
            continue
        if signal and signal != "all" and record.signal.strip().lower() != signal.lower():
            continue
        if decision_point and decision_point != "all" and record.decision_point.strip() != decision_point:
            continue
        if tag_list and not tags_match(record, tag_list):
            continue
        if agent and not list_matches(record.agent, agent):
            continue
        if not _branch_ok(record.branch, branch):
            continue
        kept.append(replace(record, recency_weight=recency_weight(record.date, today)))
    kept.sort(key=lambda r: recency_sort_key(r, r.recency_weight or 0.0))
    return kept if limit is None else kept[: max(0, limit)]


@dataclass
class PreferenceBoost:
    """Spec §13 preference score of one agent and the boost it adds to a recommendation."""

    agent_id: str
    positive: int
    corrective: int
    negative: int
    preference_score: float
    preference_boost: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """One line for text output."""
        return (
            f"Preference boost for {self.agent_id}: {self.preference_boost:+.2f} "
            f"({self.positive} positive, {self.corrective} corrective, {self.negative} negative)"
        )


def preference_boost(records: Sequence[PreferenceRecord], agent: str) -> PreferenceBoost:
    counts = {"positive": 0, "corrective": 0, "negative": 0}
    for record in records:
        if record.superseded_by or not list_matches(record.agent, agent):
            continue
        signal = record.signal.strip().lower()
        if signal in counts:
            counts[signal] += 1
    score = sum(SIGNAL_POINTS[name] * count for name, count in counts.items())
    return PreferenceBoost(agent, counts["positive"], counts["corrective"], counts["negative"], score, score * 0.5)


def preference_notes(records: Sequence[PreferenceRecord]) -> list[str]:
    """Spec §13 approach suggestion: one note per tag on which corrective review verdicts cluster.

    Live ``review-verdict`` records with a ``corrective`` signal are grouped by tag; a tag with at
    least two of them gives "Previous preference signals suggest {pattern} for {tag}", where the
    pattern is the newest such record's User Choice. Most signals first, then by tag; at most three.
    """
    groups: dict[str, list[PreferenceRecord]] = {}
    for record in records:
        if record.superseded_by or record.decision_point.strip() != NOTE_DECISION_POINT:
            continue
        if record.signal.strip().lower() != "corrective":
            continue
        for tag in dict.fromkeys(t.lower() for t in record.tags):
            groups.setdefault(tag, []).append(record)
    clusters = sorted(
        ((tag, items) for tag, items in groups.items() if len(items) >= NOTE_MIN_SIGNALS),
        key=lambda pair: (-len(pair[1]), pair[0]),
    )
    notes = []
    for tag, items in clusters[:NOTE_LIMIT]:
        newest = min(items, key=lambda r: recency_sort_key(r, 0.0))
        choice = " ".join((newest.user_choice or newest.context).split())
        notes.append(
            f"Previous preference signals suggest {choice!r} for {tag} "
            f"({len(items)} corrective {NOTE_DECISION_POINT} signals)"
        )
    return notes


@dataclass
class RecallFilters:
    """What a recall of one record type asks for; ``None`` is a filter not given."""

    query: str = ""
    tags: list[str] = field(default_factory=list)
    branch: str = "all"
    limit: int | None = None
    agent: str | None = None
    task_type: str | None = None
    signal: str | None = None
    decision_point: str | None = None
    include_superseded: bool | None = None

    def misapplied(self, kind: str) -> list[str]:
        """The given filters that ``kind`` does not have (``query`` belongs to errors only)."""
        names = [name for name, kinds in KIND_FILTERS.items() if getattr(self, name) is not None and kind not in kinds]
        return (["query"] if self.query and kind != ERRORS else []) + names
