"""Curation (``memory/curation``), declared once for the CLI and the MCP server: ``review`` lists what the store
proposes, ``review_decide`` (``mneme review accept|reject|undo``) decides, ``pin`` / ``unpin`` keep memories
out of the cold kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mneme_tui.memory.curation.choices import DECISIONS, KINDS, UNDO
from mneme_tui.operations.declaration import BOOL, INT, MCP, MEMORY_IDS, TEXT, TEXT_LIST, Effect, Operation, Param

if TYPE_CHECKING:
    from mneme_tui.operations.session import Session


def _same(document: Any, values: dict[str, Any]) -> Any:
    """The result is already its JSON document (the curation package builds it for both surfaces)."""
    return document


def run_review(
    session: Session, kinds: list[str] | None, limit: int | None, all_repos: bool, repo: str | None
) -> dict[str, Any]:
    """The open proposals of the repo (every repo with ``all_repos``), best first; the stale kind reads the
    session's work tree for that repo."""
    from mneme_tui.memory.curation.proposals import review_document

    wanted = None if all_repos else session.repo(repo)
    return review_document(
        session.store(), wanted, kinds=frozenset(kinds) if kinds else None, limit=limit, root=session.work_tree(wanted)
    )


def run_decide(session: Session, proposals: list[str], decision: str) -> dict[str, Any]:
    """Accept, reject or undo ``proposals``, all or nothing (accepting supersedes or dismisses, audited)."""
    from mneme_tui.memory.curation.review import decide_document

    return decide_document(session.store(), proposals, decision, root=session.work_tree(None))


def run_pin(session: Session, ids: list[int]) -> dict[str, list[int]]:
    from mneme_tui.memory.curation.review import pin_document

    return pin_document(session.store(), ids, pin=True)


def run_unpin(session: Session, ids: list[int]) -> dict[str, list[int]]:
    from mneme_tui.memory.curation.review import pin_document

    return pin_document(session.store(), ids, pin=False)


REVIEW = Operation(
    tool="review",
    command=("review",),
    title="Review curation proposals",
    summary="list what curation proposes to merge, supersede, re-check or dismiss (best first); "
    "decide with `review accept|reject`",
    effect=Effect.READ,
    run=run_review,
    to_json=_same,
    details="Duplicates to merge, conflicts to supersede, stale memories (the code they name is gone from the "
    "work tree) to re-check, cold ones to dismiss; each with its evidence. Nothing changes until "
    '`review_decide`. Returns {"repo", "proposals": [...]}.',
    params=(
        Param(
            "kinds",
            TEXT_LIST,
            "only these kinds",
            flags=("--kind",),
            metavar="KIND",
            choices=KINDS,
            default_note="every kind",
            repeated=True,
        ),
        Param("limit", INT, "at most this many proposals", flags=("-n", "--limit"), minimum=1, default_note="all"),
        Param("all_repos", BOOL, "proposals of every repository", flags=("-A", "--all"), default=False),
        Param(
            "repo",
            TEXT,
            "repository to review",
            flags=("-p", "--project"),
            metavar="REPO",
            default_note="the active repo",
            dest="project",
        ),
    ),
)

DECISION_WORDS: tuple[str, ...] = (*DECISIONS, UNDO)
"""The decisions, in the order the CLI lists them as ``review`` actions."""

REVIEW_DECIDE = Operation(
    tool="review_decide",
    command=("review", "accept"),
    title="Decide on curation proposals",
    summary="decide on curation proposals, all or nothing: accept runs their action, reject keeps them from "
    "being proposed again while their memories are unchanged, undo reverses the last decision",
    effect=Effect.REPLACE,
    run=run_decide,
    to_json=_same,
    details="Accepting supersedes or dismisses through the audited store operations; `undo` puts them back. "
    'Returns {"decisions": [...]}.',
    params=(
        Param("proposals", TEXT_LIST, "proposal ids from `review`", metavar="PROPOSAL", required=True),
        Param(
            "decision", TEXT, "what to do with them", choices=DECISION_WORDS, required=True, surfaces=frozenset({MCP})
        ),
    ),
)
"""On the CLI the decision is the command word: ``mneme review accept|reject|undo PROPOSAL…``."""

PIN = Operation(
    tool="pin",
    command=("pin",),
    title="Pin memories",
    summary="pin memories: never proposed as cold, listed first in the handshake",
    effect=Effect.CHANGE,
    past="pinned",
    run=run_pin,
    to_json=_same,
    details='`unpin` undoes it; a pinned one is left as it is. Returns {"pinned": [...], "unchanged": [...]}.',
    params=(Param("ids", MEMORY_IDS, "ids of the memories to pin", metavar="ID", required=True),),
)

UNPIN = Operation(
    tool="unpin",
    command=("unpin",),
    title="Unpin memories",
    summary="unpin memories",
    effect=Effect.CHANGE,
    past="unpinned",
    run=run_unpin,
    to_json=_same,
    details='Returns {"unpinned": [...], "unchanged": [...]}.',
    params=(Param("ids", MEMORY_IDS, "ids of the memories to unpin", metavar="ID", required=True),),
)

CURATION_OPERATIONS = (REVIEW, REVIEW_DECIDE, PIN, UNPIN)
