"""``mneme legion recall [KIND] [QUERY] [filters]``: recall any of the four Legion record types.

KIND is ``outcomes`` (the default, so ``mneme legion recall --agent a`` works as before), ``patterns``,
``errors`` or ``preferences`` (spec §4, §8, §9, §13). Every kind takes ``--tags``, ``--branch``
(a name, ``current`` or ``all``), ``-n/--limit`` and ``--json``; a filter the kind does not have is a
usage error. Only ``errors`` takes a QUERY: the error text, matched by key terms. Preference recall
adds the preference boost of ``--agent`` and the review-verdict notes. A missing memory folder prints
nothing in text mode (spec §6) and an empty result in JSON.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mneme_tui.cli import arguments, output
from mneme_tui.legion import recall as recall_mod
from mneme_tui.legion import schemas, scoring
from mneme_tui.legion.api import LegionMemory, RecallResult
from mneme_tui.legion.records import ErrorRecord, OutcomeRecord, PatternRecord, PreferenceRecord, Record, split_tags
from mneme_tui.legion.record_files import DECISION_POINTS, SIGNALS

OUTCOMES, PATTERNS, ERRORS, PREFERENCES = "outcomes", "patterns", "errors", "preferences"
KINDS = (OUTCOMES, PATTERNS, ERRORS, PREFERENCES)
FILES = {OUTCOMES: schemas.OUTCOMES.file_name, PATTERNS: schemas.PATTERNS.file_name,
         ERRORS: schemas.ERRORS.file_name, PREFERENCES: schemas.PREFERENCES.file_name}
_KIND_WORDS = {**{kind: kind for kind in KINDS}, **{kind[:-1]: kind for kind in KINDS}}
DEFAULT_LIMITS = {
    OUTCOMES: scoring.DEFAULT_LIMIT,
    PATTERNS: recall_mod.PATTERN_LIMIT,
    ERRORS: recall_mod.ERROR_LIMIT,
    PREFERENCES: recall_mod.PREFERENCE_LIMIT,
}
#: Filters that only some kinds have: option -> (its flag, the kinds that take it).
KIND_FILTERS = {
    "agent": ("--agent", (OUTCOMES, PREFERENCES)),
    "task_type": ("--task-type", (OUTCOMES,)),
    "signal": ("--signal", (PREFERENCES,)),
    "decision_point": ("--decision-point", (PREFERENCES,)),
    "include_superseded": ("--include-superseded", (PREFERENCES,)),
}

OutcomeTable = Callable[[list[OutcomeRecord]], None]
Warn = Callable[[Iterable[str]], None]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The recall options on the ``legion recall`` parser (its ``--dir`` and ``--json`` come from the caller)."""
    parser.add_argument("words", nargs="*", metavar="[KIND] [QUERY]",
                        help=f"{' | '.join(KINDS)} (default: outcomes); for errors, the error text to match")
    parser.add_argument("--tags", type=split_tags, default=[], metavar="T,..", help="any of these tags")
    parser.add_argument("--branch", default=None, metavar="B", help="a branch name, 'current' or 'all' (default: all)")
    parser.add_argument("--agent", metavar="A", help="only this agent (outcomes, preferences)")
    parser.add_argument("--task-type", metavar="T", help="only this task type (outcomes)")
    parser.add_argument("--signal", choices=("all", *SIGNALS), help="only this signal (preferences)")
    parser.add_argument("--decision-point", choices=("all", *DECISION_POINTS),
                        help="only this decision point (preferences)")
    parser.add_argument("--include-superseded", action="store_true", default=None,
                        help="keep preferences marked (SUPERSEDED by ...) (preferences)")
    parser.add_argument("-n", "--limit", type=arguments.positive_int, default=None,
                        help="result limit (default: outcomes 20, patterns 10, errors 5, preferences 10)")
    parser.set_defaults(recall_parser=parser)


@dataclass
class RecallRequest:
    """A parsed recall command line: the record kind, the error text and the limit."""

    kind: str
    query: str
    branch: str
    limit: int


def parse_request(args: argparse.Namespace) -> RecallRequest:
    """Split KIND from QUERY and check every filter belongs to the kind (usage error, exit 2, otherwise)."""
    parser: argparse.ArgumentParser = args.recall_parser
    words = list(args.words)
    kind = OUTCOMES
    if words and words[0].strip().lower() in _KIND_WORDS:
        kind = _KIND_WORDS[words.pop(0).strip().lower()]
    query = " ".join(words).strip()
    if query and kind != ERRORS:
        parser.error(f"{output.literal(words[0])!s} is not a record type ({', '.join(KINDS)}); "
                     "only 'recall errors' takes a QUERY (the error text)")
    for name, (flag, kinds) in KIND_FILTERS.items():
        if getattr(args, name) is not None and kind not in kinds:
            parser.error(f"{flag} does not apply to {kind} (it filters {', '.join(kinds)})")
    branch = (args.branch or "").strip() or "all"
    return RecallRequest(kind, query, branch, args.limit or DEFAULT_LIMITS[kind])


