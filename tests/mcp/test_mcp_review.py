"""The curation tools of ``mneme mcp`` through the SDK's own stdio client against the real server process:
review, review_decide (accept, reject, undo), pin, unpin and save's duplicate answer, compared with the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
import test_mcp_server
from test_mcp_server import call, cli_json, server

from mneme_tui import agent_server
from mneme_tui.memory.curation.names import DECISIONS, KINDS, UNDO

TEXT = "Snapshot tests need a fixed clock and no blinking cursor."
workspace = test_mcp_server.workspace  # the same working folder fixture


def test_the_tools_enums_are_curations_names() -> None:
    assert get_args(agent_server.ProposalKind) == KINDS
    assert get_args(agent_server.ReviewDecision) == (*DECISIONS, UNDO)


async def test_review_accept_undo_reject_and_pins_answer_like_the_cli(workspace: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    async with server(workspace) as session:
        first = await call(session, "save", content=TEXT)
        again = await call(session, "save", content=TEXT.upper())
        assert again["duplicate_of"] == first["id"] == again["id"]
        near = await call(session, "save", content=TEXT.replace("cursor", "cursor, ever"))
        assert near["near_duplicate"]["id"] == first["id"]
        listed = await call(session, "review")
        assert listed == cli_json(capsys, workspace, "review")
        [proposal] = listed["proposals"]
        assert proposal["kind"] == "duplicate" and proposal["memory_ids"] == [first["id"], near["id"]]
        accepted = await call(session, "review_decide", proposals=[proposal["id"]], decision="accept")
        assert accepted["decisions"][0]["changed"] == [first["id"]]
        assert cli_json(capsys, workspace, "show", str(first["id"]))["memory"]["status"] == "superseded"
        assert (await call(session, "review"))["proposals"] == []
        undone = await call(session, "review_decide", proposals=[proposal["id"]], decision="undo")
        assert undone["decisions"][0]["decision"] == "undone"
        assert cli_json(capsys, workspace, "show", str(first["id"]))["memory"]["status"] == "active"
        await call(session, "review_decide", proposals=[proposal["id"]], decision="reject")
        assert (await call(session, "review"))["proposals"] == [] == cli_json(capsys, workspace, "review")["proposals"]
        refused = await session.call_tool("review_decide", {"proposals": [proposal["id"]], "decision": "accept"})
        assert refused.is_error and "ERR_NOT_FOUND" in refused.content[0].text
        assert await call(session, "pin", ids=[first["id"]]) == {"pinned": [first["id"]], "unchanged": []}
        assert cli_json(capsys, workspace, "pin", str(first["id"])) == {"pinned": [], "unchanged": [first["id"]]}
        assert await call(session, "unpin", ids=[first["id"]]) == {"unpinned": [first["id"]], "unchanged": []}
