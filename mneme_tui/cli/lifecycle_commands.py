"""Acting on one memory: ``show``, ``restore``, ``supersede`` and ``edit`` (issue 13).

Every change goes through the Store's audited status operations; nothing is overwritten or deleted.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mneme_tui import config, display
from mneme_tui.cli import arguments, declared, output
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.kinds import ACTIVE, STATUTORY_KINDS
from mneme_tui.memory.records import Memory, MemoryDetail, actor_label, iso, supersession_json
from mneme_tui.operations.declaration import REDACT_PARAM
from mneme_tui.operations.memory import RESTORE, SHOW, SUPERSEDE

if TYPE_CHECKING:
    from mneme_tui.memory.curation.same_text import TextMatch


def register(sub: argparse._SubParsersAction) -> None:
    declared.add_operation(sub, SHOW).set_defaults(func=cmd_show)
    declared.add_operation(sub, RESTORE).set_defaults(func=cmd_restore)
    declared.add_operation(sub, SUPERSEDE).set_defaults(func=cmd_supersede)

    edit = arguments.add_command(sub, "edit", "edit a memory's text in $VISUAL or $EDITOR, then supersede it with that")
    edit.add_argument("id", metavar="ID")
    declared.add_param(edit, REDACT_PARAM)
    edit.set_defaults(func=cmd_edit)


# ------------------------------------------------------------------------------------ show
def cmd_show(args: argparse.Namespace) -> int:
    detail = declared.run(SHOW, args)
    if args.json:
        output.print_json(SHOW.to_json(detail, {}))
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
        (
            "created",
            f"{iso(memory.created_at)} ({output.age(memory.created_at, config.now())} ago) "
            f"by {lit(actor_label(detail.created_by))}",
        ),
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
    values = declared.values_of(RESTORE, args)
    change = declared.run(RESTORE, args, given=values)
    output.print_status_change(
        args.json,
        values["ids"],
        change,
        key="restored",
        done="Restored {ids} (active again; see `mneme show ID` for the history)",
        unchanged="Already active: {ids}",
    )
    return 0


# ------------------------------------------------------------------------- supersede, edit
def cmd_supersede(args: argparse.Namespace) -> int:
    values = declared.values_of(SUPERSEDE, args)
    session = declared.session_for(SUPERSEDE, args)
    _check_editable(session.store().get(values["memory_id"]))
    saved = declared.run(SUPERSEDE, args, session=session, given=values)
    _report_superseded(args, values["memory_id"], saved, session.store().redactions)
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
    _report_superseded(args, memory_id, store.supersede_checked(memory_id, edited), store.redactions)
    return 0


def _check_editable(memory: Memory) -> None:
    """Refuse, before anything is opened or written, what the store would refuse, saying what to do."""
    if memory.kind in STATUTORY_KINDS:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"memory {memory.id} is {display.with_article(memory.kind)}, a statutory kind: the spec lets only "
            f"verified task sync (and the Legion import) write those, so it cannot be edited by hand; dismiss it "
            f"(`mneme dismiss {memory.id}`) and save an advisory memory instead (`mneme save`)",
        )
    if memory.status != ACTIVE:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"memory {memory.id} is {memory.status}: only active memories can be superseded "
            f"(`mneme restore {memory.id}` first)",
        )


def _report_superseded(args: argparse.Namespace, old_id: int, saved: tuple[Memory, TextMatch], redactions: int) -> None:
    """The new memory and what it superseded, or (a duplicate text) that nothing changed."""
    output.print_redactions(redactions)
    new, match = saved
    if args.json:
        output.print_json(SUPERSEDE.to_json(saved, {"memory_id": old_id}))
        return
    if match.duplicate_of is None:
        print(
            f"Saved memory {new.id} ({new.kind}, topic {output.literal(new.topic)}, repo "
            f"{output.literal(new.repo_id)}); memory {old_id} is now superseded by it"
        )
    if match.notice():
        print(match.notice() + ("" if match.duplicate_of is None else f"; memory {old_id} is unchanged"))
