"""The learning tools: ``handshake`` and ``task_sync`` (:mod:`mneme_tui.operations.learning`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mneme_tui.display import compact_json
from mneme_tui.mcp.context import Call
from mneme_tui.memory.learning.orientation import orientation, within_budget
from mneme_tui.memory.learning.scope import relative_to_root
from mneme_tui.memory.learning.task_report import parse_report_text, screened_report
from mneme_tui.memory.learning.tasksync import sync_task
from mneme_tui.memory.secrets import policy_for
from mneme_tui.operations.learning import HANDSHAKE, TASK_SYNC


def handshake(
    call: Call, repo: str | None, task_id: str | None, modified: list[str], limit: int, budget: int | None
) -> Any:
    ctx = call.ctx
    task = task_id.strip() if task_id and task_id.strip() else None
    view = orientation(
        ctx.store, ctx.repo_of(repo), task, [relative_to_root(path, ctx.root) for path in modified], limit=limit
    )
    if budget is not None:
        view = within_budget(view, budget, lambda cut: compact_json(cut.to_json()))
    return view.to_json()


def task_sync(call: Call, report: dict[str, Any], dry_run: bool, redact: bool) -> Any:
    """Sync the report, its text screened for secrets (refused, or redacted with ``redact``) before anything else."""
    ctx = call.ctx
    screened, _ = screened_report(parse_report_text(json.dumps(report)), policy_for(redact))
    return sync_task(ctx.store, screened, ctx.root, dry_run=dry_run).to_json()


WORK: dict[str, Callable[..., Any]] = {HANDSHAKE.tool: handshake, TASK_SYNC.tool: task_sync}
"""The tools whose CLI commands read otherwise (``--modified`` paths checked as the user's, a report file)."""
