"""The memory operations: recall, save, list, show, dismiss, restore and supersede (spec §5), declared once
for the CLI and the MCP server, with their JSON results."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mneme_tui.display import compact_json, json_document
from mneme_tui.memory.budget import Dumps, fit_json
from mneme_tui.memory.kinds import ADVISORY_KINDS, ALL_KINDS, STATUSES, validate_kind
from mneme_tui.memory.secrets import policy_for
from mneme_tui.operations.declaration import (
    BOOL,
    INT,
    MCP,
    MEMORY_ID,
    MEMORY_IDS,
    REDACT_PARAM,
    TEXT,
    Effect,
    Operation,
    Param,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mneme_tui.memory.budget import Omission
    from mneme_tui.memory.curation.same_text import TextMatch
    from mneme_tui.memory.records import Memory, MemoryDetail, ScoredMemory, StatusChange
    from mneme_tui.operations.session import Session

PROFILE_NAMES: tuple[str, ...] = ("bm25", "spec")
"""The ranking profiles (``ranking.PROFILES``, which needs numpy; a test keeps the two equal)."""

ECHO_CHARS = 80
"""How much of a saved memory's text the MCP ``save`` result echoes."""

RECALL_FIELDS = ("id", "kind", "repo_id", "topic", "score", "content", "created_at", "verified")
"""What an MCP recall result carries by default: what an agent uses (``detail`` adds the rest)."""


def _repo(help_text: str, note: str) -> Param:
    return Param("repo", TEXT, help_text, flags=("-p", "--project"), metavar="REPO", default_note=note, dest="project")


def _limit(default: int, help_text: str) -> Param:
    return Param(
        "limit", INT, help_text, flags=("-n", "--limit"), default=default, default_note=str(default), minimum=1
    )


def _kind(help_text: str, kinds: tuple[str, ...], *, default: str | None = None, note: str = "") -> Param:
    return Param(
        "kind",
        TEXT,
        help_text,
        flags=("--kind",),
        choices=kinds,
        checked_by="operation",
        default=default,
        default_note=note,
    )


BUDGET = Param(
    "budget",
    INT,
    "only the best whole items whose output fits in about this many tokens (estimated; says how many were left out)",
    flags=("--budget",),
    metavar="TOKENS",
    minimum=1,
)
"""``--budget TOKENS`` / ``budget``: recall, handshake and the Legion briefing and recall cut to a token budget
(``memory.budget``), measured on what the surface prints."""


def recall_json(results: Sequence[ScoredMemory], detail: bool = True) -> list[dict[str, Any]]:
    """The ranked memories: every field, score components and reasons (``detail``), or only what an agent uses."""
    if detail:
        return [result.to_json() for result in results]
    return [_lean(result) for result in results]


def recall_document(results: list[ScoredMemory], values: dict[str, Any], dumps: Dumps = json_document) -> Any:
    """Recall's JSON: the ranked memories, or with a ``budget`` ``{"results": [...], "budget": {"tokens",
    "left_out", "needed"}}`` of the best whole results whose JSON, as ``dumps`` writes it, fits."""
    detail = values.get("detail", True)
    if values.get("budget") is None:
        return recall_json(results, detail)

    def document(kept: Sequence[ScoredMemory], omission: Omission) -> dict[str, Any]:
        return {"results": recall_json(kept, detail), "budget": omission.to_json()}

    return fit_json(results, values["budget"], document, dumps)


def _lean(result: ScoredMemory) -> dict[str, Any]:
    document = result.to_json()
    document["verified"] = document["provenance"]["verified"]
    return {name: document[name] for name in RECALL_FIELDS}


def save_echo(saved: tuple[Memory, TextMatch]) -> dict[str, Any]:
    """What MCP ``save`` answers: the new id, where it went and the start of its text (never the whole text),
    and ``duplicate_of`` (nothing stored: that memory is the one echoed) or ``near_duplicate`` when set."""
    memory, match = saved
    first = memory.first_line
    echo = first if len(first) <= ECHO_CHARS else first[: ECHO_CHARS - 1] + "…"
    return {
        "id": memory.id,
        "kind": memory.kind,
        "repo_id": memory.repo_id,
        "topic": memory.topic,
        "echo": echo,
        "chars": len(memory.content),
        **match.to_json(),
    }


def saved_json(saved: tuple[Memory, TextMatch]) -> dict[str, Any]:
    """``save --json``: the memory (the existing one for a duplicate) and what its text matched."""
    memory, match = saved
    return match.saved_json(memory)


def superseded_json(old_id: int, saved: tuple[Memory, TextMatch]) -> dict[str, Any]:
    """``supersede --json``: ``{"superseded": old id (null for a duplicate text), "memory": …}`` and the match."""
    memory, match = saved
    return match.superseded_json(old_id, memory)


