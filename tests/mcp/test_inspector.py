"""The official MCP Inspector drives every tool, the prompt and the resource of ``mneme mcp``: a client that
is not the Python SDK sees the same surface. Its CLI mode (``--cli``, a fresh server a call) lists the tools and
the prompts; its connection CLI, ``mcpdo``, makes every other call over one connection (one server a test, kept
by a private daemon of the test's own), so a test starts two servers instead of one a call. The Inspector is
installed from npm into a temporary folder for the run, in the background from the session's start
(tests/inspector_install.py); without npm (or without the registry) the test is skipped, saying why."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import inspector_install
import pytest
from mcp_session import TOOLS, db, legion_dir


@pytest.fixture(scope="module")
def inspector(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the Inspector's launchers (``mcp-inspector``, ``mcpdo``), installed with npm into a folder
    of this test run (tests/inspector_install.py)."""
    return inspector_install.launchers(tmp_path_factory)


def server_command(work: Path) -> list[str]:
    """``mneme mcp`` on the workspace's database and Legion folder."""
    return [sys.executable, "-m", "mneme_tui", "mcp", "--db", str(db(work)), "--legion-dir", str(legion_dir(work))]


def answer_of(command: list[str], work: Path, env: dict[str, str] | None = None) -> Any:
    """The JSON an Inspector command prints (it must succeed)."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, cwd=work, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def inspect(inspector: Path, work: Path, method: str) -> Any:
    """One Inspector ``--cli`` call against a fresh ``mneme mcp`` on the workspace: its JSON answer."""
    return answer_of([str(inspector / "mcp-inspector"), "--cli", *server_command(work), "--method", method], work)


class Connection:
    """One ``mcpdo`` connection to one ``mneme mcp`` on the workspace, held by a private daemon."""

    def __init__(self, inspector: Path, work: Path, daemon_dir: str) -> None:
        self.mcpdo = str(inspector / "mcpdo")
        self.work = work
        self.env = {
            **os.environ,
            "MCP_INSPECTOR_DAEMON_DIR": daemon_dir,  # short: the daemon's socket is in it
            "MCP_INSPECTOR_DAEMON_TOKEN": secrets.token_urlsafe(24),
            "MCP_INSPECTOR_SECRET_STORE": "file",  # in the test's temp HOME (a stdio server has no secrets)
        }

    def connect(self) -> None:
        """Start the daemon and its server on the workspace (``mcpdo connect``)."""
        self.run("connect", "--connection", "mneme", "--cwd", str(self.work), "--", *server_command(self.work))

    def run(self, *arguments: str) -> Any:
        """``mcpdo --format json ARGUMENTS``: its JSON answer."""
        return answer_of([self.mcpdo, "--format", "json", *arguments], self.work, self.env)

    def request(self, method: str, *arguments: str) -> Any:
        """An MCP request (``tools/list``, ``prompts/get NAME``, …) over the connection: the result."""
        return self.run("@mneme", method, *arguments)

    def stop(self) -> None:
        """Stop the daemon (it closes the connection and the server)."""
        subprocess.run([self.mcpdo, "daemon", "stop"], capture_output=True, timeout=60, check=False, env=self.env)


@pytest.fixture
def connection(inspector: Path, workspace: Path) -> Iterator[Connection]:
    """A connection to one ``mneme mcp`` on the workspace for the whole test."""
    daemon_dir = tempfile.mkdtemp(prefix="mcpdo-")
    opened = Connection(inspector, workspace, daemon_dir)
    try:
        opened.connect()
        yield opened
    finally:
        opened.stop()
        shutil.rmtree(daemon_dir, ignore_errors=True)


def call(connection: Connection, tool: str, **arguments: Any) -> Any:
    """A tool's result through the Inspector (each argument passed as ``name:=JSON``)."""
    answer = connection.request(
        "tools/call", tool, *[f"{name}:={json.dumps(value)}" for name, value in arguments.items()]
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


def test_the_inspector_lists_and_drives_every_tool(inspector: Path, workspace: Path, connection: Connection) -> None:
    for tools in (inspect(inspector, workspace, "tools/list")["tools"], connection.request("tools/list")["tools"]):
        assert {tool["name"] for tool in tools} == TOOLS
        assert all(tool["title"] and "readOnlyHint" in tool["annotations"] for tool in tools)
    saved = call(connection, "save", content="peewee keeps one connection per thread")
    second = call(connection, "save", content="a worker thread opens its own connection", kind="decision")
    assert [m["id"] for m in call(connection, "recall", query="worker thread connection", limit=1)] == [second["id"]]
    assert len(call(connection, "list")) == 2
    assert call(connection, "show", memory_id=saved["id"])["memory"]["id"] == saved["id"]
    assert call(connection, "dismiss", ids=[saved["id"]])["dismissed"] == [saved["id"]]
    assert call(connection, "restore", ids=[saved["id"]])["restored"] == [saved["id"]]
    assert (
        call(connection, "supersede", memory_id=second["id"], content="one connection per worker")["superseded"]
        == second["id"]
    )
    assert call(connection, "task_sync", report=REPORT)["verified"] is True
    assert call(connection, "handshake", modified=["src/store.py"])["modified_files"] == ["src/store.py"]
    for tool, arguments in (
        ("legion_record_outcome", {"agent": "a", "outcome": "success", "summary": "s"}),
        ("legion_record_pattern", {"pattern": "parse twice"}),
        ("legion_record_error", {"error_signature": "KeyError: 'id'", "fix": "check it"}),
        ("legion_record_preference", {"decision_point": "manual-edit", "context": "c", "signal": "corrective"}),
    ):
        assert call(connection, tool, branch="main", **arguments)["action"] == "created", tool
    assert call(connection, "legion_recall", kind="errors", query="KeyError")["records"]
    assert call(connection, "legion_briefing")["total_records"] == 1
    assert call(connection, "purge", ids=[saved["id"]], reason="a leaked key")["purged"][0]["id"] == saved["id"]


def test_the_inspector_reads_the_prompt_and_the_resource(
    inspector: Path, workspace: Path, connection: Connection
) -> None:
    for prompts in (
        inspect(inspector, workspace, "prompts/list")["prompts"],
        connection.request("prompts/list")["prompts"],
    ):
        assert [p["name"] for p in prompts] == ["handshake"]
    prompt = connection.request("prompts/get", "handshake")
    assert prompt["messages"][0]["role"] == "user"
    templates = connection.request("resources/templates/list")["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["mneme://memory/{id}"]
    saved = call(connection, "save", content="tombstone, never delete")
    read = connection.request("resources/read", f"mneme://memory/{saved['id']}")
    assert json.loads(read["contents"][0]["text"])["memory"]["content"] == "tombstone, never delete"
