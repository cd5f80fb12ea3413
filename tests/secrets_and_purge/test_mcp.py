"""MCP: a secret is a tool error by default (never echoed), ``redact`` stores it redacted (save, supersede,
task_sync and the Legion records), ``purge`` is a destructive tool; driven by the SDK's client against the real ``mneme mcp`` process."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from mneme_tui.memory.purge import PURGED
from secrets_and_purge.corpus import SECRETS

AWS = SECRETS["aws-key"]
KEY = next(word for word in AWS.split() if word.startswith("AKIA"))


@asynccontextmanager
async def _server(work: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mneme_tui", "mcp", "--db", str(work / "mneme.db"), "--legion-dir", str(work / "memory")],
        env=dict(os.environ, MNEME_REPO="acme"),
        cwd=work,
    )
    with (work / "server.err").open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def _call(session: ClientSession, tool: str, **arguments: Any) -> tuple[bool, str]:
    result = await session.call_tool(tool, arguments)
    return result.is_error, result.content[0].text


async def test_secrets_are_tool_errors_or_redacted_and_purge_is_destructive(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def main():\n    pass\n")
    async with _server(tmp_path) as session:
        failed, text = await _call(session, "save", content=AWS)
        assert failed and "ERR_SECRET: looks like an AWS access key (line 1, column" in text and KEY not in text
        failed, text = await _call(session, "legion_record_pattern", pattern=AWS, branch="main")
        assert failed and "ERR_SECRET: pattern: looks like an AWS" in text and KEY not in text

        failed, text = await _call(session, "legion_record_pattern", pattern=AWS, branch="main", redact=True)
        assert not failed and KEY not in text + (tmp_path / "memory" / "PATTERNS.md").read_text()

        failed, text = await _call(session, "save", content=AWS, redact=True)
        assert not failed and KEY not in text  # the answer echoes the start of the text: redacted
        memory_id = json.loads(text)["id"]
        failed, text = await _call(session, "show", memory_id=memory_id)
        assert "[REDACTED:aws-key]" in json.loads(text)["memory"]["content"] and KEY not in text
        failed, text = await _call(session, "supersede", memory_id=memory_id, content="v2 " + AWS)
        assert failed and KEY not in text

        gate = {"name": "Cognitive Complexity", "file": "src/app.py"}
        report = {
            "task_id": "INT-9",
            "repo": "acme",
            "modified_files": ["src/app.py"],
            "walkthrough": "split " + AWS,
            "runs": [
                {"gates": [{**gate, "passed": False, "message": "over"}]},
                {"gates": [{**gate, "passed": True, "message": "ok"}]},
            ],
        }
        failed, text = await _call(session, "task_sync", report=report)
        assert failed and "ERR_SECRET: walkthrough: looks like an AWS" in text and KEY not in text
        failed, text = await _call(session, "task_sync", report=report, redact=True)
        assert not failed and json.loads(text)["verified"] and KEY not in text

        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        annotations = tools["purge"].annotations
        assert annotations is not None and annotations.destructive_hint and not annotations.read_only_hint
        failed, text = await _call(session, "purge", ids=[memory_id], reason="leaked key")
        assert not failed and json.loads(text)["purged"][0]["id"] == memory_id
        failed, text = await _call(session, "show", memory_id=memory_id)
        assert json.loads(text)["memory"]["content"] == PURGED
    assert KEY not in (tmp_path / "server.err").read_text()
