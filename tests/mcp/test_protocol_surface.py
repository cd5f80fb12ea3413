"""The MCP surface a client can trust (issue 23): titles and annotations on every tool, enums for closed sets,
plain descriptions, compact results, schema failures as the CLI's one-line ERR_VALIDATION_FAILED, unknown
arguments refused, and a real prompt and resource template. Driven by the SDK's client on ``mneme mcp``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp_session import cli_error, cli_json, error, server

from mneme_tui.memory.kinds import ADVISORY_KINDS, ALL_KINDS, STATUSES

READ_ONLY = {"recall", "list", "show", "handshake", "legion_briefing", "legion_recall", "review"}
DESTRUCTIVE = {
    "dismiss",
    "restore",
    "supersede",
    "legion_record_outcome",
    "purge",  # an outcome may set off auto-prune
    "review_decide",
    "pin",
    "unpin",
}


@pytest.mark.asyncio(loop_scope="session")  # on the shared empty_server
async def test_every_tool_has_a_title_annotations_and_plain_descriptions(empty_server: ClientSession) -> None:
    tools = (await empty_server.list_tools()).tools
    for tool in tools:
        hints = tool.annotations
        assert tool.title and hints is not None, tool.name
        assert hints.read_only_hint is (tool.name in READ_ONLY), tool.name
        assert hints.destructive_hint is (tool.name in DESTRUCTIVE), tool.name
        assert hints.idempotent_hint is not None, tool.name
        assert tool.input_schema["additionalProperties"] is False, tool.name
        texts = [tool.description or ""] + [field["description"] for field in tool.input_schema["properties"].values()]
        assert not [text for text in texts if "\n" in text or "  " in text], tool.name  # no code indentation
    schemas = {tool.name: tool.input_schema["properties"] for tool in tools}
    assert schemas["recall"]["kind"]["enum"] == list(ALL_KINDS)
    assert schemas["recall"]["profile"]["enum"] == ["bm25", "spec"]
    assert schemas["save"]["kind"]["enum"] == list(ADVISORY_KINDS)
    assert schemas["list"]["status"]["enum"] == [*STATUSES, "all"]
    assert schemas["legion_recall"]["kind"]["enum"] == ["outcomes", "patterns", "errors", "preferences"]
    assert schemas["legion_record_outcome"]["outcome"]["enum"] == ["success", "partial", "failed"]
    assert schemas["review"]["kinds"]["items"]["enum"] == ["duplicate", "conflict", "stale", "cold"]
    assert schemas["review_decide"]["decision"]["enum"] == ["accept", "reject", "undo"]
    assert schemas["recall"]["limit"] == {"type": "integer", "description": "result limit", "minimum": 1, "default": 5}
    for tool in ("recall", "handshake", "legion_briefing", "legion_recall"):
        assert schemas[tool]["budget"]["minimum"] == 1 and "default" not in schemas[tool]["budget"], tool


async def test_results_are_compact_and_lean(workspace: Path) -> None:
    content = "peewee keeps one connection per thread; " * 200
    async with server(workspace) as session:
        saved = await session.call_tool("save", {"content": content})
        text = saved.content[0].text
        assert len(text) < 250 and "\n" not in text and ": " not in text
        assert json.loads(text)["echo"].endswith("…") and json.loads(text)["chars"] == len(content)
        found = (await session.call_tool("recall", {"query": "peewee connection"})).content[0].text
        assert "\n" not in found and '"components"' not in found and '"reasons"' not in found
        detailed = (await session.call_tool("recall", {"query": "peewee connection", "detail": True})).content[0].text
        assert '"components"' in detailed and '"reasons"' in detailed


#: Bad calls and the one line each is refused with: (tool, arguments, the error after "Error executing tool T: ").
SCHEMA_FAILURES: list[tuple[str, dict, str]] = [
    ("recall", {"limit": 0}, "ERR_VALIDATION_FAILED: query is required"),
    ("recall", {"query": "x", "limit": 0}, "ERR_VALIDATION_FAILED: limit must be at least 1: '0'"),
    ("recall", {"query": "x", "limit": "five"}, "ERR_VALIDATION_FAILED: limit must be a whole number, not text (five)"),
    ("recall", {"query": "x", "limit": True}, "ERR_VALIDATION_FAILED: limit must be a whole number, not a boolean"),
    ("recall", {"query": 5}, "ERR_VALIDATION_FAILED: query must be text, not a number (5)"),
    (
        "recall",
        {"query": "x", "bogus": 1},
        "ERR_VALIDATION_FAILED: unknown argument 'bogus' (recall takes: query, all_repos, repo, limit, kind, profile, "
        "budget, task_id, detail)",
    ),
    ("recall", {"query": "x", "budget": 0}, "ERR_VALIDATION_FAILED: budget must be at least 1: '0'"),
    ("legion_briefing", {"budget": -5}, "ERR_VALIDATION_FAILED: budget must be at least 1: '-5'"),
    ("dismiss", {"ids": []}, "ERR_VALIDATION_FAILED: ids needs at least one memory id"),
    (
        "legion_recall",
        {"kind": "patterns", "signal": "loud"},
        "ERR_VALIDATION_FAILED: signal must be one of all, positive, negative, corrective: 'loud'",
    ),
    ("no_such_tool", {}, "ERR_NOT_FOUND: no tool named 'no_such_tool'"),
]


@pytest.mark.asyncio(loop_scope="session")  # on the shared empty_server
async def test_schema_failures_are_one_cli_style_line(empty_server: ClientSession) -> None:
    """Every bad call in SCHEMA_FAILURES, one after another on one server (each is a tool error that leaves the
    server answering the next)."""
    for tool, arguments, expected in SCHEMA_FAILURES:
        text = await error(empty_server, tool, **arguments)
        assert text.startswith(f"Error executing tool {tool}: {expected}"), text
        assert "pydantic" not in text and "http" not in text, text


@pytest.mark.asyncio(loop_scope="session")  # on the shared empty_server
async def test_a_bad_memory_id_says_what_the_cli_says(
    empty_server: ClientSession, empty_workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for tool, arguments, argv in (
        ("show", {"memory_id": -1}, ["show", "-1"]),
        ("show", {"memory_id": 0}, ["show", "0"]),
        ("dismiss", {"ids": [3, -2]}, ["dismiss", "3", "-2"]),
        ("supersede", {"memory_id": -1, "content": "x"}, ["supersede", "-1", "x"]),
    ):
        expected = cli_error(capsys, empty_workspace, *argv)
        assert await error(empty_server, tool, **arguments) == f"Error executing tool {tool}: {expected}"


async def test_the_handshake_prompt_and_the_memory_resource(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = cli_json(capsys, workspace, "save", "run the migrations before the app starts")
    async with server(workspace) as session:
        prompts = (await session.list_prompts()).prompts
        assert [prompt.name for prompt in prompts] == ["handshake"]
        prompt = await session.get_prompt("handshake", {"task_id": "INT-5", "modified": "src/store.py"})
        assert prompt.messages[0].role == "user" and "src/store.py" in prompt.messages[0].content.text
        templates = (await session.list_resource_templates()).resource_templates
        assert [template.uri_template for template in templates] == ["mneme://memory/{id}"]
        read = await session.read_resource(f"mneme://memory/{memory['id']}")
        assert json.loads(read.contents[0].text) == cli_json(capsys, workspace, "show", str(memory["id"]))
        with pytest.raises(MCPError, match="ERR_NOT_FOUND: no memory with id 99"):
            await session.read_resource("mneme://memory/99")
        with pytest.raises(MCPError, match="ERR_VALIDATION_FAILED: unknown argument 'bogus'"):
            await session.get_prompt("handshake", {"bogus": "x"})
