"""The Legion tools: the briefing, recall of one record type and the four record tools
(:mod:`mneme_tui.operations.legion`), on the server's Legion folder."""

from __future__ import annotations

from typing import Any

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.briefing_report import briefing_report
from mneme_tui.legion.recall import KINDS, RecallFilters, recall_kind
from mneme_tui.mcp.context import Call
from mneme_tui.operations import legion as ops


def briefing(call: Call) -> Any:
    return ops.LEGION_BRIEFING.to_json(briefing_report(call.ctx.legion()))


def recall(call: Call, kind: str, query: str, limit: int | None, branch: str | None, **filters: Any) -> Any:
    chosen = RecallFilters(query=query.strip(), branch=(branch or "").strip() or "all", limit=limit, **filters)
    if kind not in KINDS:
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown record type {kind!r} (valid: {', '.join(KINDS)})")
    misapplied = chosen.misapplied(kind)
    if misapplied:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{', '.join(misapplied)} does not apply to {kind}")
    return recall_kind(call.ctx.legion(), kind, chosen).document


def record_outcome(call: Call, **fields: Any) -> Any:
    return ops.LEGION_RECORD_OUTCOME.to_json(call.ctx.legion().record_outcome(**fields))


def record_pattern(call: Call, **fields: Any) -> Any:
    return ops.LEGION_RECORD_PATTERN.to_json(call.ctx.legion().record_pattern(**fields))


def record_error(call: Call, **fields: Any) -> Any:
    return ops.LEGION_RECORD_ERROR.to_json(call.ctx.legion().record_error(**fields))


def record_preference(call: Call, **fields: Any) -> Any:
    return ops.LEGION_RECORD_PREFERENCE.to_json(call.ctx.legion().record_preference(**fields))


TOOLS = ((ops.LEGION_BRIEFING, briefing), (ops.LEGION_RECALL, recall), (ops.LEGION_RECORD_OUTCOME, record_outcome),
         (ops.LEGION_RECORD_PATTERN, record_pattern), (ops.LEGION_RECORD_ERROR, record_error),
         (ops.LEGION_RECORD_PREFERENCE, record_preference))
