"""The Legion tools whose work is the server's own: the briefing and recall of one record type
(:mod:`mneme_tui.operations.legion`; the record tools run their declared operation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.briefing_report import briefing_report
from mneme_tui.legion.recall import KINDS, RecallFilters, recall_kind
from mneme_tui.mcp.context import Call
from mneme_tui.operations import legion as ops


def briefing(call: Call) -> Any:
    return briefing_report(call.ctx.legion()).to_json()


def recall(call: Call, kind: str, query: str, limit: int | None, branch: str | None, **filters: Any) -> Any:
    chosen = RecallFilters(query=query.strip(), branch=(branch or "").strip() or "all", limit=limit, **filters)
    if kind not in KINDS:
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown record type {kind!r} (valid: {', '.join(KINDS)})")
    misapplied = chosen.misapplied(kind)
    if misapplied:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{', '.join(misapplied)} does not apply to {kind}")
    return recall_kind(call.ctx.legion(), kind, chosen).document


WORK: dict[str, Callable[..., Any]] = {ops.LEGION_BRIEFING.tool: briefing, ops.LEGION_RECALL.tool: recall}
"""The tools whose CLI commands read otherwise (``legion recall [KIND] [QUERY]`` as words)."""
