"""``purge``, the one deletion (``memory/purge.py``), declared once for the CLI and the MCP server: memories'
text removed from every file the store owns and, with ``markdown``, from their mirrored Legion rows."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from mneme_tui.operations.declaration import BOOL, MEMORY_IDS, TEXT, Effect, Operation, Param

if TYPE_CHECKING:
    from mneme_tui.memory.purge import PurgeResult
    from mneme_tui.operations.session import Session


def run_purge(session: Session, ids: list[int], reason: str, chain: bool, markdown: bool) -> PurgeResult:
    """Purge ``ids`` (their chains with ``chain``); with ``markdown``, rewrite each mirrored Legion row too."""
    from mneme_tui.legion.mirror.purge_rows import purge_row
    from mneme_tui.memory.purge import PURGED, purge

    result = purge(session.store(), ids, reason=reason, chain=chain)
    if not markdown:
        return result
    legion = session.legion()
    rewritten = tuple(
        memory.id
        for memory in result.purged
        if memory.legion_file and purge_row(legion, memory.legion_file, memory.legion_record, PURGED)
    )
    return replace(result, markdown_rewritten=rewritten)


PURGE = Operation(
    tool="purge",
    command=("purge",),
    title="Purge memories",
    summary="remove memories' text for good (a leaked secret): the one deletion; the rows stay, tombstoned",
    effect=Effect.DELETE,
    past="purged",
    run=run_purge,
    details="Audited with the reason and the removed text's SHA-256; it cannot be undone. "
    'Returns {"purged": [...], "reason", "clean", "markdown_rewritten"}.',
    params=(
        Param("ids", MEMORY_IDS, "ids of the memories whose text must go", metavar="ID", required=True),
        Param(
            "reason", TEXT, "why (recorded in the audit history)", flags=("--reason",), metavar="TEXT", required=True
        ),
        Param(
            "chain", BOOL, "purge every version of each memory's supersession chain", flags=("--chain",), default=False
        ),
        Param(
            "markdown",
            BOOL,
            "also replace the text of the mirrored row in its Legion file (a safe rewrite)",
            flags=("--markdown",),
            default=False,
        ),
    ),
)
