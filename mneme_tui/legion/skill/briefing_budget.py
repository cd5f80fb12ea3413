"""A session briefing cut to a token budget (``mneme legion briefing --budget TOKENS``).

What a budget cuts, most important first: the recent outcomes (in the briefing's order), the top agents, then
the Claude Code MEMORY.md excerpt as one whole entry. Headings, totals, notes and (in JSON) the score tables
stay: they are the frame the budget has to hold. See ``memory.budget`` for how tokens are estimated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mneme_tui.legion.skill.briefing_report import BriefingReport
from mneme_tui.memory import budget
from mneme_tui.memory.budget import Omission

_CLAUDE_MEMORY = "claude_memory"


@dataclass(frozen=True)
class BudgetedBriefing:
    """The briefing with only the entries that fit, and what the budget left out."""

    report: BriefingReport
    omission: Omission

    def to_json(self) -> dict[str, Any]:
        return {**self.report.to_json(), "budget": self.omission.to_json()}


def within_budget(report: BriefingReport, tokens: int, render: Callable[[BudgetedBriefing], str]) -> BudgetedBriefing:
    """``report`` cut to the entries whose ``render``-ed output fits in ``tokens``."""
    briefing = report.briefing
    entries: list[tuple[str, Any]] = [("recent_outcomes", r) for r in briefing.recent_outcomes]
    entries += [("top_agents", agent) for agent in briefing.top_agents]
    if briefing.claude_memory:
        entries.append((_CLAUDE_MEMORY, briefing.claude_memory))

    def cut(kept: Sequence[tuple[str, Any]], omission: Omission) -> BudgetedBriefing:
        chosen = {
            name: [entry for section, entry in kept if section == name]
            for name in ("recent_outcomes", "top_agents", _CLAUDE_MEMORY)
        }
        smaller = replace(
            briefing,
            recent_outcomes=chosen["recent_outcomes"],
            top_agents=chosen["top_agents"],
            claude_memory="".join(chosen[_CLAUDE_MEMORY]),
        )
        return BudgetedBriefing(replace(report, briefing=smaller), omission)

    fitted = budget.fit(entries, tokens, lambda kept, omission: render(cut(kept, omission)))
    return cut(fitted.kept, fitted.omission)
