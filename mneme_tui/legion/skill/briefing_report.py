"""The whole briefing picture, computed once for the TUI's Briefing screen and ``mneme legion briefing``:
the spec's session briefing plus agent and archetype scores, success per week, preference signals
(in all and per agent), the §13 "Previous preference signals suggest…" notes, record counts per file and
the prune threshold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from mneme_tui.legion.markdown.legion_records import OutcomeRecord, PreferenceRecord
from mneme_tui.legion.markdown.schemas import OUTCOMES
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.legion.skill.pattern_recall import preference_notes
from mneme_tui.legion.skill.scoring import AgentScore, ArchetypeScore, parse_record_date
from mneme_tui.legion.skill.session_briefing import Briefing, is_success

SIGNALS = ("positive", "corrective", "negative")
SUCCESS_WEEKS = 12
SIGNAL_AGENTS = 5


@dataclass(frozen=True)
class WeekSuccess:
    """One week (Monday to Sunday) of outcomes: how many, and the share that succeeded (None: none)."""

    start: date
    outcomes: int
    success_rate: float | None

    def to_json(self) -> dict[str, Any]:
        return {"week_start": self.start.isoformat(), "outcomes": self.outcomes, "success_rate": self.success_rate}


@dataclass(frozen=True)
class AgentSignals:
    """One agent's preference signals; ``total`` counts every signal, unknown words included."""

    agent: str
    positive: int
    corrective: int
    negative: int
    total: int

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "positive": self.positive,
            "corrective": self.corrective,
            "negative": self.negative,
            "total": self.total,
        }


@dataclass
class BriefingReport:
    """Everything the briefing shows. ``files`` holds the record count of each memory file that exists;
    without any, there is no Legion memory to show."""

    briefing: Briefing
    files: dict[str, int] = field(default_factory=dict)
    agent_scores: list[AgentScore] = field(default_factory=list)
    archetypes: list[ArchetypeScore] = field(default_factory=list)
    weekly_success: list[WeekSuccess] = field(default_factory=list)
    signals: dict[str, int] = field(default_factory=dict)  # each of SIGNALS → how often it was given
    agent_signals: list[AgentSignals] = field(default_factory=list)  # the SIGNAL_AGENTS agents with most
    latest_preference: PreferenceRecord | None = None
    prune_threshold: int = 0
    warnings: list[str] = field(default_factory=list)
    preference_notes: list[str] = field(default_factory=list)  # spec §13 approach notes (advisory)

    @property
    def present(self) -> bool:
        return bool(self.files)

    @property
    def recent_outcomes_by_date(self) -> list[OutcomeRecord]:
        """The briefing's recent outcomes newest first (by date, then ID); the briefing itself keeps the
        spec's recall order."""
        return sorted(
            self.briefing.recent_outcomes, key=lambda r: (parse_record_date(r.date) or date.min, r.id), reverse=True
        )

    @property
    def weeks_with_data(self) -> list[WeekSuccess]:
        """``weekly_success`` from the first week that has an outcome to the current week."""
        first = next((i for i, week in enumerate(self.weekly_success) if week.outcomes), len(self.weekly_success))
        return self.weekly_success[first:]

    @property
    def over_prune_threshold(self) -> bool:
        return self.briefing.total_records > self.prune_threshold

    def to_json(self) -> dict[str, Any]:
        """The spec's briefing keys, then the rest of the picture."""
        data = self.briefing.to_json()
        data.update(
            {
                "files": dict(self.files),
                "agent_scores": [score.to_json() for score in self.agent_scores],
                "archetype_scores": [score.to_json() for score in self.archetypes],
                "weekly_success": [week.to_json() for week in self.weekly_success],
                "preference_signals": dict(self.signals),
                "agent_signals": [agent.to_json() for agent in self.agent_signals],
                "latest_preference": self.latest_preference.to_json() if self.latest_preference else None,
                "prune_threshold": self.prune_threshold,
                "preference_notes": list(self.preference_notes),
            }
        )
        return data


def weekly_success(outcomes: Sequence[OutcomeRecord], today: date, weeks: int = SUCCESS_WEEKS) -> list[WeekSuccess]:
    """Outcomes and success rate of each of the last ``weeks`` weeks (the current one last); records
    without a readable date, or dated outside those weeks, are left out."""
    start = today - timedelta(days=today.weekday()) - timedelta(weeks=weeks - 1)
    totals = [0] * weeks
    wins = [0] * weeks
    for record in outcomes:
        when = parse_record_date(record.date)
        if when is None or when < start or when > today:
            continue
        week = (when - start).days // 7
        totals[week] += 1
        wins[week] += int(is_success(record))
    return [
        WeekSuccess(start + timedelta(weeks=i), totals[i], wins[i] / totals[i] if totals[i] else None)
        for i in range(weeks)
    ]


def signal_counts(
    preferences: Sequence[PreferenceRecord], top: int = SIGNAL_AGENTS
) -> tuple[dict[str, int], list[AgentSignals]]:
    """How often each of SIGNALS was given, and the ``top`` agents with most signals (then by name);
    a preference without an agent counts for ``system``."""
    totals = Counter(p.signal.strip().lower() for p in preferences)
    per_agent: dict[str, Counter[str]] = {}
    for p in preferences:
        per_agent.setdefault(p.agent or "system", Counter())[p.signal.strip().lower()] += 1
    ranked = sorted(per_agent.items(), key=lambda item: (-sum(item[1].values()), item[0]))[:top]
    agents = [
        AgentSignals(agent, c["positive"], c["corrective"], c["negative"], sum(c.values())) for agent, c in ranked
    ]
    return {signal: totals[signal] for signal in SIGNALS}, agents


def briefing_report(legion: LegionMemory) -> BriefingReport:
    """Read the Legion folder once per view and compute the whole briefing picture."""
    files = legion.read_all()
    briefing = legion.briefing()
    settings = legion.settings
    outcomes_file = files.file(OUTCOMES.file_name)
    outcomes = [r for r in (outcomes_file.records if outcomes_file else []) if isinstance(r, OutcomeRecord)]
    preferences = [r for r in legion.recall_preferences(limit=None).records if isinstance(r, PreferenceRecord)]
    signals, agent_signals = signal_counts(preferences)
    return BriefingReport(
        briefing=briefing,
        files={f.file: f.record_count for f in files.files if f.exists},
        agent_scores=legion.agent_scores(),
        archetypes=legion.archetype_scores(),
        weekly_success=weekly_success(outcomes, legion.today()),
        signals=signals,
        agent_signals=agent_signals,
        latest_preference=preferences[0] if preferences else None,
        prune_threshold=settings.prune_threshold,
        warnings=list(dict.fromkeys(files.warnings + briefing.warnings + settings.warnings)),
        preference_notes=preference_notes(preferences),
    )
