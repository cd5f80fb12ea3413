"""Recall-time scoring of outcomes (spec §4-5): recency tiers, decay, filters, agent and archetype scores.

- ``recency_weight``: days old <= 7 -> 1.0, <= 30 -> 0.7, <= 90 -> 0.4, older -> 0.1;
  an unparseable date -> 0.4 (never excluded for that reason).
- ``decay_score = importance x recency_weight``; recall drops records below 0.2.
- Agent and Task Type cells may hold comma lists (``a, b``): a filter matches any item, and agent /
  archetype grouping counts the record once for each listed agent / task type.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Any

from mneme_tui.legion.markdown.legion_records import OutcomeRecord, Record, split_tags

EXCLUDE_BELOW = 0.2
DEFAULT_LIMIT = 20
MATCH_TAGS = "tags"
MATCH_EITHER = "either"
AGENT_MATCHES = (MATCH_TAGS, MATCH_EITHER)
"""What ``--task-types`` matches for agent scores: Tags (the skill, §4), or Tags or the Task Type column."""
NOTE_THRESHOLD = 200
UNPARSEABLE_DATE_WEIGHT = 0.4
_DATE = re.compile(r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})")


def parse_record_date(text: str) -> date | None:
    """The ``YYYY-MM-DD`` at the start of ``text`` (time parts ignored), or None."""
    match = _DATE.match(text or "")
    if not match:
        return None
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


def recency_weight(date_text: str, today: date) -> float:
    """The spec's recency tier for a record date (0.4 when the date cannot be parsed)."""
    when = parse_record_date(date_text)
    if when is None:
        return UNPARSEABLE_DATE_WEIGHT
    days_old = (today - when).days
    if days_old <= 7:
        return 1.0
    if days_old <= 30:
        return 0.7
    if days_old <= 90:
        return 0.4
    return 0.1


def decay_score(importance: int, weight: float) -> float:
    return round(importance * weight, 10)


def with_scores(record: OutcomeRecord, today: date) -> OutcomeRecord:
    """A copy of ``record`` carrying its ``recency_weight`` and ``decay_score``."""
    weight = recency_weight(record.date, today)
    return replace(record, recency_weight=weight, decay_score=decay_score(record.importance, weight))


def list_matches(cell: str, wanted: str) -> bool:
    """``wanted`` equals the cell or one item of a comma-listed cell (case-insensitive)."""
    wanted = wanted.strip().lower()
    return cell.strip().lower() == wanted or wanted in {item.lower() for item in split_tags(cell)}


def first_time(records: Iterable[Record], agent: str, task_type: str) -> bool:
    """Spec §2 "First time an agent handles this task type": some listed agent / task type pair is new.

    Agent and Task Type cells may be comma lists; an earlier ``implementation, testing`` row counts as
    having handled ``implementation`` (and ``testing``).
    """
    seen = {
        (a.lower(), t.lower())
        for r in records
        if isinstance(r, OutcomeRecord)
        for a in _items(r.agent)
        for t in _items(r.task_type)
    }
    return any((a.lower(), t.lower()) not in seen for a in _items(agent) for t in _items(task_type))


def _items(cell: str) -> list[str]:
    return split_tags(cell) or [cell.strip()]


def tags_match(record: Record, query_tags: Iterable[str]) -> bool:
    wanted = {tag.strip().lower() for tag in query_tags if tag.strip()}
    return bool(wanted & {tag.lower() for tag in record.tags})


def recency_sort_key(record: Record, score: float) -> tuple[float, int, int]:
    """Highest score first, then the newest date, then the later position in the file."""
    when = parse_record_date(record.date)
    return (-score, -(when.toordinal() if when else 0), -record.line)


def pruning_note(count: int) -> str:
    """The spec's informational note once OUTCOMES.md holds more than 200 records."""
    if count <= NOTE_THRESHOLD:
        return ""
    return (
        f"OUTCOMES.md has {count} records. Run `/legion:learn --prune` to archive old entries, "
        "or enable `memory.auto_prune` in settings.json."
    )


@dataclass
class OutcomeRecall:
    """Recalled outcomes (scored, sorted, limited) plus the total and the 200-record note."""

    records: list[OutcomeRecord] = field(default_factory=list)
    total_records: int = 0
    note: str = ""
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["records"] = [record.to_json() for record in self.records]
        return data