def memory_list_json(memories: list[Memory]) -> list[dict[str, Any]]:
    return [memory.to_json() for memory in memories]


def _kind_filter(kind: str | None) -> str | None:
    return None if kind is None else validate_kind(kind, allow_statutory=True)


def _task(task_id: str | None) -> str | None:
    return task_id.strip() if task_id and task_id.strip() else None


def run_recall(
    session: Session,
    query: str,
    all_repos: bool,
    repo: str | None,
    limit: int,
    kind: str | None,
    profile: str | None,
    budget: int | None = None,
    task_id: str | None = None,
    detail: bool = True,
) -> list[ScoredMemory]:
    """The memories most relevant to ``query`` (``budget`` and ``detail`` shape only what is printed)."""
    kind = _kind_filter(kind)  # checked before the store is opened
    return session.store().recall(
        query,
        repo=session.repo(repo),
        cross_repo=all_repos,
        kind=kind,
        limit=limit,
        profile=session.profile(profile),
        task_id=_task(task_id),
    )


def run_save(
    session: Session, content: str, topic: str, kind: str, repo: str | None, task_id: str, redact: bool = False
) -> tuple[Memory, TextMatch]:
    """A new advisory memory, its provenance the session's (a secret refused, or redacted with ``redact``), and
    what its text matched (a duplicate stores nothing and gives the existing memory)."""
    return session.store().save_checked(
        content,
        kind=kind,
        topic=topic,
        repo_id=session.repo(repo),
        task_id=task_id,
        source=session.source,
        detail=session.detail,
        secrets_policy=policy_for(redact),
    )


def run_list(
    session: Session, status: str, all_repos: bool, repo: str | None, limit: int, kind: str | None
) -> list[Memory]:
    """Memories newest first: of ``repo`` exactly, or the active repo plus global, or every repo."""
    kind = _kind_filter(kind)
    return session.store().list(
        status=status,
        repo_id=None if all_repos else session.repo(repo),
        kind=kind,
        limit=limit,
        include_global=repo is None,
    )


def run_show(session: Session, memory_id: int) -> MemoryDetail:
    return session.store().detail(memory_id)


def run_dismiss(session: Session, ids: list[int]) -> StatusChange:
    return session.store().dismiss(ids)


def run_restore(session: Session, ids: list[int]) -> StatusChange:
    return session.store().restore(ids)


def run_supersede(
    session: Session, memory_id: int, content: str, topic: str | None, kind: str | None, redact: bool = False
) -> tuple[Memory, TextMatch]:
    """The new memory that supersedes ``memory_id`` (its text screened for secrets as ``save`` does), and what
    the text matched (a duplicate changes nothing)."""
    return session.store().supersede_checked(
        memory_id,
        content,
        topic=topic,
        kind=kind,
        source=session.source,
        detail=session.detail,
        secrets_policy=policy_for(redact),
    )


RECALL = Operation(
    tool="recall",
    command=("recall",),
    title="Recall memories",
    summary="search memories, best match first",
    effect=Effect.READ,
    run=run_recall,
    to_json=recall_document,
    mcp_json=lambda results, values: recall_document(results, values, compact_json),
    details="The memories most relevant to `query` by the hybrid ranking, each with its score. `detail` adds "
    "every field, the score components and the reasons (as `mneme recall --json`). With `budget`: "
    '{"results": [...], "budget": {"tokens", "left_out", "needed"}}.',
    params=(
        Param(
            "query",
            TEXT,
            "what you want to know, in words (an error text, a file, a topic)",
            metavar="QUERY",
            required=True,
        ),
        Param(
            "all_repos",
            BOOL,
            "search every repository, without the locality boost",
            flags=("-A", "--cross-repo"),
            default=False,
            dest="cross_repo",
        ),
        _repo("repository to search", "the active repo"),
        _limit(5, "result limit"),
        _kind("only this kind", ALL_KINDS),
        Param(
            "profile",
            TEXT,
            "ranking profile",
            flags=("--profile",),
            choices=PROFILE_NAMES,
            checked_by="operation",
            default_note="$MNEME_PROFILE, the config file's `profile`, or bm25",
        ),
        BUDGET,
        Param(
            "task_id",
            TEXT,
            "the task you work on: each memory returned is reinforced once for it",
            surfaces=frozenset({MCP}),
        ),
        Param(
            "detail",
            BOOL,
            "every field, the score components and why each memory is in the list",
            default=False,
            surfaces=frozenset({MCP}),
        ),
    ),
)

