"""The Legion tools whose work is the server's own: the briefing and recall of one record type
(:mod:`mneme_tui.operations.legion`; the record tools run their declared operation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mneme_tui.display import compact_json
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.skill.briefing_budget import within_budget
from mneme_tui.legion.skill.briefing_report import briefing_report
from mneme_tui.legion.skill.kind_recall import recall_kind
from mneme_tui.legion.skill.pattern_recall import KINDS, RecallFilters
from mneme_tui.mcp.context import Call
from mneme_tui.memory.budget import fit_json
from mneme_tui.operations import legion as ops


def briefing(call: Call, budget: int | None) -> Any:
    report = briefing_report(call.ctx.legion())
    if budget is None:
        return report.to_json()
    return within_budget(report, budget, lambda cut: compact_json(cut.to_json())).to_json()


def recall(
    call: Call, kind: str, query: str, limit: int | None, branch: str | None, budget: int | None, **filters: Any
) -> Any:
    chosen = RecallFilters(query=query.strip(), branch=(branch or "").strip() or "all", limit=limit, **filters)
    if kind not in KINDS:
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown record type {kind!r} (valid: {', '.join(KINDS)})")
    misapplied = chosen.misapplied(kind)
    if misapplied:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{', '.join(misapplied)} does not apply to {kind}")
    found = recall_kind(call.ctx.legion(), kind, chosen)
    return found.document if budget is None else fit_json(found.records, budget, found.budgeted, compact_json)


WORK: dict[str, Callable[..., Any]] = {ops.LEGION_BRIEFING.tool: briefing, ops.LEGION_RECALL.tool: recall}
"""The tools whose CLI commands read otherwise (``legion recall [KIND] [QUERY]`` as words)."""
