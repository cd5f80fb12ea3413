"""The curation tools of ``mneme mcp`` through the SDK's own stdio client against the real server process:
review, review_decide (accept, reject, undo), pin, unpin and save's duplicate answer, compared with the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_session import call, cli_json, server
from secrets_and_purge.corpus import SECRETS

from mneme_tui.mcp.tool_schema import input_schema
from mneme_tui.memory.curation.choices import DECISIONS, KINDS, UNDO
from mneme_tui.operations.curation import PIN, REVIEW, REVIEW_DECIDE, UNPIN

TEXT = "Snapshot tests need a fixed clock and no blinking cursor."


def test_the_tools_enums_and_annotations_are_curations() -> None:
    assert input_schema(REVIEW)["properties"]["kinds"]["items"]["enum"] == list(KINDS)
    assert input_schema(REVIEW_DECIDE)["properties"]["decision"]["enum"] == [*DECISIONS, UNDO]
    assert REVIEW.effect.read_only and not REVIEW_DECIDE.effect.idempotent and not REVIEW_DECIDE.effect.read_only
    assert all(operation.effect.idempotent and not operation.effect.read_only for operation in (PIN, UNPIN))


async def test_review_accept_undo_reject_and_pins_answer_like_the_cli(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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


async def test_save_screens_a_secret_before_its_duplicate_check(workspace: Path) -> None:
    aws = SECRETS["aws-key"]
    async with server(workspace) as session:
        refused = await session.call_tool("save", {"content": f"deploy with {aws}"})
        assert refused.is_error and "ERR_SECRET" in refused.content[0].text
        first = await call(session, "save", content=f"deploy with {aws}", redact=True)
        assert "duplicate_of" not in first and "near_duplicate" not in first
        again = await call(session, "save", content=f"Deploy with {aws}", redact=True)
        assert again["duplicate_of"] == first["id"] == again["id"]
        assert set(again) == {"id", "kind", "repo_id", "topic", "echo", "chars", "duplicate_of"}
