"""The topic and task id size limits (``MAX_TOPIC_BYTES``, ``MAX_TASK_ID_BYTES``, bytes of UTF-8) on SQLite and
PostgreSQL alike: ``mneme save`` / ``supersede`` and the MCP ``save`` / ``supersede`` tools accept a topic at the
limit (multi-byte characters counted in bytes) and refuse one past it in one ``ERR_VALIDATION_FAILED`` line
naming the limit, writing nothing."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp_session import REPO, call, error, server_with

from mneme_tui.cli import main as cli_main
from mneme_tui.config import DbTarget
from mneme_tui.memory.store import Store
from mneme_tui.validation import MAX_TASK_ID_BYTES, MAX_TOPIC_BYTES

AT_LIMIT = "t" * MAX_TOPIC_BYTES
OVER_LIMIT = "t" * (MAX_TOPIC_BYTES + 1)
UNICODE_AT_LIMIT = "€" * (MAX_TOPIC_BYTES // 3) + "e" * (MAX_TOPIC_BYTES % 3)  # 3 bytes a euro sign
UNICODE_OVER_LIMIT = "😀" * (MAX_TOPIC_BYTES // 4) + "é"  # within the limit in characters, over it in bytes
TOPIC_REFUSAL = f"exceeds the topic size limit of {MAX_TOPIC_BYTES:,} bytes"
TASK_REFUSAL = f"exceeds the task id size limit of {MAX_TASK_ID_BYTES:,} bytes"


def _cli(capsys: pytest.CaptureFixture[str], target: DbTarget, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main([*argv, "--db", str(target)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _refused(capsys: pytest.CaptureFixture[str], target: DbTarget, *argv: str) -> str:
    code, out, err = _cli(capsys, target, *argv)
    assert code == 1 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("mneme: ERR_VALIDATION_FAILED: "), err
    return err


def _topics(target: DbTarget) -> list[str]:
    return [memory.topic for memory in Store(target).list(status="all", limit=None, order="id")]


def test_the_cli_accepts_a_topic_at_the_limit_and_refuses_one_past_it(
    db_target: DbTarget, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEME_REPO", REPO)
    for number, topic in enumerate((AT_LIMIT, UNICODE_AT_LIMIT)):
        assert len(topic.encode()) == MAX_TOPIC_BYTES
        assert _cli(capsys, db_target, "save", f"note {number}", "--topic", topic)[0] == 0
    assert _topics(db_target) == [AT_LIMIT, UNICODE_AT_LIMIT]
    for topic in (OVER_LIMIT, UNICODE_OVER_LIMIT):
        assert TOPIC_REFUSAL in _refused(capsys, db_target, "save", "another note", "--topic", topic)
        assert TOPIC_REFUSAL in _refused(capsys, db_target, "supersede", "1", "new text", "--topic", topic)
    long_task = "T" * (MAX_TASK_ID_BYTES + 1)
    assert TASK_REFUSAL in _refused(capsys, db_target, "save", "a task note", "--task", long_task)
    assert _cli(capsys, db_target, "save", "a task note", "--task", long_task[1:], "--topic", AT_LIMIT)[0] == 0
    assert _topics(db_target) == [AT_LIMIT, UNICODE_AT_LIMIT, AT_LIMIT]  # nothing else written, nothing superseded
    assert [m.status for m in Store(db_target).list(status="all", limit=None, order="id")] == ["active"] * 3


def _server(work: Path, target: DbTarget) -> AbstractAsyncContextManager[ClientSession]:
    return server_with(work, ["--db", str(target)])


async def test_the_mcp_tools_accept_a_topic_at_the_limit_and_refuse_one_past_it(
    db_target: DbTarget, workspace: Path
) -> None:
    async with _server(workspace, db_target) as session:
        first = await call(session, "save", content="at the limit", topic=AT_LIMIT)
        await call(session, "save", content="unicode at the limit", topic=UNICODE_AT_LIMIT)
        for topic in (OVER_LIMIT, UNICODE_OVER_LIMIT):
            refusal = await error(session, "save", content="past the limit", topic=topic)
            assert "ERR_VALIDATION_FAILED: the topic" in refusal and TOPIC_REFUSAL in refusal, refusal
            refusal = await error(session, "supersede", memory_id=first["id"], content="new text", topic=topic)
            assert TOPIC_REFUSAL in refusal, refusal
        long_task = "T" * (MAX_TASK_ID_BYTES + 1)
        assert TASK_REFUSAL in await error(session, "save", content="a task note", task_id=long_task)
        assert TASK_REFUSAL in await error(session, "recall", query="limit", task_id=long_task)
        listed = await call(session, "list")
    assert sorted(item["id"] for item in listed) == [1, 2]
    assert _topics(db_target) == [AT_LIMIT, UNICODE_AT_LIMIT]
    assert "Traceback" not in (workspace / "server.err").read_text()
