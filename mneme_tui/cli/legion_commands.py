"""``mneme legion ...``: the Legion markdown memory (``.planning/memory/*.md``) on the command line.

Actions: ``sync`` (mirror the files into the store and export store-side memories to them), ``recall``,
``briefing``, ``agents``, ``record``, ``prune`` and ``compact``. The work is done by
:mod:`mneme_tui.legion` (``LegionMemory`` and ``legion.sync``); this module parses and prints.
The memory folder is ``--dir`` > ``MNEME_LEGION_DIR`` > ``.planning/memory`` under the enclosing git work
tree (or the current folder).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mneme_tui import config, display
from mneme_tui.cli import arguments, declared, output
from mneme_tui.errors import ERR_NOT_FOUND, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.validation import is_folder, user_path

if TYPE_CHECKING:  # the Legion API is imported by the handlers that use it: `mneme recall` never loads it
    from mneme_tui.legion.markdown.legion_records import OutcomeRecord, Record
    from mneme_tui.legion.skill.api import LegionMemory
    from mneme_tui.legion.skill.briefing_report import BriefingReport
    from mneme_tui.legion.skill.gitbranch import BranchProvider

BRANCH_PROVIDER: BranchProvider | None = None
"""Replaces ``git branch --show-current`` (tests set it; None = ask git)."""


# ------------------------------------------------------------------------------ parser
def register(sub: argparse._SubParsersAction) -> None:
    arguments.add_deferred_command(
        sub,
        "legion",
        "Legion markdown memory (.planning/memory): sync, recall, briefing, agents, record, prune",
        "Work with a Legion project's .planning/memory files and mirror them into the store.",
        _add_actions,
    )


def _add_actions(legion: argparse.ArgumentParser) -> None:
    """The ``legion`` actions, added when ``legion`` is used: their options need the Legion modules."""
    from mneme_tui.cli import legion_recall_command
    from mneme_tui.operations.legion import LEGION_BRIEFING, LEGION_RECALL

    arguments.add_common_options(legion)
    actions = legion.add_subparsers(
        dest="legion_command", metavar="ACTION", parser_class=arguments.Parser, required=True
    )

    sync = arguments.add_command(
        actions, "sync", "import the memory files into the store and export store-side memories"
    )
    _dir_option(sync)
    sync.add_argument("-p", "--project", metavar="REPO", help="repository to mirror into (default: the active repo)")
    sync.set_defaults(func=cmd_sync)

    recall = declared.add_operation(actions, LEGION_RECALL, context=_dir_option)
    legion_recall_command.add_arguments(recall)
    recall.set_defaults(func=cmd_recall)

    briefing = declared.add_operation(actions, LEGION_BRIEFING, context=_dir_option)
    briefing.set_defaults(func=cmd_briefing)

    _add_agents_action(actions)

    record = actions.add_parser(
        "record",
        help="append an outcome, pattern, error or preference record",
        description="Append a record to its memory file (validated; nothing half-written).",
    )
    arguments.add_common_options(record)
    kinds = record.add_subparsers(dest="record_kind", metavar="KIND", parser_class=arguments.Parser, required=True)
    _record_parsers(kinds)

    prune = arguments.add_command(actions, "prune", "preview (or --apply) archiving old, low-importance outcomes")
    _dir_option(prune)
    prune.add_argument("--apply", action="store_true", help="move the candidates to ARCHIVE.md")
    prune.set_defaults(func=cmd_prune)

    compact = arguments.add_command(
        actions, "compact", "write NN-COMPACTED.md for a phase folder (originals untouched)"
    )
    compact.add_argument("phase_dir", metavar="PHASE_DIR", help="a .planning/phases/NN-name folder")
    compact.set_defaults(func=cmd_compact)


def _add_agents_action(actions: argparse._SubParsersAction) -> None:
    """``legion agents``: agent scores and archetype scores, with the task-type filter and what it matches."""
    agents = arguments.add_command(actions, "agents", "agent scores and archetype (task type) scores")
    _dir_option(agents)
    agents.add_argument(
        "--task-types",
        type=_list,
        default=[],
        metavar="T,..",
        help="only these task types (agent scores match Tags, as the skill says; see --match)",
    )
    agents.add_argument(
        "--match",
        choices=("tags", "either"),
        default="tags",
        help="what --task-types matches for agent scores: tags (the skill, §4; default) or either "
        "tags or the Task Type column (task-type scores always use the Task Type column)",
    )
    agents.set_defaults(func=cmd_agents)


def _record_parsers(kinds: argparse._SubParsersAction) -> None:
    from mneme_tui.operations.legion import (
        LEGION_RECORD_ERROR,
        LEGION_RECORD_OUTCOME,
        LEGION_RECORD_PATTERN,
        LEGION_RECORD_PREFERENCE,
    )

    for operation in (LEGION_RECORD_OUTCOME, LEGION_RECORD_PATTERN, LEGION_RECORD_ERROR, LEGION_RECORD_PREFERENCE):
        parser = declared.add_operation(kinds, operation, context=_dir_option)
        parser.set_defaults(func=cmd_record, operation=operation)


def _dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help="memory folder (default: $MNEME_LEGION_DIR or .planning/memory in the git work tree)",
    )


def _list(raw: str) -> list[str]:
    from mneme_tui.legion.markdown.legion_records import split_tags

    return split_tags(raw)


# ----------------------------------------------------------------------------- helpers
def _legion(args: argparse.Namespace) -> LegionMemory:
    from mneme_tui.legion.mirror.sync import resolve_memory_dir
    from mneme_tui.legion.skill.api import LegionMemory

    folder = resolve_memory_dir(getattr(args, "dir", None))
    if not is_folder(folder, "the memory folder") and folder.exists():
        raise MnemeError(ERR_VALIDATION_FAILED, f"{output.literal(str(folder))} is not a folder")
    return LegionMemory(folder, branch_provider=BRANCH_PROVIDER)


def _no_folder(legion: LegionMemory) -> str:
    return f"No Legion memory folder at {output.literal(str(legion.memory_dir))}; nothing recorded yet."


def _warn(warnings: Iterable[str]) -> None:
    for warning in dict.fromkeys(warnings):
        text = output.literal(warning)
        print(text if text.lower().startswith("warning") else f"warning: {text}", file=sys.stderr)


def _cell(value: Any) -> Any:
    return output.text("" if value is None else str(value))


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def _outcome_table(records: list[OutcomeRecord]) -> None:
    table = output.table(
        ("ID", "left"),
        ("Date", "left"),
        ("Branch", "left"),
        ("Agent", "left"),
        ("Task type", "left"),
        ("Outcome", "left"),
        ("Imp", "right"),
        ("Decay", "right"),
        ("Summary", "left"),
    )
    for r in records:
        table.add_row(
            _cell(r.id or "-"),
            _cell(r.date),
            _cell(r.branch),
            _cell(r.agent),
            _cell(r.task_type),
            _cell(r.outcome),
            str(r.importance),
            _score(r.decay_score),
            _cell(r.summary),
        )
    output.print_table(table)


# ------------------------------------------------------------------------------- sync
def cmd_sync(args: argparse.Namespace) -> int:
    from mneme_tui.legion.mirror.sync import sync
    from mneme_tui.legion.mirror.sync_report import SyncReport

    legion = _legion(args)
    project = config.resolve_repo(args.project, start=legion.project_root)
    if legion.memory_dir.is_dir():
        report = sync(arguments.open_store(args, create=True), legion, project)
    else:  # nothing to do: do not even create the database
        report = SyncReport(
            project, str(legion.memory_dir), message=f"No Legion memory folder at {legion.memory_dir}; nothing to sync."
        )
    if not report.synced:
        if args.json:
            output.print_json(report.to_json())
        else:
            print(output.literal(report.message))
        return 0
    if args.json:
        output.print_json(report.to_json())
        return 0
    print(f"Synced {output.literal(report.memory_dir)} with project {output.literal(project)}: {report.message}")
    for entry in report.files:
        name = output.literal(entry.file)
        if entry.skipped:
            print(f"  {name}: skipped, the file did not parse (left as is)")
            continue
        line = (
            f"  {name}{'' if entry.exists else ' (gone)'}: {entry.records} records: {entry.added} added, "
            f"{entry.updated} updated, {entry.unchanged} unchanged"
        )
        extras = [
            f"{entry.removed} removed" if entry.removed else "",
            f"{entry.exported} exported" if entry.exported else "",
            f"{display.counted(entry.not_imported, 'block')} not imported" if entry.not_imported else "",
        ]
        print("; ".join([line, *[e for e in extras if e]]))
    for export in report.exports:
        if export.action == "failed":
            print(f"not exported: memory {export.memory_id} ({export.kind}): {output.literal(export.message)}")
        elif export.action == "merged":
            print(
                f"merged: memory {export.memory_id} ({export.kind}) into {export.file} "
                f"{output.literal(export.record_id)}: {output.literal(export.message)}"
            )
    _warn(report.warnings)
    return 0


# ----------------------------------------------------------------------------- recall
def cmd_recall(args: argparse.Namespace) -> int:
    from mneme_tui.cli import legion_recall_command

    return legion_recall_command.run(args, _legion(args), outcome_table=_outcome_table, warn=_warn)


def cmd_briefing(args: argparse.Namespace) -> int:
    from mneme_tui.legion.markdown.schemas import OUTCOMES
    from mneme_tui.legion.skill.briefing_report import briefing_report

    legion = _legion(args)
    report = briefing_report(legion)
    present = legion.has_file(OUTCOMES.file_name)
    if args.budget is not None and (args.json or present or report.briefing.claude_memory):
        _print_briefing_within(report, args.budget, args.json, present)
    elif args.json:
        output.print_json(report.to_json())
    else:
        _print_briefing(report, present)
    if not args.json:
        _warn(report.briefing.warnings)
    return 0


def _print_briefing(report: BriefingReport, present: bool) -> None:
    briefing = report.briefing
    if present:  # spec §6: nothing displayed without OUTCOMES.md
        print(f"Session briefing: {briefing.total_records} outcome records")
        if briefing.recent_outcomes:
            print("\nRecent outcomes")
            _outcome_table(briefing.recent_outcomes)
        if briefing.top_agents:
            print("\nTop agents")
            table = output.table(
                ("Agent", "left"), ("Tasks", "right"), ("Success", "right"), ("Avg importance", "right")
            )
            for agent in briefing.top_agents:
                table.add_row(
                    _cell(agent.agent_id),
                    str(agent.total_tasks),
                    _percent(agent.success_rate),
                    f"{agent.avg_importance:.1f}",
                )
            output.print_table(table)
        if briefing.note:
            print(output.literal(briefing.note))
        for note in report.preference_notes:  # spec §13: advisory approach notes
            print(output.literal(note))
    if briefing.claude_memory:
        print("\nClaude Code memory (MEMORY.md excerpt)")
        print(display.printable(briefing.claude_memory).rstrip("\n"))


def _print_briefing_within(report: BriefingReport, tokens: int, as_json: bool, present: bool) -> None:
    """``--budget``: the briefing with the entries that fit (``legion.briefing_budget``), then its note."""
    from mneme_tui.cli import budget_output
    from mneme_tui.legion.skill.briefing_budget import BudgetedBriefing, within_budget

    def render(view: BudgetedBriefing) -> str:
        if as_json:
            return display.json_document(view.to_json()) + "\n"
        shown = budget_output.captured(lambda: _print_briefing(view.report, present))
        return shown + view.omission.line("entry", "entries") + "\n"

    sys.stdout.write(render(within_budget(report, tokens, render)))


def cmd_agents(args: argparse.Namespace) -> int:
    from mneme_tui.legion.markdown.schemas import OUTCOMES

    legion = _legion(args)
    agents = legion.agent_scores(args.task_types, match=args.match)
    archetypes = legion.archetype_scores(args.task_types)
    if args.json:
        output.print_json({"agents": [a.to_json() for a in agents], "archetypes": [a.to_json() for a in archetypes]})
        return 0
    if not legion.has_file(OUTCOMES.file_name):  # spec §6: nothing displayed without OUTCOMES.md
        return 0
    if not agents:
        print("No agent scores (an agent needs at least 2 recent outcomes).")
    else:
        table = output.table(
            ("Agent", "left"),
            ("Score", "right"),
            ("Tasks", "right"),
            ("Success", "right"),
            ("Failed", "right"),
            ("Avg importance", "right"),
            ("Avg recency", "right"),
        )
        for a in agents:
            table.add_row(
                _cell(a.agent_id),
                f"{a.memory_score:.2f}",
                str(a.total_tasks),
                _percent(a.success_rate),
                str(a.failures),
                f"{a.avg_importance:.1f}",
                f"{a.avg_recency_weight:.2f}",
            )
        output.print_table(table)
    if archetypes:
        print("\nTask types")
        table = output.table(
            ("Task type", "left"),
            ("Outcomes", "right"),
            ("Success", "right"),
            ("Avg importance", "right"),
            ("Top agent", "left"),
            ("Agents", "left"),
        )
        for t in archetypes:
            table.add_row(
                _cell(t.task_type),
                str(t.total_outcomes),
                _percent(t.success_rate),
                f"{t.avg_importance:.1f}",
                _cell(t.top_agent or "-"),
                _cell(", ".join(t.agents)),
            )
        output.print_table(table)
    return 0


# ----------------------------------------------------------------------------- record
def cmd_record(args: argparse.Namespace) -> int:
    from mneme_tui.legion.markdown.storage import LegionWriteError

    legion = _legion(args)
    if args.branch is not None and not args.branch.strip():
        raise MnemeError(ERR_VALIDATION_FAILED, "--branch cannot be empty")
    try:
        result = declared.run(args.operation, args, session=declared.session_for(args.operation, args, lambda: legion))
    except LegionWriteError as exc:
        lines = exc.message.splitlines()
        print(f"mneme: {exc.code}: {output.literal(lines[0] if lines else '')}", file=sys.stderr)
        if args.json:
            output.print_json({"error": exc.code, "message": lines[0] if lines else "", "record_text": exc.record_text})
        else:
            sys.stdout.write(display.printable(exc.record_text) + "\n")
        return 1
    if args.json:
        output.print_json(result.to_json())
    else:
        record: Record = result.record
        rid = record.id or f"line {record.line}"
        if result.action == "created":
            print(f"Recorded {output.literal(rid)} in {result.file}")
        elif result.action == "updated":
            print(f"Updated {output.literal(rid)} in {result.file}: the known error now has this fix")
        else:
            print(f"Not added: {result.file} already has a resolved fix for this error ({output.literal(rid)})")
        if result.prune is not None:
            print(display.printable(result.prune.message))  # the spec's multi-line prune report
            if not result.prune.ok:  # spec §7: the records that would have been archived, as text
                sys.stdout.write(display.printable(result.prune.records_text) + "\n")
    _warn(result.warnings)
    return 0


# ------------------------------------------------------------------------------ prune
def _entry_json(entry: Any) -> dict[str, Any]:
    data = entry.record.to_json()
    data.update(reason=entry.reason, days_old=entry.days_old)
    return data


def cmd_prune(args: argparse.Namespace) -> int:
    legion = _legion(args)
    plan = legion.prune_plan()
    result = legion.apply_prune(plan) if args.apply and plan.candidates else None
    if args.json:
        document: dict[str, Any] = {
            "as_of": plan.as_of,
            "current_phase": plan.current_phase,
            "prune_age_days": plan.prune_age_days,
            "total_records": plan.total_records,
            "candidates": [_entry_json(e) for e in plan.candidates],
            "kept": [_entry_json(e) for e in plan.kept],
            "applied": bool(result is not None and result.ok),
            "message": result.message if result is not None else plan.message,
            "warnings": list(plan.warnings),
        }
        if result is not None:
            document["result"] = result.to_json()
        output.print_json(document)
    else:
        _print_prune(legion, plan, result, args.apply)
    if result is not None and not result.ok:
        print(f"mneme: {output.literal(result.message)}", file=sys.stderr)
        if not args.json:
            sys.stdout.write(display.printable(result.records_text) + "\n")
        return 1
    return 0


def _print_prune(legion: LegionMemory, plan: Any, result: Any, apply: bool) -> None:
    if not legion.memory_dir.is_dir():
        print(_no_folder(legion))
        return
    if not plan.candidates:
        print(output.literal(plan.message))
    else:
        print(
            f"{len(plan.candidates)} of {plan.total_records} outcomes are older than {plan.prune_age_days} days, "
            "importance 1-3 and not from the current phase:"
        )
        table = output.table(
            ("ID", "left"),
            ("Date", "left"),
            ("Days", "right"),
            ("Agent", "left"),
            ("Imp", "right"),
            ("Summary", "left"),
        )
        for e in plan.candidates:
            r = e.record
            table.add_row(
                _cell(r.id or "-"), _cell(r.date), str(e.days_old), _cell(r.agent), str(r.importance), _cell(r.summary)
            )
        output.print_table(table)
    if plan.kept:
        reasons = ("high importance", "current phase", "recent", "undated")
        parts = [f"{plan.kept_count(reason)} {reason}" for reason in reasons if plan.kept_count(reason)]
        print(f"Kept {len(plan.kept)}: {', '.join(parts)}")
    if result is not None:
        print(display.printable(result.message))  # the spec's multi-line prune report
    elif plan.candidates and not apply:
        print("Preview only: run `mneme legion prune --apply` to move them to ARCHIVE.md.")
    _warn(plan.warnings)


# ---------------------------------------------------------------------------- compact
def cmd_compact(args: argparse.Namespace) -> int:
    from mneme_tui.legion.skill.compaction import compact_phase

    folder = user_path(args.phase_dir, "PHASE_DIR")
    if not is_folder(folder, "PHASE_DIR"):
        raise MnemeError(ERR_NOT_FOUND, f"{output.literal(args.phase_dir)} is not a folder")
    result = compact_phase(folder)
    if args.json:
        output.print_json(result.to_json())
        return 0
    print(
        f"Wrote {output.literal(result.path)} from {len(result.original_summaries)} summaries "
        f"({result.original_chars} -> {result.compacted_chars} characters, {result.ratio:.0%})"
    )
    if result.requirements_satisfied:
        print(f"Requirements: {output.literal(', '.join(result.requirements_satisfied))}")
    _warn(result.warnings)
    return 0
