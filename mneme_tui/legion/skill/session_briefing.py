"""Session briefing (spec §4 "Recall Session Briefing"): recent outcomes, top agents, totals.

- ``recent_outcomes``: general recall with limit 5 and no filters;
- ``top_agents``: every outcome grouped by agent (comma lists count for each agent), sorted by total
  tasks (then success rate, then name), top 3;
- ``claude_memory``: a short read-only excerpt of Claude Code's MEMORY.md when it exists (spec §14).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from mneme_tui.legion.markdown.legion_records import OutcomeRecord, split_tags
from mneme_tui.legion.skill.scoring import recall_outcomes

RECENT_LIMIT = 5
TOP_AGENTS = 3


@dataclass
class AgentSummary:
    agent_id: str
    total_tasks: int
    success_rate: float
    avg_importance: float


@dataclass
class Briefing:
    recent_outcomes: list[OutcomeRecord] = field(default_factory=list)
    top_agents: list[AgentSummary] = field(default_factory=list)
    total_records: int = 0
    note: str = ""
    claude_memory: str = ""
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["recent_outcomes"] = [r.to_json() for r in self.recent_outcomes]
        return data


def is_success(record: OutcomeRecord) -> bool:
    """The outcome counts as a success (``success``, any case, spaces ignored)."""
    return record.outcome.strip().lower() == "success"


def top_agents(records: Sequence[OutcomeRecord], limit: int = TOP_AGENTS) -> list[AgentSummary]:
    groups: dict[str, list[OutcomeRecord]] = defaultdict(list)
    for record in records:
        for agent in split_tags(record.agent) or [record.agent.strip()]:
            groups[agent].append(record)
    summaries = [
        AgentSummary(
            agent,
            len(items),
            sum(1 for r in items if is_success(r)) / len(items),
            sum(r.importance for r in items) / len(items),
        )
        for agent, items in groups.items()
    ]
    summaries.sort(key=lambda s: (-s.total_tasks, -s.success_rate, s.agent_id))
    return summaries[:limit]


def build_briefing(records: Sequence[OutcomeRecord], today: date, claude_memory: str = "") -> Briefing:
    recall = recall_outcomes(records, today, limit=RECENT_LIMIT)
    return Briefing(recall.records, top_agents(records), len(records), recall.note, claude_memory)
