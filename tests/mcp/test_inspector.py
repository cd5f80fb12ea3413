"""The official MCP Inspector's CLI mode drives every tool, the prompt and the resource of ``mneme mcp``:
a client that is not the Python SDK sees the same surface. The Inspector is installed from npm into a
temporary folder for the run; without npm (or without the registry) the test is skipped, saying why."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_session import TOOLS, db, legion_dir

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"  # a release whose --cli mode this test was written against


@pytest.fixture(scope="module")
def inspector(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Inspector's launcher, installed with npm into a folder of this test run."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the MCP Inspector (an npm package) cannot be installed")
    prefix = tmp_path_factory.mktemp("inspector")
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--silent", INSPECTOR],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"npm could not install {INSPECTOR} (no registry?): {done.stderr.strip()[-300:]}")
    return prefix / "node_modules" / ".bin" / "mcp-inspector"


def inspect(inspector: Path, work: Path, method: str, *options: str) -> Any:
    """One Inspector CLI call against a fresh ``mneme mcp`` on the workspace: its JSON answer."""
    server = [sys.executable, "-m", "mneme_tui", "mcp", "--db", str(db(work)), "--legion-dir", str(legion_dir(work))]
    done = subprocess.run(
        [str(inspector), "--cli", *server, "--method", method, *options],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=work,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def call(inspector: Path, work: Path, tool: str, **arguments: Any) -> Any:
    """A tool's result through the Inspector (each argument passed as ``--tool-arg name=JSON``)."""
    options = [
        f"{name}={json.dumps(value)}" if not isinstance(value, str) else f"{name}={value}"
        for name, value in arguments.items()
    ]
    answer = inspect(
        inspector,
        work,
        "tools/call",
        "--tool-name",
        tool,
        *[part for option in options for part in ("--tool-arg", option)],
    )
    assert answer["isError"] is False, answer
    return json.loads(answer["content"][0]["text"])


REPORT = {
    "task_id": "INT-1",
    "repo": "acme",
    "modified_files": ["src/store.py"],
    "walkthrough": "Split it.",
    "runs": [
        {"gates": [{"name": "Cognitive Complexity", "passed": False, "message": "over", "file": "src/store.py"}]},
        {"gates": [{"name": "Cognitive Complexity", "passed": True, "message": "ok", "file": "src/store.py"}]},
    ],
}


def test_the_inspector_lists_and_drives_every_tool(inspector: Path, workspace: Path) -> None:
    tools = inspect(inspector, workspace, "tools/list")["tools"]
    assert {tool["name"] for tool in tools} == TOOLS
    assert all(tool["title"] and "readOnlyHint" in tool["annotations"] for tool in tools)
    saved = call(inspector, workspace, "save", content="peewee keeps one connection per thread")
    second = call(inspector, workspace, "save", content="a worker thread opens its own connection", kind="decision")
    assert [m["id"] for m in call(inspector, workspace, "recall", query="worker thread connection", limit=1)] == [
        second["id"]
    ]
    assert len(call(inspector, workspace, "list")) == 2
    assert call(inspector, workspace, "show", memory_id=saved["id"])["memory"]["id"] == saved["id"]
    assert call(inspector, workspace, "dismiss", ids=[saved["id"]])["dismissed"] == [saved["id"]]
    assert call(inspector, workspace, "restore", ids=[saved["id"]])["restored"] == [saved["id"]]
    assert (
        call(inspector, workspace, "supersede", memory_id=second["id"], content="one connection per worker")[
            "superseded"
        ]
        == second["id"]
    )
    assert call(inspector, workspace, "task_sync", report=REPORT)["verified"] is True
    assert call(inspector, workspace, "handshake", modified=["src/store.py"])["modified_files"] == ["src/store.py"]
    for tool, arguments in (
        ("legion_record_outcome", {"agent": "a", "outcome": "success", "summary": "s"}),
        ("legion_record_pattern", {"pattern": "parse twice"}),
        ("legion_record_error", {"error_signature": "KeyError: 'id'", "fix": "check it"}),
        ("legion_record_preference", {"decision_point": "manual-edit", "context": "c", "signal": "corrective"}),
    ):
        assert call(inspector, workspace, tool, branch="main", **arguments)["action"] == "created", tool
    assert call(inspector, workspace, "legion_recall", kind="errors", query="KeyError")["records"]
    assert call(inspector, workspace, "legion_briefing")["total_records"] == 1
    assert (
        call(inspector, workspace, "purge", ids=[saved["id"]], reason="a leaked key")["purged"][0]["id"] == saved["id"]
    )


def test_the_inspector_reads_the_prompt_and_the_resource(inspector: Path, workspace: Path) -> None:
    assert [p["name"] for p in inspect(inspector, workspace, "prompts/list")["prompts"]] == ["handshake"]
    prompt = inspect(inspector, workspace, "prompts/get", "--prompt-name", "handshake")
    assert prompt["messages"][0]["role"] == "user"
    templates = inspect(inspector, workspace, "resources/templates/list")["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["mneme://memory/{id}"]
    saved = call(inspector, workspace, "save", content="tombstone, never delete")
    read = inspect(inspector, workspace, "resources/read", "--uri", f"mneme://memory/{saved['id']}")
    assert json.loads(read["contents"][0]["text"])["memory"]["content"] == "tombstone, never delete"