def run(args: argparse.Namespace, legion: LegionMemory, *, outcome_table: OutcomeTable, warn: Warn) -> int:
    """Recall, then print one JSON document or a table (nothing at all when the folder is missing)."""
    request = parse_request(args)
    records: Sequence[Record]
    if request.kind == OUTCOMES:
        outcomes = legion.recall_outcomes(tags=args.tags, agent=args.agent, task_type=args.task_type,
                                          branch=request.branch, limit=request.limit)
        document, records, total, notes = outcomes.to_json(), outcomes.records, outcomes.total_records, [outcomes.note]
        warnings = outcomes.warnings
    else:
        result, extra = _recall_other(args, legion, request)
        document = {**result.to_json(), **extra}
        records, total, warnings = result.records, result.total_records, result.warnings
        notes = list(extra.get("notes", []))
        boost = extra.get("preference_boost")
        if boost:
            notes.insert(0, _boost_line(boost))
    if args.json:
        output.print_json(document)
        return 0
    if not legion.memory_dir.is_dir():
        return 0
    if not records:
        print(f"No matching {request.kind} ({total} records in {FILES[request.kind]}).")
    else:
        if request.kind == OUTCOMES:
            outcome_table([r for r in records if isinstance(r, OutcomeRecord)])
        else:
            _print_records(request.kind, records)
        print(f"{len(records)} of {total} records")
    for note in notes:
        if note:
            print(output.literal(note))
    warn(warnings)
    return 0


def _recall_other(args: argparse.Namespace, legion: LegionMemory,
                  request: RecallRequest) -> tuple[RecallResult, dict[str, Any]]:
    if request.kind == PATTERNS:
        return legion.recall_patterns(tags=args.tags, branch=request.branch, limit=request.limit), {}
    if request.kind == ERRORS:
        return legion.recall_errors(error_text=request.query or None, tags=args.tags, branch=request.branch,
                                    limit=request.limit), {}
    result = legion.recall_preferences(
        signal=args.signal or "all", decision_point=args.decision_point or "all", tags=args.tags, agent=args.agent,
        branch=request.branch, include_superseded=bool(args.include_superseded), limit=request.limit,
    )
    verdicts = legion.recall_preferences(decision_point=recall_mod.NOTE_DECISION_POINT, signal="corrective",
                                         limit=None)
    notes = recall_mod.preference_notes([r for r in verdicts.records if isinstance(r, PreferenceRecord)])
    boost = legion.preference_boost(args.agent).to_json() if args.agent else None
    return result, {"preference_boost": boost, "notes": notes}


def _boost_line(boost: dict[str, Any]) -> str:
    return (f"Preference boost for {boost['agent_id']}: {boost['preference_boost']:+.2f} "
            f"({boost['positive']} positive, {boost['corrective']} corrective, {boost['negative']} negative)")


def _cell(value: Any) -> Any:
    if isinstance(value, list):
        value = ", ".join(value)
    return output.text("" if value is None else str(value))


def _weight(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


_PLACE: list[tuple[str, str, Callable[[Any], Any]]] = [
    ("ID", "left", lambda r: r.id or "-"), ("Date", "left", lambda r: r.date), ("Branch", "left", lambda r: r.branch),
]
#: Text-mode columns per kind: (header, justify, value of a record).
_COLUMNS: dict[str, list[tuple[str, str, Callable[[Any], Any]]]] = {
    PATTERNS: [
        *_PLACE,
        ("Pattern", "left", lambda r: r.pattern), ("Reuse criteria", "left", lambda r: r.reuse_criteria),
        ("Source", "left", lambda r: r.source), ("Tags", "left", lambda r: r.tags),
        ("Recency", "right", lambda r: _weight(r.recency_weight)),
    ],
    ERRORS: [
        *_PLACE,
        ("Resolved", "left", lambda r: "yes" if r.resolved else "no"),
        ("Error signature", "left", lambda r: r.error_signature), ("Fix", "left", lambda r: r.fix),
        ("Agent", "left", lambda r: r.agent), ("Match", "right", lambda r: r.match_score),
    ],
    PREFERENCES: [
        *_PLACE,
        ("Decision point", "left", lambda r: r.decision_point), ("Signal", "left", lambda r: r.signal),
        ("Agent", "left", lambda r: r.agent), ("User choice", "left", lambda r: r.user_choice),
        ("Recency", "right", lambda r: _weight(r.recency_weight)),
    ],
}
_RECORD_TYPES: dict[str, type[Record]] = {PATTERNS: PatternRecord, ERRORS: ErrorRecord, PREFERENCES: PreferenceRecord}


def _print_records(kind: str, records: Sequence[Record]) -> None:
    columns = _COLUMNS[kind]
    grid = output.table(*[(header, justify) for header, justify, _ in columns])
    for record in records:
        if isinstance(record, _RECORD_TYPES[kind]):
            grid.add_row(*[_cell(value(record)) for _, _, value in columns])
    output.print_table(grid)