SAVE = Operation(
    tool="save",
    command=("save",),
    title="Save a memory",
    summary="save an advisory memory",
    effect=Effect.ADD,
    run=run_save,
    to_json=lambda saved, values: saved_json(saved),
    mcp_json=lambda saved, values: save_echo(saved),
    details="One self-contained lesson, decision or fact. Pitfalls, patterns and other statutory kinds are "
    "minted only by `task_sync` of a verified report. Returns the new id and the start of the text; "
    "a text already stored (after normalising) is not stored again: `duplicate_of` names that memory, "
    "and `near_duplicate` one nearly the same.",
    params=(
        Param("content", TEXT, "the memory text (markdown)", metavar="CONTENT", required=True, reads_stdin=True),
        Param("topic", TEXT, "topic category", flags=("--topic",), default="General", default_note="General"),
        _kind("advisory kind", ADVISORY_KINDS, default="reflection", note="reflection"),
        _repo("repository scope", "the active repo; 'global' for everyone"),
        Param(
            "task_id", TEXT, "linked task key, e.g. INT-734", flags=("--task",), metavar="ID", default="", dest="task"
        ),
        REDACT_PARAM,
    ),
)

LIST = Operation(
    tool="list",
    command=("list",),
    title="List memories",
    summary="list memories, active ones by default",
    effect=Effect.READ,
    run=run_list,
    to_json=lambda memories, values: memory_list_json(memories),
    details="Newest first.",
    params=(
        Param(
            "status",
            TEXT,
            "memories in this status",
            flags=("--status",),
            default="active",
            default_note="active",
            choices=(*STATUSES, "all"),
            checked_by="operation",
        ),
        Param("all_repos", BOOL, "memories of every repository", flags=("-A", "--all"), default=False),
        _repo("repository to list", "the active repo, plus global"),
        _limit(20, "max results"),
        _kind("only this kind", ALL_KINDS),
    ),
)

_ID = Param("memory_id", MEMORY_ID, "the memory's id", metavar="ID", required=True, dest="id")

SHOW = Operation(
    tool="show",
    command=("show",),
    title="Show a memory",
    summary="one memory with all its fields, audit history and supersessions",
    effect=Effect.READ,
    run=run_show,
    past="shown",
    details="Also what supersedes it and what it superseded, the tasks that read it and every status change "
    "(from, to, when, why, by whom).",
    params=(_ID,),
)


def _ids(help_text: str) -> Param:
    return Param("ids", MEMORY_IDS, help_text, metavar="ID", required=True)


DISMISS = Operation(
    tool="dismiss",
    command=("dismiss",),
    title="Dismiss memories",
    summary="tombstone memories; nothing is deleted",
    effect=Effect.CHANGE,
    past="dismissed",
    run=run_dismiss,
    to_json=lambda change, values: change.to_json("dismissed", values["ids"]),
    details="For memories that are wrong or obsolete (audited; `restore` brings them back). Every id is checked "
    'first: one unknown id changes nothing. Returns {"dismissed": [...], "unchanged": [...]}.',
    params=(_ids("ids of the memories to tombstone"),),
)

RESTORE = Operation(
    tool="restore",
    command=("restore",),
    title="Restore memories",
    summary="bring tombstoned or superseded memories back to active",
    effect=Effect.CHANGE,
    past="restored",
    run=run_restore,
    to_json=lambda change, values: change.to_json("restored", values["ids"]),
    details="Audited; already active ones are left as they are. Every id is checked first. "
    'Returns {"restored": [...], "unchanged": [...]}.',
    params=(_ids("ids of the memories to make active again"),),
)

SUPERSEDE = Operation(
    tool="supersede",
    command=("supersede",),
    title="Correct a memory",
    summary="replace a memory's text: saves a new memory, the old one becomes superseded",
    effect=Effect.REPLACE,
    past="superseded",
    run=run_supersede,
    to_json=lambda saved, values: superseded_json(values["memory_id"], saved),
    details="The new memory keeps the old one's repo, task, topic and kind unless given; nothing is overwritten. "
    "Only active advisory memories: dismiss a pitfall or pattern instead. "
    'Returns {"superseded": old id, "memory": the new memory}; a text already stored changes nothing '
    "(`superseded` null, `duplicate_of` that memory).",
    params=(
        _ID,
        Param("content", TEXT, "the new text", metavar="CONTENT", required=True, reads_stdin=True),
        Param("topic", TEXT, "the new memory's topic", flags=("--topic",), default_note="the old one's"),
        _kind("the new memory's advisory kind", ADVISORY_KINDS, note="the old one's"),
        REDACT_PARAM,
    ),
)

MEMORY_OPERATIONS = (RECALL, SAVE, LIST, SHOW, DISMISS, RESTORE, SUPERSEDE)
