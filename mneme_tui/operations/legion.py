"""The Legion operations the MCP server exposes: the briefing, recall of the four record types and
recording an outcome, pattern, error or preference (``.planning/memory``), declared once.

It names the Legion schemas, so the CLI imports it only when the ``legion`` group is used."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mneme_tui.legion.markdown.schemas import DECISION_POINTS, OUTCOMES_VALUES, SIGNALS
from mneme_tui.legion.skill.pattern_recall import KINDS, OUTCOMES
from mneme_tui.operations.declaration import (
    BOOL,
    CLI,
    INT,
    MCP,
    REDACT_PARAM,
    TEXT,
    TEXT_LIST,
    Effect,
    Operation,
    Param,
)
from mneme_tui.operations.memory import BUDGET

if TYPE_CHECKING:
    from mneme_tui.legion.skill.record_files import StoreResult
    from mneme_tui.operations.session import Session

LEGION_BRIEFING = Operation(
    tool="legion_briefing",
    command=("legion", "briefing"),
    title="Legion session briefing",
    summary="session briefing: recent outcomes, top agents, totals",
    effect=Effect.READ,
    details="Of this project's .planning/memory, with Claude Code's MEMORY.md excerpt. A `budget` cuts the recent "
    "outcomes, then the top agents, then the excerpt.",
    params=(BUDGET,),
)

_MCP_ONLY, _CLI_ONLY = frozenset({MCP}), frozenset({CLI})
_TAGS = Param("tags", TEXT_LIST, "any of these tags", flags=("--tags",), metavar="T,..", default=(), comma_list=True)

LEGION_RECALL = Operation(
    tool="legion_recall",
    command=("legion", "recall"),
    title="Recall Legion records",
    summary="recall outcomes, patterns, errors or preferences",
    effect=Effect.READ,
    details="Task outcomes (decay-scored), patterns that worked, errors and their fixes (best match for `query` "
    "first), or user preference signals (newest first). A filter the type does not have is "
    "ERR_VALIDATION_FAILED.",
    params=(
        Param(
            "words",
            TEXT_LIST,
            f"{' | '.join(KINDS)} (default: outcomes); for errors, the error text to match",
            metavar="[KIND] [QUERY]",
            default=(),
            surfaces=_CLI_ONLY,
        ),
        Param(
            "kind", TEXT, "the record type", default=OUTCOMES, choices=KINDS, checked_by="operation", surfaces=_MCP_ONLY
        ),
        Param("query", TEXT, "errors only: the error text, matched by key terms", default="", surfaces=_MCP_ONLY),
        _TAGS,
        Param(
            "branch", TEXT, "a branch name, 'current' or 'all'", flags=("--branch",), metavar="B", default_note="all"
        ),
        Param("agent", TEXT, "only this agent (outcomes, preferences)", flags=("--agent",), metavar="A"),
        Param("task_type", TEXT, "only this task type (outcomes)", flags=("--task-type",), metavar="T"),
        Param("signal", TEXT, "only this signal (preferences)", flags=("--signal",), choices=("all", *SIGNALS)),
        Param(
            "decision_point",
            TEXT,
            "only this decision point (preferences)",
            flags=("--decision-point",),
            choices=("all", *DECISION_POINTS),
        ),
        Param(
            "include_superseded",
            BOOL,
            "keep preferences marked (SUPERSEDED by ...) (preferences)",
            flags=("--include-superseded",),
        ),
        Param(
            "limit",
            INT,
            "result limit",
            flags=("-n", "--limit"),
            minimum=1,
            default_note="outcomes 20, patterns 10, errors 5, preferences 10",
        ),
        BUDGET,
    ),
)


def _record(kind: str, summary: str, params: tuple[Param, ...], effect: Effect) -> Operation:
    common = (
        replace(_TAGS, help="tags"),
        Param("branch", TEXT, "branch", flags=("--branch",), default_note="the current git branch"),
    )

    def run(session: Session, redact: bool = False, **fields: Any) -> StoreResult:
        return getattr(session.legion(), f"record_{kind}")(**session.screened(fields, redact))

    return Operation(
        tool=f"legion_record_{kind}",
        command=("legion", "record", kind),
        title=f"Record a Legion {kind}",
        summary=summary,
        effect=effect,
        params=(*params, *common, REDACT_PARAM),
        run=run,
    )


def _agent(default: str | None = None, note: str = "") -> Param:
    return Param(
        "agent", TEXT, "agent id", flags=("--agent",), default=default, default_note=note, required=default is None
    )


LEGION_RECORD_OUTCOME = _record(
    "outcome",
    "append an outcome to OUTCOMES.md",
    effect=Effect.REPLACE,
    params=(
        _agent(),
        Param("outcome", TEXT, "how the task ended", flags=("--outcome",), choices=OUTCOMES_VALUES, required=True),
        Param("summary", TEXT, "one-line summary", flags=("--summary",), required=True),
        Param(
            "phase",
            TEXT,
            "phase number",
            flags=("--phase",),
            default="",
            default_note="the current phase in .planning/STATE.md",
        ),
        Param("plan", TEXT, "plan id, e.g. 05-01", flags=("--plan",), default=""),
        Param("task_type", TEXT, "task type", flags=("--task-type",), default_note="from CATALOG.md, else general"),
        Param("importance", INT, "1-5", flags=("--importance",), default_note="scored from the outcome"),
        Param(
            "review_escalated",
            BOOL,
            "the review escalated (importance 4)",
            flags=("--review-escalated",),
            default=False,
        ),
        Param("review_cycles", INT, "review cycles needed", flags=("--review-cycles",), default=0, minimum=0),
        Param("review_blockers", INT, "blockers the review found", flags=("--review-blockers",), default=0, minimum=0),
        Param("trivial", BOOL, "a trivial task (importance 1)", flags=("--trivial",), default=False),
        Param(
            "cross_division",
            BOOL,
            "the agent worked outside its division",
            flags=("--cross-division",),
            default_note="from CATALOG.md",
            negatable=True,
        ),
    ),
)

LEGION_RECORD_PATTERN = _record(
    "pattern",
    "append a pattern to PATTERNS.md",
    effect=Effect.ADD,
    params=(
        Param("pattern", TEXT, "what worked", flags=("--pattern",), required=True),
        Param("context", TEXT, "where it worked", flags=("--context",), default=""),
        Param("reuse_criteria", TEXT, "when to reuse it", flags=("--reuse-criteria",), default=""),
        Param("source", TEXT, "source outcome id, e.g. O-012", flags=("--source",), default=""),
    ),
)

LEGION_RECORD_ERROR = _record(
    "error",
    "record an error fix in ERRORS.md (known fixes are not duplicated)",
    effect=Effect.ADD_ONCE,
    params=(
        Param("error_signature", TEXT, "the error text", flags=("--error-signature",), required=True),
        Param("fix", TEXT, "the fix", flags=("--fix",), required=True),
        _agent(""),
        Param(
            "resolved", BOOL, "the fix did not resolve it yet", flags=("--unresolved",), default=True, negated_flag=True
        ),
    ),
)

LEGION_RECORD_PREFERENCE = _record(
    "preference",
    "append a preference signal to PREFERENCES.md",
    effect=Effect.ADD,
    params=(
        Param(
            "decision_point",
            TEXT,
            "the decision point",
            flags=("--decision-point",),
            choices=DECISION_POINTS,
            required=True,
        ),
        Param("context", TEXT, "what was being decided", flags=("--context",), required=True),
        Param("proposed", TEXT, "what the agent proposed", flags=("--proposed",), default=""),
        Param("user_choice", TEXT, "what the user chose", flags=("--user-choice",), default=""),
        Param("signal", TEXT, "the user's signal", flags=("--signal",), choices=SIGNALS, required=True),
        _agent("system", "system"),
    ),
)

LEGION_OPERATIONS = (
    LEGION_BRIEFING,
    LEGION_RECALL,
    LEGION_RECORD_OUTCOME,
    LEGION_RECORD_PATTERN,
    LEGION_RECORD_ERROR,
    LEGION_RECORD_PREFERENCE,
)