def recall_outcomes(
    records: Sequence[OutcomeRecord],
    today: date,
    *,
    tags: Iterable[str] | None = None,
    agent: str | None = None,
    task_type: str | None = None,
    branch: str | None = None,
    limit: int | None = DEFAULT_LIMIT,
) -> OutcomeRecall:
    """Spec §4 general recall: AND-combined filters, decay, exclusion below 0.2, sort, limit."""
    tag_list = [t for t in (tags or []) if t.strip()]
    kept: list[OutcomeRecord] = []
    for record in records:
        if tag_list and not tags_match(record, tag_list):
            continue
        if agent and not list_matches(record.agent, agent):
            continue
        if task_type and not list_matches(record.task_type, task_type):
            continue
        if branch and branch != "all" and record.branch != branch:
            continue
        scored = with_scores(record, today)
        if (scored.decay_score or 0.0) < EXCLUDE_BELOW:
            continue
        kept.append(scored)
    kept.sort(key=lambda r: recency_sort_key(r, r.decay_score or 0.0))
    if limit is not None:
        kept = kept[: max(0, limit)]
    return OutcomeRecall(kept, len(records), pruning_note(len(records)))


@dataclass
class AgentScore:
    """Spec §4 "Recall Agent Scores" for one agent."""

    agent_id: str
    total_tasks: int
    successes: int
    failures: int
    success_rate: float
    avg_importance: float
    avg_recency_weight: float
    memory_score: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _agents(record: OutcomeRecord) -> list[str]:
    return _items(record.agent)


def agent_scores(
    records: Sequence[OutcomeRecord], today: date, task_types: Iterable[str] = (), *, match: str = MATCH_TAGS
) -> list[AgentScore]:
    """``memory_score = (success_rate*3 + avg_importance*0.5) * avg_recency_weight``, clamped to [0, 5].

    Records match when one of ``task_types`` is among their Tags (spec §4: "general recall with
    query_tags = task_types"), or with ``match="either"`` among their Tags or their Task Type column
    (all records when none are given); records below the 0.2 decay floor are dropped; agents need >= 2
    records.
    """
    wanted = [t for t in task_types if t.strip()]
    by_task_type = match == MATCH_EITHER
    groups: dict[str, list[OutcomeRecord]] = defaultdict(list)
    for record in records:
        if wanted and not (
            tags_match(record, wanted) or (by_task_type and any(list_matches(record.task_type, t) for t in wanted))
        ):
            continue
        scored = with_scores(record, today)
        if (scored.decay_score or 0.0) < EXCLUDE_BELOW:
            continue
        for agent in _agents(scored):
            groups[agent].append(scored)
    scores: list[AgentScore] = []
    for agent, items in groups.items():
        total = len(items)
        if total < 2:
            continue
        successes = sum(1 for r in items if r.outcome.strip().lower() == "success")
        failures = sum(1 for r in items if r.outcome.strip().lower() == "failed")
        success_rate = successes / total
        avg_importance = sum(r.importance for r in items) / total
        avg_recency = sum(r.recency_weight or 0.0 for r in items) / total
        score = (success_rate * 3.0 + avg_importance * 0.5) * avg_recency
        scores.append(
            AgentScore(
                agent, total, successes, failures, success_rate, avg_importance, avg_recency, min(5.0, max(0.0, score))
            )
        )
    scores.sort(key=lambda s: (-s.memory_score, -s.total_tasks, s.agent_id))
    return scores


@dataclass
class ArchetypeScore:
    """Spec §4 "Recall Archetype Scores" for one task type."""

    task_type: str
    agents: list[str]
    success_rate: float
    total_outcomes: int
    successes: int
    avg_importance: float
    top_agent: str | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def archetype_scores(
    records: Sequence[OutcomeRecord], today: date, task_types: Iterable[str] = ()
) -> list[ArchetypeScore]:
    """Outcomes grouped by Task Type; ``top_agent`` = best success rate among agents with >= 2 outcomes."""
    wanted = {t.strip().lower() for t in task_types if t.strip()}
    groups: dict[str, list[OutcomeRecord]] = defaultdict(list)
    for record in records:
        types = _items(record.task_type)
        if wanted and not wanted & {t.lower() for t in types}:
            continue
        scored = with_scores(record, today)
        if (scored.decay_score or 0.0) < EXCLUDE_BELOW:
            continue
        for task_type in types:
            if not wanted or task_type.lower() in wanted:
                groups[task_type].append(scored)
    result: list[ArchetypeScore] = []
    for task_type, items in groups.items():
        total = len(items)
        successes = sum(1 for r in items if r.outcome.strip().lower() == "success")
        per_agent: dict[str, list[OutcomeRecord]] = defaultdict(list)
        for record in items:
            for agent in _agents(record):
                per_agent[agent].append(record)
        ranked = sorted(
            (
                (sum(1 for r in rs if r.outcome.strip().lower() == "success") / len(rs), len(rs), agent)
                for agent, rs in per_agent.items()
                if len(rs) >= 2
            ),
            key=lambda t: (-t[0], -t[1], t[2]),
        )
        result.append(
            ArchetypeScore(
                task_type=task_type,
                agents=list(per_agent),
                success_rate=successes / total,
                total_outcomes=total,
                successes=successes,
                avg_importance=sum(r.importance for r in items) / total,
                top_agent=ranked[0][2] if ranked else None,
            )
        )
    result.sort(key=lambda a: (-a.total_outcomes, a.task_type))
    return result
