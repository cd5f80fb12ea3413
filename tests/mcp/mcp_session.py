"""What the MCP tests share: a live ``mneme mcp`` on a workspace driven by the SDK's own stdio client, its
tool results and errors, and what the in-process CLI prints on the same database."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import Implementation

from mneme_tui.cli import main as cli_main

T = TypeVar("T")

REPO = "acme"
CLIENT = Implementation(name="mneme-tests", version="1")
TOOLS = {
    "recall",
    "save",
    "list",
    "show",
    "dismiss",
    "restore",
    "supersede",
    "handshake",
    "task_sync",
    "legion_briefing",
    "legion_recall",
    "legion_record_outcome",
    "legion_record_pattern",
    "legion_record_error",
    "legion_record_preference",
    "purge",
    "review",
    "review_decide",
    "pin",
    "unpin",
}


def db(work: Path) -> Path:
    return work / "mneme.db"


def legion_dir(work: Path) -> Path:
    return work / ".planning" / "memory"


def cli_json(capsys: pytest.CaptureFixture[str], work: Path, *argv: str) -> Any:
    """``mneme ARGV --json --db …`` in-process: the parsed JSON it prints."""
    capsys.readouterr()
    code = cli_main([*argv, "--json", "--db", str(db(work))])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def make_workspace(work: Path) -> Path:
    """``work`` as a working folder outside git with a source file (the database will be ``mneme.db`` in it)."""
    (work / "src").mkdir(parents=True)
    (work / "src" / "store.py").write_text("class Store:\n    def save(self):\n        return 1\n")
    return work


@asynccontextmanager
async def server(work: Path, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """A live ``python -m mneme_tui mcp`` on the workspace's database, in ``env`` (default: this test's
    environment), with an initialised session."""
    async with server_with(work, ["--db", str(db(work)), "--legion-dir", str(legion_dir(work))], env) as session:
        yield session


@asynccontextmanager
async def server_with(
    work: Path, options: list[str], env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """A live ``python -m mneme_tui mcp OPTIONS`` in ``work``, in ``env`` (default: this test's environment), with
    an initialised session; its stderr goes to ``work/server.err``."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mneme_tui", "mcp", *options],
        env=dict(os.environ) if env is None else env,
        cwd=work,
    )
    with (work / "server.err").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, client_info=CLIENT) as session,
        ):
            await session.initialize()
            yield session


@asynccontextmanager
async def in_own_task(context: AbstractAsyncContextManager[T]) -> AsyncIterator[T]:
    """``context`` entered and left by a task of its own: the SDK's client must leave its cancel scopes in the
    task that entered them, and a session-scoped fixture's setup and teardown run in two different tasks."""
    entered: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    leave = asyncio.Event()

    async def hold() -> None:
        try:
            async with context as value:
                entered.set_result(value)
                await leave.wait()
        except BaseException as failure:
            if not entered.done():
                entered.set_exception(failure)
            raise

    task = asyncio.create_task(hold())
    try:
        yield await entered
    finally:
        leave.set()
        await task


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    """A tool's JSON result (the call must succeed)."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def error(session: ClientSession, tool: str, **arguments: Any) -> str:
    """A tool error's text (the call must fail as a tool error, not kill the server)."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.content
    text = result.content[0].text
    assert "Traceback" not in text and "\n" not in text
    return text


def cli_error(capsys: pytest.CaptureFixture[str], work: Path, *argv: str) -> str:
    """The one-line error ``mneme ARGV`` prints (exit 1), without its ``mneme: `` prefix."""
    capsys.readouterr()
    assert cli_main([*argv, "--db", str(db(work))]) == 1, argv
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("mneme: ") and captured.err.count("\n") == 1
    return captured.err.removeprefix("mneme: ").rstrip("\n")
