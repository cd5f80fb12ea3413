"""Acting on one memory: ``show``, ``restore``, ``supersede`` and ``edit`` (issue 13).

Every change goes through the Store's audited status operations; nothing is overwritten or deleted.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mneme_tui import config, display
from mneme_tui.cli import arguments, output
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.kinds import ACTIVE, ADVISORY_KINDS, STATUTORY_KINDS
from mneme_tui.memory.records import Memory, MemoryDetail, actor_label, iso, supersession_json

if TYPE_CHECKING:
    from mneme_tui.memory.curation.same_text import TextMatch


def register(sub: argparse._SubParsersAction) -> None:
    show = arguments.add_command(sub, "show", "one memory with all its fields, audit history and supersessions")
    show.add_argument("id", metavar="ID")
    show.set_defaults(func=cmd_show)

    restore = arguments.add_command(sub, "restore", "bring tombstoned or superseded memories back to active")
    restore.add_argument("ids", nargs="+", metavar="ID")
    restore.set_defaults(func=cmd_restore)

    supersede = arguments.add_command(
        sub, "supersede", "replace a memory's text: saves a new memory, the old one becomes superseded"
    )
    supersede.add_argument("id", metavar="ID")
    supersede.add_argument("content", metavar="CONTENT", help="the new text; '-' reads standard input")
    supersede.add_argument("--topic", help="the new memory's topic (default: the old one's)")
    supersede.add_argument(
        "--kind", help=f"the new memory's advisory kind: {', '.join(ADVISORY_KINDS)} (default: the old one's)"
    )
    supersede.set_defaults(func=cmd_supersede)

    edit = arguments.add_command(sub, "edit", "edit a memory's text in $VISUAL or $EDITOR, then supersede it with that")
    edit.add_argument("id", metavar="ID")
    edit.set_defaults(func=cmd_edit)


# ------------------------------------------------------------------------------------ show
def cmd_show(args: argparse.Namespace) -> int:
    (memory_id,) = arguments.memory_ids([args.id], "shown")
    detail = arguments.open_store(args).detail(memory_id)
    if args.json:
        output.print_json(detail.to_json())
    else:
        _print_detail(detail)
    return 0


def _print_detail(detail: MemoryDetail) -> None:
    """The memory's fields one per line, its text literally (never wrapped or cut), then its links and
    history. Control characters are made visible everywhere."""
    memory = detail.memory
    lit = output.literal
    fields = [
        ("status", memory.status),
        ("kind", memory.kind),
        ("topic", lit(memory.topic)),
        ("repo", lit(memory.repo_id)),
        ("task", lit(memory.task_id) or "—"),
        ("created", f"{iso(memory.created_at)} ({output.age(memory.created_at, config.now())} ago) "
                    f"by {lit(actor_label(detail.created_by))}"),
        ("accessed", f"{memory.access_count} time{'s' if memory.access_count != 1 else ''}"),
    ]
    if detail.superseded_by is not None:
        fields.append(("superseded by", _reference(detail.superseded_by)))
    elif memory.superseded_by:
        fields.append(("superseded by", f"{memory.superseded_by} (not in this store)"))
    fields.extend(("supersedes", _reference(older)) for older in detail.supersedes)
    fields.append(("read by tasks", ", ".join(map(lit, detail.accessed_by)) or "—"))

    print(f"Memory {memory.id}")
    width = max(len(name) for name, _ in fields)
    for name, value in fields:
        print(f"  {name:<{width}}  {value}")
    print()
    print(display.printable(memory.content))
    print()
    if not detail.history:
        print("History: no status changes recorded")
        return
    print("History:")
    for entry in detail.history:
        reason = f"  {lit(entry.reason)}" if entry.reason else ""
        who = lit(actor_label(entry.actor))
        print(f"  {iso(entry.at)}  {entry.from_status} → {entry.to_status}{reason}  (by {who})")


def _reference(memory: Memory) -> str:
    return f"{memory.id} ({memory.status}, {memory.kind}): {display.one_line(memory.content)}"


# --------------------------------------------------------------------------------- restore
def cmd_restore(args: argparse.Namespace) -> int:
    ids = arguments.memory_ids(args.ids, "restored")
    change = arguments.open_store(args).restore(ids)
    output.print_status_change(
        args.json, ids, change, key="restored",
        done="Restored {ids} (active again; see `mneme show ID` for the history)", unchanged="Already active: {ids}",
    )
    return 0


# ------------------------------------------------------------------------- supersede, edit
def cmd_supersede(args: argparse.Namespace) -> int:
    (memory_id,) = arguments.memory_ids([args.id], "superseded")
    content = arguments.read_content(args.content)
    store = arguments.open_store(args)
    _check_editable(store.get(memory_id))
    new, match = store.supersede_checked(memory_id, content, topic=args.topic, kind=args.kind)
    _report_superseded(args, memory_id, new, match)
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    """Open the memory's text in the user's editor; changed, non-empty text supersedes it. Unchanged
    text changes nothing (exit 0); empty text or a failing editor is an error (exit 1)."""
    from mneme_tui.editor import edit_text  # subprocess and tempfile only for this command

    (memory_id,) = arguments.memory_ids([args.id], "edited")
    store = arguments.open_store(args)
    memory = store.get(memory_id)
    _check_editable(memory)
    edited = edit_text(memory.content, f"memory-{memory.id}.md")
    if edited == memory.content:
        if args.json:
            output.print_json(supersession_json(None, memory))
        else:
            print(f"Nothing changed: memory {memory_id} is as it was")
        return 0
    if not edited.strip():
        raise MnemeError(ERR_VALIDATION_FAILED, f"the edited text is empty; memory {memory_id} is unchanged")
    new, match = store.supersede_checked(memory_id, edited)
    _report_superseded(args, memory_id, new, match)
    return 0


def _check_editable(memory: Memory) -> None:
    """Refuse, before anything is opened or written, what the store would refuse, saying what to do."""
    if memory.kind in STATUTORY_KINDS:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"memory {memory.id} is a {memory.kind}, a statutory kind: the spec lets only verified task sync "
            f"(and the Legion import) write those, so it cannot be edited by hand; dismiss it "
            f"(`mneme dismiss {memory.id}`) and save an advisory memory instead (`mneme save`)",
        )
    if memory.status != ACTIVE:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"memory {memory.id} is {memory.status}: only active memories can be superseded "
            f"(`mneme restore {memory.id}` first)",
        )


def _report_superseded(args: argparse.Namespace, old_id: int, new: Memory, match: TextMatch) -> None:
    """The new memory and what it superseded, or (a duplicate text) that nothing changed."""
    if args.json:
        output.print_json(match.superseded_json(old_id, new))
        return
    if match.duplicate_of is None:
        print(
            f"Saved memory {new.id} ({new.kind}, topic {output.literal(new.topic)}, repo "
            f"{output.literal(new.repo_id)}); memory {old_id} is now superseded by it"
        )
    if match.notice():
        print(match.notice() + ("" if match.duplicate_of is None else f"; memory {old_id} is unchanged"))

