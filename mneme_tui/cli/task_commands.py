"""``mneme task sync`` / ``mneme task candidates`` and ``mneme handshake``: learning from verified tasks
(spec §4.2) on the command line. The work is done by ``mneme_tui.memory.learning``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mneme_tui import config, display
from mneme_tui.cli import arguments, declared, output
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.operations.learning import HANDSHAKE, TASK_SYNC
from mneme_tui.validation import is_folder, user_path

if TYPE_CHECKING:  # the learning modules load the store and numpy: imported by the handlers that run
    from mneme_tui.memory.learning.orientation import Orientation
    from mneme_tui.memory.learning.task_report import TaskReport
    from mneme_tui.memory.learning.tasksync import SyncResult


def register(sub: argparse._SubParsersAction) -> None:
    task = sub.add_parser(
        "task",
        help="learn from verified task runs (task sync, graduation candidates)",
        description="Learn from verified task runs.",
    )
    arguments.add_common_options(task)
    actions = task.add_subparsers(dest="task_command", metavar="ACTION", parser_class=arguments.Parser, required=True)

    sync = declared.add_operation(actions, TASK_SYNC, context=_root_option)
    sync.set_defaults(func=cmd_sync)

    candidates = arguments.add_command(
        actions, "candidates", "list graduation candidates: pitfalls to codify as policy"
    )
    candidates.add_argument("-p", "--project", metavar="REPO", help="repository (default: the active repo)")
    candidates.add_argument("-A", "--all", dest="all_repos", action="store_true", help="every repository")
    candidates.add_argument("--rules", action="store_true", help="print ready-to-paste nomos.yaml rule items")
    candidates.set_defaults(func=cmd_candidates)

    handshake = declared.add_operation(sub, HANDSHAKE)
    _root_option(handshake)
    handshake.set_defaults(func=cmd_handshake)


def _root_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="repository work tree (default: the enclosing git work tree, or the current folder)",
    )


def _root(args: argparse.Namespace) -> Path:
    if args.root:
        root = user_path(args.root, "--root")
        if not is_folder(root, "--root"):
            raise MnemeError(ERR_VALIDATION_FAILED, f"--root {output.literal(args.root)} is not a folder")
        return root.resolve()
    return config.find_git_root() or Path.cwd().resolve()


def _read_report(raw: str) -> TaskReport:
    from mneme_tui.memory.learning.task_report import load_report, read_report

    if raw == "-":
        return read_report(sys.stdin.buffer)
    return load_report(raw)


def cmd_sync(args: argparse.Namespace) -> int:
    from mneme_tui.memory import secrets
    from mneme_tui.memory.learning.distill import distill
    from mneme_tui.memory.learning.task_report import screened_report
    from mneme_tui.memory.learning.tasksync import SyncResult, commit, preview

    report, redactions = screened_report(_read_report(args.report), secrets.policy_for(args.redact))
    plan = distill(report, _root(args))
    if not plan.verified:  # phase one refused: do not even open the database
        result = SyncResult(report.task_id, report.repo, False, plan.reason, args.dry_run, notes=plan.notes)
        if args.json:
            output.print_json(result.to_json())
        else:
            print(f"mneme: not synced: {output.literal(plan.reason)}", file=sys.stderr)
        return 1
    store = arguments.open_store(args, create=True)
    result = preview(store, plan) if args.dry_run else commit(store, plan)
    output.print_redactions(redactions + store.redactions)
    if args.json:
        output.print_json(result.to_json())
    else:
        _print_sync(result)
    return 0


def _print_sync(result: SyncResult) -> None:
    verb = "Would sync" if result.dry_run else "Synced"
    print(f"{verb} task {output.literal(result.task_id)} (repo {output.literal(result.repo)}): {result.reason}")
    for item in result.learnings:
        label = {"written": f"#{item.memory_id}", "planned": "new", "duplicate": "already synced"}[item.outcome]
        extra = ""
        if item.outcome == "duplicate":
            extra = f" as #{item.memory_id}; skipped"
        elif item.supersedes:
            extra = f"; supersedes {', '.join(f'#{i}' for i in item.supersedes)}"
        first = item.content.splitlines()[0] if item.content else ""
        print(f"  {item.kind} {label}: {output.literal(item.topic)}{extra}")
        print(f"    {output.literal(first)}")
    if not result.learnings:
        print("  nothing to learn")
    for note in result.notes:
        print(f"note: {output.literal(note)}")


def cmd_candidates(args: argparse.Namespace) -> int:
    from mneme_tui.memory.learning.graduation import graduation_candidates

    store = arguments.open_store(args)
    repo = None if args.all_repos else config.resolve_repo(args.project)
    found = graduation_candidates(store, repo)
    if args.json:
        output.print_json([candidate.to_json() for candidate in found])
    elif args.rules:
        if found:
            sys.stdout.write("\n".join(display.printable(c.rule_text()) for c in found))
        else:
            sys.stdout.write("# no graduation candidates\n")
    elif not found:
        print("No graduation candidates.")
    else:
        for candidate in found:
            memory = candidate.memory
            print(f"#{memory.id} [{output.literal(memory.repo_id)}] {output.literal(memory.topic)}")
            print(f"   {candidate.rule}: {output.literal(candidate.reason)}")
            print(f"   {output.literal(memory.first_line)}")
    return 0


def cmd_handshake(args: argparse.Namespace) -> int:
    from mneme_tui.memory.learning.orientation import orientation, within_budget
    from mneme_tui.memory.learning.scope import relative_to_root

    repo = config.resolve_repo(args.project)
    modified = [relative_to_root(str(user_path(path, "--modified")), _root(args)) for path in args.modified]
    if args.task is not None and not args.task.strip():
        raise MnemeError(ERR_VALIDATION_FAILED, "--task cannot be empty")
    store = arguments.open_store(args, create=True)  # the session-start hook's first run makes the store
    view = orientation(store, repo, args.task.strip() if args.task else None, modified, limit=args.limit)
    render = _orientation_json if args.json else _orientation_text
    if args.budget is not None:
        view = within_budget(view, args.budget, render)
    sys.stdout.write(render(view))
    return 0


def _orientation_json(view: Orientation) -> str:
    return display.json_document(view.to_json()) + "\n"


def _orientation_text(view: Orientation) -> str:
    return view.to_text()
