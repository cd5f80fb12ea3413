"""The memory tools: recall, save, list, show, dismiss, restore and supersede, each the store call of its
declared operation (:mod:`mneme_tui.operations.memory`) on the server's store."""

from __future__ import annotations

from typing import Any

from mneme_tui.mcp.context import Call
from mneme_tui.memory import kinds as K
from mneme_tui.memory.records import MCP as MCP_SOURCE
from mneme_tui.operations import memory as ops
from mneme_tui.operations.memory import recall_json, save_echo


def _kind(kind: str | None) -> str | None:
    return None if kind is None else K.validate_kind(kind, allow_statutory=True)


def _task(task_id: str | None) -> str | None:
    return task_id.strip() if task_id and task_id.strip() else None


def recall(call: Call, query: str, all_repos: bool, repo: str | None, limit: int, kind: str | None,
           profile: str | None, task_id: str | None, detail: bool) -> Any:
    ctx = call.ctx
    results = ctx.store.recall(query, repo=ctx.repo_of(repo), cross_repo=all_repos, kind=_kind(kind), limit=limit,
                               profile=profile or ctx.profile, task_id=_task(task_id))
    return recall_json(results, detail)


def save(call: Call, content: str, topic: str, kind: str, repo: str | None, task_id: str) -> Any:
    memory = call.ctx.store.save(content, kind=kind, topic=topic, repo_id=call.ctx.repo_of(repo), task_id=task_id,
                                 source=MCP_SOURCE, detail=call.client)
    return save_echo(memory)


def list_memories(call: Call, status: str, all_repos: bool, repo: str | None, limit: int, kind: str | None) -> Any:
    ctx = call.ctx
    memories = ctx.store.list(status=status, repo_id=None if all_repos else ctx.repo_of(repo), kind=_kind(kind),
                              limit=limit, include_global=repo is None)
    return ops.memory_list_json(memories)


def show(call: Call, memory_id: int) -> Any:
    return ops.SHOW.to_json(call.ctx.store.detail(memory_id))


def dismiss(call: Call, ids: list[int]) -> Any:
    return ops.DISMISS.to_json(call.ctx.store.dismiss(ids), ids)


def restore(call: Call, ids: list[int]) -> Any:
    return ops.RESTORE.to_json(call.ctx.store.restore(ids), ids)


def supersede(call: Call, memory_id: int, content: str, topic: str | None, kind: str | None) -> Any:
    new = call.ctx.store.supersede(memory_id, content, topic=topic, kind=kind, source=MCP_SOURCE, detail=call.client)
    return ops.SUPERSEDE.to_json(memory_id, new)


TOOLS = ((ops.RECALL, recall), (ops.SAVE, save), (ops.LIST, list_memories), (ops.SHOW, show),
         (ops.DISMISS, dismiss), (ops.RESTORE, restore), (ops.SUPERSEDE, supersede))
