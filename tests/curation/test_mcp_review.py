"""The curation tools of ``mneme mcp`` through the SDK's own stdio client against the real server process:
review, review_decide (accept, reject, undo), pin, unpin and save's duplicate answer, compared with the CLI."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, get_args

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from mneme_tui import agent_server
from mneme_tui.cli import main as cli_main
from mneme_tui.memory.curation.names import DECISIONS, KINDS, UNDO

TEXT = "Snapshot tests need a fixed clock and no blinking cursor."


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MNEME_REPO", "acme")
    return tmp_path


def cli(capsys: pytest.CaptureFixture[str], work: Path, *argv: str) -> Any:
    capsys.readouterr()
    assert cli_main([*argv, "--json", "--db", str(work / "mneme.db")]) == 0
    return json.loads(capsys.readouterr().out)


@asynccontextmanager
async def server(work: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mneme_tui", "mcp", "--db",
                                                                 str(work / "mneme.db")], env=dict(os.environ), cwd=work)
    with (work / "server.err").open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def test_the_tools_enums_are_curations_names() -> None:
    assert get_args(agent_server.ProposalKind) == KINDS
    assert get_args(agent_server.ReviewDecision) == (*DECISIONS, UNDO)


async def test_review_accept_undo_reject_and_pins_answer_like_the_cli(work: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    async with server(work) as session:
        first = await call(session, "save", content=TEXT)
        again = await call(session, "save", content=TEXT.upper())
        assert again["duplicate_of"] == first["id"] == again["id"]
        near = await call(session, "save", content=TEXT.replace("cursor", "cursor, ever"))
        assert near["near_duplicate"]["id"] == first["id"]
        listed = await call(session, "review")
        assert listed == cli(capsys, work, "review")
        [proposal] = listed["proposals"]
        assert proposal["kind"] == "duplicate" and proposal["memory_ids"] == [first["id"], near["id"]]
        accepted = await call(session, "review_decide", proposals=[proposal["id"]], decision="accept")
        assert accepted["decisions"][0]["changed"] == [first["id"]]
        assert cli(capsys, work, "show", str(first["id"]))["memory"]["status"] == "superseded"
        assert (await call(session, "review"))["proposals"] == []
        undone = await call(session, "review_decide", proposals=[proposal["id"]], decision="undo")
        assert undone["decisions"][0]["decision"] == "undone"
        assert cli(capsys, work, "show", str(first["id"]))["memory"]["status"] == "active"
        await call(session, "review_decide", proposals=[proposal["id"]], decision="reject")
        assert (await call(session, "review"))["proposals"] == [] == cli(capsys, work, "review")["proposals"]
        refused = await session.call_tool("review_decide", {"proposals": [proposal["id"]], "decision": "accept"})
        assert refused.is_error and "ERR_NOT_FOUND" in refused.content[0].text
        assert await call(session, "pin", ids=[first["id"]]) == {"pinned": [first["id"]], "unchanged": []}
        assert cli(capsys, work, "pin", str(first["id"])) == {"pinned": [], "unchanged": [first["id"]]}
        assert await call(session, "unpin", ids=[first["id"]]) == {"unpinned": [first["id"]], "unchanged": []}
