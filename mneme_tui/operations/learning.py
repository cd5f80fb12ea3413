"""The learning operations: ``handshake`` (orientation at the start of a task) and ``task sync`` (minting
pitfalls and a pattern from a verified report, spec §4.2), declared once for the CLI and the MCP server."""

from __future__ import annotations

from mneme_tui.operations.declaration import (
    BOOL,
    CLI,
    INT,
    MCP,
    OBJECT,
    REDACT_PARAM,
    TEXT,
    TEXT_LIST,
    Effect,
    Operation,
    Param,
)
from mneme_tui.operations.memory import BUDGET

HANDSHAKE = Operation(
    tool="handshake",
    command=("handshake",),
    title="Orient at the start of a task",
    summary="orient an agent: learned pitfalls, verified patterns, graduation candidates",
    effect=Effect.READ,
    details="The pitfalls are scoped to the files the task changes; call it when a task starts.",
    params=(
        Param(
            "repo",
            TEXT,
            "repository",
            flags=("-p", "--project"),
            metavar="REPO",
            default_note="the active repo",
            dest="project",
        ),
        Param(
            "task_id",
            TEXT,
            "the task starting now: pitfalls shown are reinforced once for it",
            flags=("--task",),
            metavar="ID",
            dest="task",
        ),
        Param(
            "modified",
            TEXT_LIST,
            "files the task changes (repository-relative); keeps old one-off pitfalls in their scope",
            flags=("--modified",),
            metavar="FILE",
            default=(),
        ),
        Param(
            "limit",
            INT,
            "at most this many pitfalls, and this many patterns",
            flags=("-n", "--limit"),
            default=20,
            default_note="20",
            minimum=1,
        ),
        BUDGET,
    ),
)

TASK_SYNC = Operation(
    tool="task_sync",
    command=("task", "sync"),
    title="Learn from a verified task",
    summary="mint pitfalls and a pattern from a verified task report (two-phase)",
    effect=Effect.ADD_ONCE,
    details="A report that is not verified writes nothing; the result then has `verified: false` and the reason. "
    "A report synced before adds nothing.",
    params=(
        Param(
            "report",
            TEXT,
            "the task's verification report",
            metavar="REPORT.json",
            required=True,
            reads_stdin=True,
            surfaces=frozenset({CLI}),
        ),
        Param(
            "report",
            OBJECT,
            "the task's verification report: the JSON object `mneme task sync` reads",
            required=True,
            surfaces=frozenset({MCP}),
        ),
        Param("dry_run", BOOL, "show what would be written; write nothing", flags=("--dry-run",), default=False),
        REDACT_PARAM,
    ),
)

LEARNING_OPERATIONS = (HANDSHAKE, TASK_SYNC)
