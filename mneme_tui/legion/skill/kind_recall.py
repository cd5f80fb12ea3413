"""One record type recalled through the facade, for ``mneme legion recall KIND`` and the MCP ``legion_recall``
tool alike: the records, the ``--json`` document, warnings and notes (the recall rules are in
:mod:`mneme_tui.legion.skill.pattern_recall` and :mod:`mneme_tui.legion.skill.scoring`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mneme_tui.legion.markdown.legion_records import PreferenceRecord, Record
from mneme_tui.legion.skill.pattern_recall import (
    DEFAULT_LIMITS,
    ERRORS,
    NOTE_DECISION_POINT,
    OUTCOMES,
    PATTERNS,
    RecallFilters,
    preference_notes,
)

if TYPE_CHECKING:
    from mneme_tui.legion.skill.api import LegionMemory
    from mneme_tui.memory.budget import Omission


@dataclass
class KindRecall:
    """Recalled records of one type: the ``--json`` document, the records, their total, warnings and notes."""

    kind: str
    document: dict[str, Any]
    records: Sequence[Record]
    total_records: int
    warnings: list[str]
    notes: list[str]

    def budgeted(self, kept: Sequence[Record], omission: Omission) -> dict[str, Any]:
        """The JSON document with only the ``kept`` records and a ``budget`` object (``--budget``)."""
        return {**self.document, "records": [record.to_json() for record in kept], "budget": omission.to_json()}


def recall_kind(legion: LegionMemory, kind: str, filters: RecallFilters) -> KindRecall:
    """Recall ``kind`` (one of :data:`KINDS`) with ``filters``: what ``mneme legion recall KIND --json`` prints
    and the MCP ``legion_recall`` tool returns. Patterns and errors add nothing to the records; preferences add
    ``preference_boost`` (for ``agent``) and the review-verdict ``notes``."""
    limit = filters.limit or DEFAULT_LIMITS[kind]
    if kind == OUTCOMES:
        outcomes = legion.recall_outcomes(
            tags=filters.tags, agent=filters.agent, task_type=filters.task_type, branch=filters.branch, limit=limit
        )
        return KindRecall(
            kind,
            outcomes.to_json(),
            outcomes.records,
            outcomes.total_records,
            outcomes.warnings,
            [outcomes.note] if outcomes.note else [],
        )
    extra: dict[str, Any] = {}
    notes: list[str] = []
    if kind == PATTERNS:
        result = legion.recall_patterns(tags=filters.tags, branch=filters.branch, limit=limit)
    elif kind == ERRORS:
        result = legion.recall_errors(
            error_text=filters.query or None, tags=filters.tags, branch=filters.branch, limit=limit
        )
    else:
        result = legion.recall_preferences(
            signal=filters.signal or "all",
            decision_point=filters.decision_point or "all",
            tags=filters.tags,
            agent=filters.agent,
            branch=filters.branch,
            include_superseded=bool(filters.include_superseded),
            limit=limit,
        )
        verdicts = legion.recall_preferences(decision_point=NOTE_DECISION_POINT, signal="corrective", limit=None)
        notes = preference_notes([r for r in verdicts.records if isinstance(r, PreferenceRecord)])
        boost = legion.preference_boost(filters.agent) if filters.agent else None
        extra = {"preference_boost": boost.to_json() if boost else None, "notes": notes}
        if boost:
            notes = [boost.line(), *notes]
    return KindRecall(kind, {**result.to_json(), **extra}, result.records, result.total_records, result.warnings, notes)
