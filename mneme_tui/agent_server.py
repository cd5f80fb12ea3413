"""``mneme mcp``: the store and the Legion memory as Model Context Protocol tools, served over stdio.

Built on the official ``mcp`` SDK (``MCPServer``). One ``Store`` lives as long as the server, so its
index stays warm; every recall refreshes it from the database's revision table first, so writes by other
processes (an agent saving, a person dismissing in the TUI) are seen by the next answer. Each tool
returns the same JSON document the matching CLI command prints with ``--json``; a ``MnemeError`` becomes
a tool error whose text is the CLI's one-line error after the SDK's prefix (``Error executing tool show:
ERR_NOT_FOUND: no memory with id 99``).
stdout belongs to the protocol: the SDK's stdio transport takes it over, and logs go to stderr.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from mneme_tui import __version__, display
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.api import LegionMemory
from mneme_tui.legion.briefing_report import briefing_report
from mneme_tui.legion.recall import KINDS, OUTCOMES, RecallFilters, recall_kind
from mneme_tui.legion.schemas import DECISION_POINTS, OUTCOMES_VALUES, SIGNALS
from mneme_tui.memory import kinds as K
from mneme_tui.memory.curation.proposals import default_root, review_document
from mneme_tui.memory.curation.review import decide_document, pin_document
from mneme_tui.memory.learning.orientation import orientation
from mneme_tui.memory.learning.report import parse_report_text
from mneme_tui.memory.learning.scope import relative_to_root
from mneme_tui.memory.learning.tasksync import sync_task
from mneme_tui.memory.records import MCP
from mneme_tui.memory.store import Store
from mneme_tui.validation import check_document, check_text

ProposalKind = Literal["duplicate", "conflict", "stale", "cold"]
ReviewDecision = Literal["accept", "reject", "undo"]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DECIDES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
IDEMPOTENT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

INSTRUCTIONS = (
    "mneme is long-lived memory for coding work: reflections, decisions, learned pitfalls and verified "
    "patterns, ranked for a question without any model. Call `handshake` when a task starts, `recall` "
    "before changing unfamiliar code, and `save` when you learn something the next session should know."
)


@dataclass
class ServerContext:
    """What every tool works on: the store, the active repo, the repository root and the Legion folder."""

    store: Store
    repo: str
    profile: str
    root: Path
    legion_dir: Path

    def legion(self) -> LegionMemory:
        return LegionMemory(self.legion_dir)


def dumps(document: Any) -> str:
    """The tool result text: the JSON the CLI's ``--json`` prints."""
    return display.json_document(document)


def _answer(work: Callable[[], Any], **arguments: Any) -> str:
    """Check the tool's ``arguments`` are valid text (JSON can carry lone surrogates), then run its body; a
    MnemeError becomes a one-line tool error: its code word and message, as the CLI prints them."""
    try:
        for name, value in arguments.items():
            check_document(value, name)
        return dumps(work())
    except MnemeError as exc:
        raise ToolError(display.printable(str(exc))) from None


def client_name(context: Context) -> str:
    """The client's name from its MCP initialize request ("" when it gave none): a memory's provenance detail."""
    params = context.session.client_params
    return check_text(params.client_info.name, "client name") if params is not None else ""


def _legion_kind(kind: str, filters: RecallFilters) -> str:
    """``kind`` checked to be a record type that has every filter given."""
    if kind not in KINDS:
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown record type {kind!r} (valid: {', '.join(KINDS)})")
    misapplied = filters.misapplied(kind)
    if misapplied:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{', '.join(misapplied)} does not apply to {kind}")
    return kind


def _kind(kind: str | None) -> str | None:
    return None if kind is None else K.validate_kind(kind, allow_statutory=True)


Repo = Annotated[str | None, Field(description="repository scope; default: the server's active repo")]
Tags = Annotated[list[str], Field(description="any of these tags")]
Branch = Annotated[str | None, Field(description="branch to record on; default: the current git branch")]
AgentId = Annotated[str, Field(description="the agent id")]


def serve(ctx: ServerContext) -> None:
    """Serve over stdio until the client closes stdin; the index loads in the background meanwhile."""
    threading.Thread(target=_warm, args=(ctx.store,), name="mneme-index", daemon=True).start()
    build_server(ctx).run("stdio")


