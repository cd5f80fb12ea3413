"""The four canonical actions of spec §5: ``save``, ``recall``, ``list``, ``dismiss`` (no aliases)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mneme_tui import config
from mneme_tui.cli import arguments, output
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.kinds import ADVISORY_KINDS, ALL_KINDS, STATUSES

if TYPE_CHECKING:
    from mneme_tui.memory.records import Memory, ScoredMemory


def register(sub: argparse._SubParsersAction) -> None:
    save = arguments.add_command(sub, "save", "save an advisory memory")
    save.add_argument("content", metavar="CONTENT", help="the memory text (markdown); '-' reads standard input")
    save.add_argument("--topic", default="General", help="topic category (default: General)")
    save.add_argument(
        "--kind", default="reflection", help=f"advisory kind: {', '.join(ADVISORY_KINDS)} (default: reflection)"
    )
    save.add_argument(
        "-p", "--project", metavar="REPO", help="repository scope (default: the active repo; 'global' for everyone)"
    )
    save.add_argument("--task", metavar="ID", default="", help="linked task key, e.g. INT-734")
    save.set_defaults(func=cmd_save)

    recall = arguments.add_command(sub, "recall", "search memories, best match first")
    recall.add_argument("query", metavar="QUERY")
    recall.add_argument(
        "-A", "--cross-repo", action="store_true", help="search every repository, without the locality boost"
    )
    recall.add_argument("-p", "--project", metavar="REPO", help="repository to search (default: the active repo)")
    recall.add_argument("-n", "--limit", type=arguments.positive_int, default=5, help="result limit (default: 5)")
    recall.add_argument("--kind", help=f"only this kind ({', '.join(ALL_KINDS)})")
    arguments.add_profile_option(recall)
    recall.set_defaults(func=cmd_recall)

    listing = arguments.add_command(sub, "list", "list memories, active ones by default")
    listing.add_argument("--status", default="active", help=f"{', '.join(STATUSES)} or all (default: active)")
    listing.add_argument("-A", "--all", dest="all_repos", action="store_true", help="memories of every repository")
    listing.add_argument(
        "-p", "--project", metavar="REPO", help="repository to list (default: the active repo, plus global)"
    )
    listing.add_argument("-n", "--limit", type=arguments.positive_int, default=20, help="max results (default: 20)")
    listing.add_argument("--kind", help="only this kind")
    listing.set_defaults(func=cmd_list)

    dismiss = arguments.add_command(sub, "dismiss", "tombstone memories; nothing is deleted")
    dismiss.add_argument("ids", nargs="+", metavar="ID")
    dismiss.set_defaults(func=cmd_dismiss)


def cmd_save(args: argparse.Namespace) -> int:
    content = arguments.read_content(args.content)
    store = arguments.open_store(args)
    memory, match = store.save_checked(
        content,
        kind=args.kind,
        topic=args.topic,
        repo_id=config.resolve_repo(args.project),
        task_id=args.task,
    )
    if args.json:
        output.print_json(match.saved_json(memory))
        return 0
    if match.duplicate_of is None:
        print(
            f"Saved memory {memory.id} ({memory.kind}, topic {output.literal(memory.topic)},"
            f" repo {output.literal(memory.repo_id)})"
        )
    if match.notice():
        print(match.notice())
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    kind = _kind_filter(args.kind)
    store = arguments.open_store(args)
    results = store.recall(
        args.query,
        repo=config.resolve_repo(args.project),
        cross_repo=args.cross_repo,
        kind=kind,
        limit=args.limit,
        profile=arguments.resolve_profile(args),
    )
    if args.json:
        output.print_json([result.to_json() for result in results])
    elif not results:
        print("No matching memories.")
    else:
        _print_recall_table(results)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    kind = _kind_filter(args.kind)
    store = arguments.open_store(args)
    repo = None if args.all_repos else config.resolve_repo(args.project)
    memories = store.list(
        status=args.status,
        repo_id=repo,
        kind=kind,
        limit=args.limit,
        include_global=args.project is None,
    )
    if args.json:
        output.print_json([memory.to_json() for memory in memories])
    elif not memories:
        print(f"No {args.status if args.status != 'all' else ''} memories.".replace("  ", " "))
    else:
        _print_list_table(memories)
    return 0


def cmd_dismiss(args: argparse.Namespace) -> int:
    ids = arguments.memory_ids(args.ids, "dismissed")
    change = arguments.open_store(args).dismiss(ids)
    output.print_status_change(
        args.json, ids, change, key="dismissed",
        done="Dismissed {ids} (tombstoned; see `mneme list --status tombstoned`, bring back with `mneme restore ID`)",
        unchanged="Already tombstoned: {ids}",
    )
    return 0


def _kind_filter(kind: str | None) -> str | None:
    if kind is None:
        return None
    if kind not in ALL_KINDS:
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown kind {kind!r} (valid kinds: {', '.join(ALL_KINDS)})")
    return kind


def _print_list_table(memories: list[Memory]) -> None:
    now = config.now()
    table = output.table(
        ("ID", "right"), ("Kind", "left"), ("Topic", "left"), ("Repo", "left"),
        ("Age", "right"), ("Status", "left"), ("Content", "left"),
    )
    for memory in memories:
        table.add_row(
            str(memory.id), memory.kind, output.text(memory.topic), output.text(memory.repo_id),
            output.age(memory.created_at, now), memory.status, output.text(memory.content),
        )
    output.print_table(table)


def _print_recall_table(results: list[ScoredMemory]) -> None:
    now = config.now()
    table = output.table(
        ("#", "right"), ("Score", "right"), ("ID", "right"), ("Kind", "left"),
        ("Topic", "left"), ("Repo", "left"), ("Age", "right"), ("Content", "left"),
    )
    for rank, result in enumerate(results, start=1):
        memory = result.memory
        table.add_row(
            str(rank), f"{result.score:.3f}", str(memory.id), memory.kind, output.text(memory.topic),
            output.text(memory.repo_id), output.age(memory.created_at, now), output.text(memory.content),
        )
    output.print_table(table)
