"""``mneme mcp`` under garbage and failure (issue 20): every request gets an answer or a JSON-RPC error, a
message's size is bounded, the server stays up, and a store that cannot be opened is each call's answer.

The bad messages are written as raw bytes to the real server process (the SDK's client only sends valid
ones); the start-up failure is driven by the SDK's own client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import Implementation

from mneme_tui.mcp.transport import MAX_MESSAGE_BYTES

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
}


def _call(request_id: int, tool: str, arguments: str) -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"name":"{tool}",'
        f'"arguments":{arguments}}}}}'
    ).encode()


def _start(tmp_path: Path, stdin: Any = subprocess.PIPE) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "mneme_tui", "mcp", "--db", str(tmp_path / "mneme.db")],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )


def _send(process: subprocess.Popen[bytes], line: bytes) -> None:
    assert process.stdin is not None
    process.stdin.write(line + b"\n")
    process.stdin.flush()


def _answer(process: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, "the server closed stdout"
    return json.loads(line)


@asynccontextmanager
async def _session(tmp_path: Path, *options: str, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """The SDK's client on a live ``mneme mcp OPTIONS`` in ``tmp_path`` (its stderr in ``server.err``)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mneme_tui", "mcp", *options],
        env={**os.environ, **(env or {})},
        cwd=tmp_path,
    )
    with (tmp_path / "server.err").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, client_info=Implementation(name="test", version="1")) as session,
        ):
            await session.initialize()
            yield session


BAD_REQUESTS = {  # the line, the answer's id, error code and a word of its message
    "lone surrogate": (_call(11, "save", '{"content": "bad \\ud800 text"}'), 11, -32600, "lone surrogate"),
    "5,000-digit integer": (_call(12, "recall", '{"query": "x", "limit": ' + "9" * 5000 + "}"), 12, -32600, "number"),
    "nesting 300 deep": (_call(13, "recall", '{"query": ' + "[" * 300 + "]" * 300 + "}"), 13, -32600, "recursion"),
    "a batch": (b"[1, 2]", None, -32600, ""),
}