def _warm(store: Store) -> None:
    try:
        store.refresh_index()
    except MnemeError as exc:  # the first tool call meets the same error and reports it
        logging.getLogger("mneme_tui.agent_server").warning("mneme: %s", exc)


def build_server(ctx: ServerContext) -> MCPServer:
    """The MCP server with every mneme tool registered on ``ctx``."""
    server: MCPServer = MCPServer("mneme", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    store = ctx.store

    def repo_of(repo: str | None) -> str:
        return repo.strip() if repo and repo.strip() else ctx.repo

    @server.tool(structured_output=False)
    def recall(
        query: Annotated[str, Field(description="what you want to know, in words (an error text, a file, a topic)")],
        limit: Annotated[int, Field(ge=1, description="at most this many memories")] = 5,
        kind: Annotated[str | None, Field(description=f"only this kind: {', '.join(K.ALL_KINDS)}")] = None,
        all_repos: Annotated[bool, Field(description="search every repository, without the locality boost")] = False,
        repo: Repo = None,
        profile: Annotated[
            str | None, Field(description="ranking profile (spec, bm25, ...); default: the server's")
        ] = None,
        task_id: Annotated[
            str | None, Field(description="the task you work on: each memory returned is reinforced once for it")
        ] = None,
    ) -> str:
        """Search the memory with the hybrid ranking: the memories most relevant to `query`, best first, each
        with its score, score components and why it is in the list. Same JSON as `mneme recall --json`."""
        return _answer(lambda: [r.to_json() for r in store.recall(
            query, repo=repo_of(repo), cross_repo=all_repos, kind=_kind(kind), limit=limit,
            profile=profile or ctx.profile, task_id=task_id.strip() if task_id and task_id.strip() else None)],
            query=query, kind=kind, repo=repo, profile=profile, task_id=task_id)

    @server.tool(structured_output=False)
    def save(
        content: Annotated[
            str, Field(description="the memory: one self-contained lesson, decision or fact (markdown)")
        ],
        kind: Annotated[str, Field(description=f"advisory kind: {', '.join(K.ADVISORY_KINDS)}")] = "reflection",
        topic: Annotated[str, Field(description="a short topic, e.g. Architecture or Testing")] = "General",
        repo: Annotated[
            str | None, Field(description="repository scope; 'global' for every repo; default: the active repo")
        ] = None,
        task_id: Annotated[str, Field(description="the task this came from, e.g. INT-734")] = "",
        context: Context | None = None,
    ) -> str:
        """Save an advisory memory and return it (`mneme save --json`). Pitfalls, patterns and other statutory
        kinds are minted only by `task_sync` of a verified report; asking for one fails with ERR_VALIDATION_FAILED."""
        def saved() -> dict[str, object]:
            memory, match = store.save_checked(content, kind=kind, topic=topic, repo_id=repo_of(repo),
                                               task_id=task_id, source=MCP,
                                               detail=client_name(context) if context is not None else "")
            return match.saved_json(memory)

        return _answer(saved, content=content, kind=kind, topic=topic, repo=repo, task_id=task_id)

    @server.tool(name="list", structured_output=False)
    def list_memories(
        status: Annotated[str, Field(description=f"{', '.join(K.STATUSES)} or all")] = "active",
        kind: Annotated[str | None, Field(description="only this kind")] = None,
        repo: Annotated[
            str | None, Field(description="exactly this repository; default: the active repo plus global")
        ] = None,
        all_repos: Annotated[bool, Field(description="memories of every repository")] = False,
        limit: Annotated[int, Field(ge=1, description="at most this many")] = 20,
    ) -> str:
        """List memories, newest first (`mneme list --json`)."""
        return _answer(lambda: [m.to_json() for m in store.list(
            status=status, repo_id=None if all_repos else repo_of(repo), kind=_kind(kind), limit=limit,
            include_global=repo is None)], status=status, kind=kind, repo=repo)

    @server.tool(structured_output=False)
    def show(memory_id: Annotated[int, Field(description="the memory's id")]) -> str:
        """One memory with every field, what supersedes it and what it superseded, the tasks that read it and
        its audit history (every status change: from, to, when, why): `mneme show --json`."""
        return _answer(lambda: store.detail(memory_id).to_json())

    @server.tool(structured_output=False)
    def dismiss(ids: Annotated[list[int], Field(min_length=1, description="ids of the memories to tombstone")]) -> str:
        """Tombstone memories that are wrong or obsolete (audited; nothing is deleted). Every id is checked
        first: one unknown id changes nothing. Returns {"dismissed": [...], "unchanged": [...]}."""
        return _answer(lambda: store.dismiss(ids).to_json("dismissed", ids))

    @server.tool(structured_output=False)
    def restore(
        ids: Annotated[list[int], Field(min_length=1, description="ids of the memories to make active again")],
    ) -> str:
        """Bring tombstoned or superseded memories back to active (audited); already active ones are left as
        they are. Every id is checked first. Returns {"restored": [...], "unchanged": [...]} (`mneme restore
        --json`)."""
        return _answer(lambda: store.restore(ids).to_json("restored", ids))

    @server.tool(structured_output=False)
    def supersede(
        memory_id: Annotated[int, Field(description="the id of the active advisory memory to replace")],
        content: Annotated[str, Field(description="the new text of the memory")],
        topic: Annotated[str | None, Field(description="the new memory's topic; default: the old one's")] = None,
        kind: Annotated[
            str | None, Field(description=f"the new memory's advisory kind ({', '.join(K.ADVISORY_KINDS)}); "
                                          "default: the old one's")
        ] = None,
        context: Context | None = None,
    ) -> str:
        """Correct a memory: save a new one with `content` (and the old one's repo, task, topic and kind unless
        given); the old one becomes superseded by it. Nothing is overwritten. Only active advisory memories:
        dismiss a pitfall or pattern instead. Returns {"superseded": old id, "memory": the new memory}
        (`mneme supersede --json`)."""
        def superseded() -> dict[str, object]:
            memory, match = store.supersede_checked(memory_id, content, topic=topic, kind=kind, source=MCP,
                                                    detail=client_name(context) if context is not None else "")
            return match.superseded_json(memory_id, memory)

        return _answer(superseded, content=content, topic=topic, kind=kind)

    @server.tool(structured_output=False)
    def handshake(
        task_id: Annotated[
            str | None, Field(description="the task starting now: the pitfalls shown are reinforced once for it")
        ] = None,
        modified: Annotated[
            list[str], Field(description="files the task changes, repository-relative")
        ] = [],  # noqa: B006 (a schema default)
        limit: Annotated[int, Field(ge=1, description="at most this many pitfalls, and this many patterns")] = 20,
        repo: Repo = None,
    ) -> str:
        """Orient yourself at the start of a task: learned pitfalls (scoped to the files you will change),
        verified patterns and graduation candidates for this repository (`mneme handshake --json`)."""
        return _answer(lambda: orientation(
            store, repo_of(repo), task_id.strip() if task_id and task_id.strip() else None,
            [relative_to_root(path, ctx.root) for path in modified], limit=limit).to_json(),
            task_id=task_id, modified=modified, repo=repo)

    @server.tool(structured_output=False, annotations=READ_ONLY)
    def review(
        kinds: Annotated[list[ProposalKind], Field(description="only these kinds; default: every kind")] = [],  # noqa: B006
        limit: Annotated[int | None, Field(ge=1, description="at most this many proposals")] = None,
        all_repos: Annotated[bool, Field(description="proposals of every repository")] = False,
        repo: Repo = None,
    ) -> str:
        """What curation proposes, best first: duplicates to merge, conflicts to supersede, stale memories (their
        code is gone from the work tree) to re-check, cold ones to dismiss; each with its evidence. Decide
        with `review_decide` (`mneme review --json`)."""
        wanted = None if all_repos else repo_of(repo)
        return _answer(lambda: review_document(store, wanted, kinds=frozenset(kinds) or None, limit=limit,
                                               root=default_root(wanted, ctx.repo, ctx.root)), repo=repo)

    @server.tool(structured_output=False, annotations=DECIDES)
    def review_decide(
        proposals: Annotated[list[str], Field(min_length=1, description="proposal ids from `review`")],
        decision: Annotated[ReviewDecision, Field(description="accept (run the action), reject (never propose "
                                                              "again while unchanged) or undo the last decision")],
    ) -> str:
        """Accept, reject or undo proposals, all or nothing; accepting supersedes or dismisses through the
        audited store operations (`mneme review accept|reject|undo --json`)."""
        return _answer(lambda: decide_document(store, proposals, decision, root=default_root(None, ctx.repo, ctx.root)),
                       proposals=proposals)

    @server.tool(structured_output=False, annotations=IDEMPOTENT)
    def pin(ids: Annotated[list[int], Field(min_length=1, description="ids of the memories to pin")]) -> str:
        """Pin memories: never proposed as cold, listed first in the handshake (`mneme pin --json`)."""
        return _answer(lambda: pin_document(store, ids, pin=True))

    @server.tool(structured_output=False, annotations=IDEMPOTENT)
    def unpin(ids: Annotated[list[int], Field(min_length=1, description="ids of the memories to unpin")]) -> str:
        """Unpin memories (`mneme unpin --json`)."""
        return _answer(lambda: pin_document(store, ids, pin=False))

    @server.tool(structured_output=False)
    def task_sync(
        report: Annotated[
            dict[str, Any], Field(description="the task's verification report: the JSON object `mneme task sync` reads")
        ],
        dry_run: Annotated[bool, Field(description="show what would be written; write nothing")] = False,
    ) -> str:
        """Learn from a verified task: mint its pitfalls and pattern (`mneme task sync --json`). A report that
        is not verified writes nothing; the result then has `verified: false` and the reason."""

        return _answer(lambda: sync_task(
            store, parse_report_text(json.dumps(report)), ctx.root, dry_run=dry_run).to_json(), report=report)

    @server.tool(structured_output=False)
    def legion_briefing() -> str:
        """The Legion session briefing of this project (.planning/memory): recent outcomes, top agents,
        totals and Claude Code's MEMORY.md excerpt (`mneme legion briefing --json`)."""
        return _answer(lambda: briefing_report(ctx.legion()).to_json())

    @server.tool(structured_output=False)
    def legion_recall(
        kind: Annotated[str, Field(description=f"the record type: {' | '.join(KINDS)}")] = OUTCOMES,
        query: Annotated[str, Field(description="errors only: the error text, matched by key terms")] = "",
        tags: Tags = [],  # noqa: B006 (a schema default)
        agent: Annotated[str | None, Field(description="only this agent (outcomes; preferences: adds its "
                                                       "preference boost)")] = None,
        task_type: Annotated[str | None, Field(description="only this task type (outcomes)")] = None,
        signal: Annotated[str | None, Field(description=f"only this signal (preferences): all | {' | '.join(SIGNALS)}")]
        = None,
        decision_point: Annotated[
            str | None,
            Field(description=f"only this decision point (preferences): all | {' | '.join(DECISION_POINTS)}"),
        ] = None,
        include_superseded: Annotated[
            bool | None, Field(description="keep preferences marked (SUPERSEDED by ...) (preferences)")
        ] = None,
        branch: Annotated[str, Field(description="a branch name, 'current' or 'all'")] = "all",
        limit: Annotated[
            int | None, Field(ge=1, description="at most this many; default: outcomes 20, patterns 10, errors 5, "
                                                "preferences 10")
        ] = None,
    ) -> str:
        """Recall Legion records of one type from .planning/memory: task outcomes (decay-scored), patterns that
        worked, errors and their fixes (best match for `query` first), or user preference signals (newest first).
        Same JSON as `mneme legion recall KIND --json`; a filter the type does not have is ERR_VALIDATION_FAILED."""
        filters = RecallFilters(query=query.strip(), tags=tags, branch=branch.strip() or "all", limit=limit,
                                agent=agent, task_type=task_type, signal=signal, decision_point=decision_point,
                                include_superseded=include_superseded)
        return _answer(lambda: recall_kind(ctx.legion(), _legion_kind(kind, filters), filters).document,
                       kind=kind, query=query, tags=tags, agent=agent, task_type=task_type, signal=signal,
                       decision_point=decision_point, branch=branch)

    @server.tool(structured_output=False)
    def legion_record_outcome(
        agent: AgentId,
        outcome: Annotated[str, Field(description=" | ".join(OUTCOMES_VALUES))],
        summary: Annotated[str, Field(description="one-line summary of what happened")],
        phase: Annotated[str, Field(description="phase number")] = "",
        plan: Annotated[str, Field(description="plan id, e.g. 05-01")] = "",
        task_type: Annotated[str | None, Field(description="task type; default: from CATALOG.md, else general")] = None,
        importance: Annotated[int | None, Field(description="1-5; default: scored from the outcome")] = None,
        review_escalated: Annotated[bool, Field(description="the review escalated (importance 4)")] = False,
        review_cycles: Annotated[int, Field(ge=0, description="review cycles needed")] = 0,
        review_blockers: Annotated[int, Field(ge=0, description="blockers the review found")] = 0,
        trivial: Annotated[bool, Field(description="a trivial task (importance 1)")] = False,
        cross_division: Annotated[
            bool | None, Field(description="the agent worked outside its division; default: from CATALOG.md")
        ] = None,
        tags: Tags = [],  # noqa: B006 (a schema default)
        branch: Branch = None,
    ) -> str:
        """Append a task outcome to OUTCOMES.md (`mneme legion record outcome --json`)."""
        return _answer(lambda: ctx.legion().record_outcome(
            agent=agent, outcome=outcome, summary=summary, phase=phase, plan=plan, task_type=task_type,
            importance=importance, review_escalated=review_escalated, review_cycles=review_cycles,
            review_blockers=review_blockers, trivial=trivial, cross_division=cross_division, tags=tags,
            branch=branch).to_json(),
            agent=agent, outcome=outcome, summary=summary, phase=phase, plan=plan, task_type=task_type, tags=tags,
            branch=branch)

    @server.tool(structured_output=False)
    def legion_record_pattern(
        pattern: Annotated[str, Field(description="what worked")],
        context: Annotated[str, Field(description="where it worked")] = "",
        reuse_criteria: Annotated[str, Field(description="when to reuse it")] = "",
        source: Annotated[str, Field(description="source outcome id, e.g. O-012")] = "",
        tags: Tags = [],  # noqa: B006 (a schema default)
        branch: Branch = None,
    ) -> str:
        """Append a pattern that worked to PATTERNS.md (`mneme legion record pattern --json`)."""
        return _answer(lambda: ctx.legion().record_pattern(
            pattern=pattern, context=context, reuse_criteria=reuse_criteria, source=source, tags=tags,
            branch=branch).to_json(),
            pattern=pattern, context=context, reuse_criteria=reuse_criteria, source=source, tags=tags, branch=branch)

    @server.tool(structured_output=False)
    def legion_record_error(
        error_signature: Annotated[str, Field(description="the error text")],
        fix: Annotated[str, Field(description="the fix")],
        agent: AgentId = "",
        resolved: Annotated[bool, Field(description="false when the fix did not resolve it yet")] = True,
        tags: Tags = [],  # noqa: B006 (a schema default)
        branch: Branch = None,
    ) -> str:
        """Record an error and its fix in ERRORS.md; a known resolved error is not duplicated
        (`mneme legion record error --json`)."""
        return _answer(lambda: ctx.legion().record_error(
            error_signature=error_signature, fix=fix, agent=agent, resolved=resolved, tags=tags,
            branch=branch).to_json(),
            error_signature=error_signature, fix=fix, agent=agent, tags=tags, branch=branch)

    @server.tool(structured_output=False)
    def legion_record_preference(
        decision_point: Annotated[str, Field(description=" | ".join(DECISION_POINTS))],
        context: Annotated[str, Field(description="what was being decided")],
        signal: Annotated[str, Field(description=" | ".join(SIGNALS))],
        proposed: Annotated[str, Field(description="what the agent proposed")] = "",
        user_choice: Annotated[str, Field(description="what the user chose")] = "",
        agent: AgentId = "system",
        tags: Tags = [],  # noqa: B006 (a schema default)
        branch: Branch = None,
    ) -> str:
        """Append a user preference signal to PREFERENCES.md (`mneme legion record preference --json`)."""
        return _answer(lambda: ctx.legion().record_preference(
            decision_point=decision_point, context=context, proposed=proposed, user_choice=user_choice,
            signal=signal, agent=agent, tags=tags, branch=branch).to_json(),
            decision_point=decision_point, context=context, proposed=proposed, user_choice=user_choice, signal=signal,
            agent=agent, tags=tags, branch=branch)

    return server
