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
from typing import TYPE_CHECKING, Any

from mneme_tui.cli import arguments, output
from mneme_tui.legion.markdown.legion_records import ErrorRecord, OutcomeRecord, PatternRecord, PreferenceRecord, Record
from mneme_tui.legion.skill.pattern_recall import (
    ERRORS,
    FILES,
    KIND_FILTERS,
    KINDS,
    OUTCOMES,
    PATTERNS,
    PREFERENCES,
    RecallFilters,
)

if TYPE_CHECKING:
    from rich.text import JustifyMethod

    from mneme_tui.legion.skill.api import LegionMemory
    from mneme_tui.legion.skill.kind_recall import KindRecall

_KIND_WORDS = {**{kind: kind for kind in KINDS}, **{kind[:-1]: kind for kind in KINDS}}
_FLAGS = {
    "agent": "--agent",
    "task_type": "--task-type",
    "signal": "--signal",
    "decision_point": "--decision-point",
    "include_superseded": "--include-superseded",
}

OutcomeTable = Callable[[list[OutcomeRecord]], None]
Warn = Callable[[Iterable[str]], None]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Remember the ``legion recall`` parser: its usage errors name it (its options come from the declaration)."""
    parser.set_defaults(recall_parser=parser)
    if isinstance(parser, arguments.Parser):
        parser.words_anywhere = "words"


def parse_request(args: argparse.Namespace) -> tuple[str, RecallFilters]:
    """Split KIND from QUERY and check every filter belongs to the kind (usage error, exit 2, otherwise)."""
    parser: argparse.ArgumentParser = args.recall_parser
    words = list(args.words)
    kind = OUTCOMES
    if words and words[0].strip().lower() in _KIND_WORDS:
        kind = _KIND_WORDS[words.pop(0).strip().lower()]
    filters = RecallFilters(
        query=" ".join(words).strip(),
        tags=args.tags,
        branch=(args.branch or "").strip() or "all",
        limit=args.limit,
        agent=args.agent,
        task_type=args.task_type,
        signal=args.signal,
        decision_point=args.decision_point,
        include_superseded=args.include_superseded,
    )
    for name in filters.misapplied(kind):
        if name == "query":
            parser.error(
                f"{output.literal(words[0])!s} is not a record type ({', '.join(KINDS)}); "
                "only 'recall errors' takes a QUERY (the error text)"
            )
        parser.error(f"{_FLAGS[name]} does not apply to {kind} (it filters {', '.join(KIND_FILTERS[name])})")
    return kind, filters


def run(args: argparse.Namespace, legion: LegionMemory, *, outcome_table: OutcomeTable, warn: Warn) -> int:
    """Recall, then print one JSON document or a table (nothing at all when the folder is missing)."""
    from mneme_tui.legion.skill.kind_recall import recall_kind

    kind, filters = parse_request(args)
    found = recall_kind(legion, kind, filters)
    if args.json and args.budget is None:
        output.print_json(found.document)
        return 0
    if not args.json and not legion.has_file(FILES[kind]):  # spec §6: nothing displayed without the file
        warn(found.warnings)
        return 0
    if args.budget is not None:
        _print_within(found, args.budget, args.json, outcome_table)
    else:
        _print_found(found, found.records, outcome_table)
    if not args.json:
        warn(found.warnings)
    return 0


def _print_found(found: KindRecall, records: Sequence[Record], outcome_table: OutcomeTable) -> None:
    """The text form of ``records`` (all of ``found``'s, or those a budget kept), then its notes."""
    kind = found.kind
    if not found.records:
        print(f"No matching {kind} ({found.total_records} records in {FILES[kind]}).")
    elif records:
        if kind == OUTCOMES:
            outcome_table([r for r in records if isinstance(r, OutcomeRecord)])
        else:
            _print_records(kind, records)
        print(f"{len(records)} of {found.total_records} records")
    for note in found.notes:
        print(output.literal(note))


def _print_within(found: KindRecall, budget: int, as_json: bool, outcome_table: OutcomeTable) -> None:
    """``--budget``: the best whole records that fit; the JSON document gains a ``budget`` object."""
    from mneme_tui.cli import budget_output
    from mneme_tui.memory.budget import json_render

    def show(kept: Sequence[Record]) -> None:
        _print_found(found, kept, outcome_table)

    render = json_render(found.budgeted) if as_json else budget_output.text_render(show, "record")
    budget_output.print_within(found.records, budget, render)


def _cell(value: Any) -> Any:
    if isinstance(value, list):
        value = ", ".join(value)
    return output.text("" if value is None else str(value))


def _weight(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


_PLACE: list[tuple[str, JustifyMethod, Callable[[Any], Any]]] = [
    ("ID", "left", lambda r: r.id or "-"),
    ("Date", "left", lambda r: r.date),
    ("Branch", "left", lambda r: r.branch),
]
#: Text-mode columns per kind: (header, justify, value of a record).
_COLUMNS: dict[str, list[tuple[str, JustifyMethod, Callable[[Any], Any]]]] = {
    PATTERNS: [
        *_PLACE,
        ("Pattern", "left", lambda r: r.pattern),
        ("Reuse criteria", "left", lambda r: r.reuse_criteria),
        ("Source", "left", lambda r: r.source),
        ("Tags", "left", lambda r: r.tags),
        ("Recency", "right", lambda r: _weight(r.recency_weight)),
    ],
    ERRORS: [
        *_PLACE,
        ("Resolved", "left", lambda r: r.resolved_label()),
        ("Error signature", "left", lambda r: r.error_signature),
        ("Fix", "left", lambda r: r.fix),
        ("Agent", "left", lambda r: r.agent),
        ("Match", "right", lambda r: r.match_score),
    ],
    PREFERENCES: [
        *_PLACE,
        ("Decision point", "left", lambda r: r.decision_point),
        ("Signal", "left", lambda r: r.signal),
        ("Agent", "left", lambda r: r.agent),
        ("Context", "left", lambda r: r.context),
        ("User choice", "left", lambda r: r.user_choice),
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
