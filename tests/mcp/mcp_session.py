"""What the MCP tests share: a live ``mneme mcp`` on a workspace driven by the SDK's own stdio client, its
tool results and errors, and what the in-process CLI prints on the same database."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import Implementation

from mneme_tui.cli import main as cli_main

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


@asynccontextmanager
async def server(work: Path) -> AsyncIterator[ClientSession]:
    """A live ``python -m mneme_tui mcp`` on the workspace's database, with an initialised session."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mneme_tui", "mcp", "--db", str(db(work)), "--legion-dir", str(legion_dir(work))],
        env=dict(os.environ),
        cwd=work,
    )
    with (work / "server.err").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, client_info=CLIENT) as session,
        ):
            await session.initialize()
            yield session


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