def test_every_bad_request_is_answered_and_the_server_stays_up(tmp_path: Path) -> None:
    process = _start(tmp_path)
    try:
        _send(process, json.dumps(INITIALIZE).encode())
        assert _answer(process)["result"]["serverInfo"]["name"] == "mneme"
        _send(process, b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        _send(process, b'{"jsonrpc":"2.0","method":"notifications/x", "params": {"a": "\\ud800"}}')  # no answer
        for name, (line, request_id, code, needle) in BAD_REQUESTS.items():
            _send(process, line)
            answer = _answer(process)
            assert (answer["id"], answer["error"]["code"]) == (request_id, code), (name, answer)
            assert needle in answer["error"]["message"], (name, answer)
        _send(process, b'{"jsonrpc":"2.0","id":20,"method":"tools/call",')
        malformed = _answer(process)
        assert (malformed["id"], malformed["error"]["code"]) == (None, -32700)
        _send(process, b"\xff\xfe not UTF-8")
        assert _answer(process)["error"]["code"] == -32700
        _send(process, _call(21, "save", '{"content": "the server is still up"}'))
        saved = _answer(process)
        assert saved["id"] == 21 and not saved["result"]["isError"]
    finally:
        out, err = process.communicate(b"", timeout=60)
    assert process.returncode == 0 and out == b"" and b"Traceback" not in err


def test_an_oversized_message_is_refused_with_its_id(tmp_path: Path) -> None:
    """A message over MAX_MESSAGE_BYTES is refused as soon as it passes the limit (its id read from its start),
    its rest skipped without being kept; the next request is served."""
    process = _start(tmp_path)
    try:
        _send(process, json.dumps(INITIALIZE).encode())
        _answer(process)
        _send(process, _call(5, "save", '{"content": "' + "x" * (MAX_MESSAGE_BYTES + 10) + '"}'))
        refused = _answer(process)
        assert refused["id"] == 5 and refused["error"]["code"] == -32600
        assert f"{MAX_MESSAGE_BYTES:,} bytes" in refused["error"]["message"]
        _send(process, _call(6, "list", "{}"))
        assert _answer(process)["id"] == 6
    finally:
        process.communicate(b"", timeout=60)
    assert process.returncode == 0


def _proc_field(pid: int, table: str, name: str) -> int:
    """A number from ``/proc/PID/TABLE`` (``io``: bytes; ``status``: kB), by its field's name."""
    for line in Path(f"/proc/{pid}/{table}").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {name} in /proc/{pid}/{table}")


def test_endless_input_without_a_newline_stays_bounded(tmp_path: Path) -> None:
    """``mneme mcp < /dev/zero``: one refusal, then the bytes are read and dropped; memory stays flat, no
    traceback (the SDK's transport grew to gigabytes and died with a MemoryError). Watched until the server
    has read ten messages' worth past the limit; its peak RSS is the kernel's high-water mark."""
    with open("/dev/zero", "rb") as zeros:
        process = _start(tmp_path, stdin=zeros)
    try:
        deadline = time.monotonic() + 120
        while _proc_field(process.pid, "io", "rchar") < 10 * MAX_MESSAGE_BYTES:
            assert process.poll() is None, "the server died"
            assert time.monotonic() < deadline, "the server stopped reading its input"
            time.sleep(0.05)
        assert process.poll() is None, "the server died"
        peak = _proc_field(process.pid, "status", "VmHWM") / 1024
        assert peak < 2 * MAX_MESSAGE_BYTES / 2**20 + 150, f"{peak:.0f} MB resident at the peak"
    finally:
        process.kill()
        out, err = process.communicate(timeout=60)
    assert b"Traceback" not in err and b"MemoryError" not in err
    refusals = [json.loads(line) for line in out.splitlines()]
    assert refusals and all(answer["error"]["code"] == -32600 for answer in refusals)


@pytest.mark.parametrize("db", ["/proc/x.db", "/proc/no/such/x.db"])
async def test_a_store_that_cannot_be_opened_is_the_answer_to_every_call(tmp_path: Path, db: str) -> None:
    """The server starts anyway; each tool call is a tool error with the one-line ERR_DATABASE reason."""
    async with _session(tmp_path, env={"MNEME_DB": db}) as session:
        for tool, arguments in (("save", {"content": "x"}), ("recall", {"query": "x"}), ("list", {})):
            result = await session.call_tool(tool, arguments)
            assert result.is_error, (tool, result.content)
            text = result.content[0].text
            assert "ERR_DATABASE" in text and db in text and "\n" not in text and "Traceback" not in text
    err = (tmp_path / "server.err").read_text()
    assert "ERR_DATABASE" in err and "Traceback" not in err


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


async def test_acknowledged_saves_exist_after_the_database_is_deleted_or_replaced(tmp_path: Path) -> None:
    """Delete ``X.db*`` under the live server, then save 20 times: every id it acknowledges is in the database
    at ``X.db`` with its text. Put another store's file in its place: the next saves land in that one."""
    from mneme_tui.memory.store import Store

    path = tmp_path / "X.db"
    async with _session(tmp_path, "--db", str(path)) as session:

        async def save(content: str) -> int:
            result = await session.call_tool("save", {"content": content})
            assert not result.is_error, result.content
            return json.loads(result.content[0].text)["id"]

        await save("before the deletion")
        _remove_database(path)
        saved = {await save(f"after the deletion {n}"): f"after the deletion {n}" for n in range(20)}
        on_disk = Store(path)
        assert {memory_id: on_disk.get(memory_id).content for memory_id in saved} == saved

        other = tmp_path / "other.db"
        another = Store(other)
        another.save("the other store's own memory")
        another.close()  # the last connection: its write-ahead log is folded into the file
        _remove_database(path)
        os.replace(other, path)
        replaced_id = await save("into the file put in its place")
        assert Store(path).get(replaced_id).content == "into the file put in its place"
        assert Store(path).count() == 2
        recalled = await session.call_tool("recall", {"query": "the other store's own memory", "all_repos": True})
        assert "the other store's own memory" in recalled.content[0].text


async def test_the_server_reconnects_after_postgresql_restarts(tmp_path: Path, pg_server, pg_database) -> None:
    """Restart PostgreSQL under a live ``mneme mcp``: the next calls, reads and writes, are answered on a new
    connection (before, every call failed with "connection already closed" until the MCP process restarted)."""
    from mneme_tui.memory.persistence.postgres_dialect import IDLE_PROBE_S
    from mneme_tui.memory.store import Store

    async with _session(tmp_path, "--db", pg_database.url) as session:
        assert not (await session.call_tool("save", {"content": "before the restart"})).is_error
        pg_server.restart()
        time.sleep(IDLE_PROBE_S)  # the server's connection is now idle long enough to be checked first
        for tool, arguments in (
            ("list", {}),
            ("recall", {"query": "restart", "all_repos": True}),
            ("save", {"content": "after the restart"}),
        ):
            result = await session.call_tool(tool, arguments)
            assert not result.is_error, (tool, result.content)
    assert [m.content for m in Store(pg_database.url).list(order="id")] == ["before the restart", "after the restart"]
