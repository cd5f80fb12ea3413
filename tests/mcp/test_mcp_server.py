"""``mneme mcp`` driven over stdio by the SDK's own client, against the real server process.

Each tool's result is compared with what the CLI's ``--json`` prints on the same store (the CLI runs
in-process here, on the same database file and Legion folder).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp_session import REPO, TOOLS, call, cli_error, cli_json, db, error, legion_dir, server

from mneme_tui.cli import main as cli_main


@pytest.mark.asyncio(loop_scope="session")  # on the shared empty_server
async def test_lists_every_tool_with_a_described_schema(empty_server: ClientSession) -> None:
    tools = (await empty_server.list_tools()).tools
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert tool.description and len(tool.description) > 30, tool.name
        assert tool.input_schema["type"] == "object"
        for name, field in tool.input_schema.get("properties", {}).items():
            assert field.get("description"), (tool.name, name)
    recall = next(tool for tool in tools if tool.name == "recall")
    assert recall.input_schema["required"] == ["query"]
    assert set(recall.input_schema["properties"]) == {
        "query",
        "limit",
        "kind",
        "all_repos",
        "repo",
        "profile",
        "task_id",
        "detail",
        "budget",
    }


async def test_memory_tools_answer_like_the_cli(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with server(workspace) as session:
        echo = await call(session, "save", content="peewee keeps one connection per thread", topic="Architecture")
        await call(session, "save", content="Never delete memories; tombstone them", kind="axiom", repo="global")
        other = await call(session, "save", content="a worker thread needs its own connection", repo="other")
        saved = cli_json(capsys, workspace, "list", "-n", "3")[1]
        assert echo == {
            "id": saved["id"],
            "kind": "reflection",
            "repo_id": REPO,
            "topic": "Architecture",
            "echo": "peewee keeps one connection per thread",
            "chars": 38,
        }

        recalled = await call(session, "recall", query="connection in a worker thread", detail=True)
        assert recalled == cli_json(capsys, workspace, "recall", "connection in a worker thread")
        lean = await call(session, "recall", query="connection in a worker thread")
        assert lean == [
            {
                "id": m["id"],
                "kind": m["kind"],
                "repo_id": m["repo_id"],
                "topic": m["topic"],
                "score": m["score"],
                "content": m["content"],
                "created_at": m["created_at"],
                "verified": m["provenance"]["verified"],
            }
            for m in recalled
        ]
        everywhere = await call(
            session, "recall", query="worker thread connection", all_repos=True, limit=2, detail=True
        )
        assert everywhere == cli_json(capsys, workspace, "recall", "worker thread connection", "-A", "-n", "2")
        assert other["id"] in [m["id"] for m in everywhere]
        by_kind = await call(session, "recall", query="memories", kind="axiom", profile="bm25", detail=True)
        assert by_kind == cli_json(capsys, workspace, "recall", "memories", "--kind", "axiom", "--profile", "bm25")

        assert await call(session, "list") == cli_json(capsys, workspace, "list")
        assert await call(session, "list", all_repos=True, limit=2) == cli_json(
            capsys, workspace, "list", "-A", "-n", "2"
        )
        assert await call(session, "list", repo="other") == cli_json(capsys, workspace, "list", "-p", "other")

        dismissed = await call(session, "dismiss", ids=[saved["id"], saved["id"]])
        assert dismissed == {"dismissed": [saved["id"]], "unchanged": []}
        assert await call(session, "dismiss", ids=[saved["id"]]) == cli_json(
            capsys, workspace, "dismiss", str(saved["id"])
        )
        assert await call(session, "list", status="tombstoned") == cli_json(
            capsys, workspace, "list", "--status", "tombstoned"
        )

        assert saved["provenance"] == {"source": "mcp", "detail": "mneme-tests", "verified": False}
        shown = await call(session, "show", memory_id=saved["id"])
        assert shown == cli_json(capsys, workspace, "show", str(saved["id"]))
        assert shown["memory"] == {**saved, "status": "tombstoned"}

        restored = await call(session, "restore", ids=[saved["id"], other["id"]])
        assert restored == {"restored": [saved["id"]], "unchanged": [other["id"]]}
        assert await call(session, "restore", ids=[saved["id"]]) == cli_json(
            capsys, workspace, "restore", str(saved["id"])
        )

        newer = await call(
            session,
            "supersede",
            memory_id=saved["id"],
            content="peewee: one connection per thread",
            kind="architecture",
        )
        assert newer["superseded"] == saved["id"]
        assert newer["memory"]["kind"] == "architecture" and newer["memory"]["topic"] == "Architecture"
        assert newer["memory"]["provenance"]["source"] == "mcp"
        assert newer["memory"] == cli_json(capsys, workspace, "show", str(newer["memory"]["id"]))["memory"]
        again = cli_json(capsys, workspace, "supersede", str(newer["memory"]["id"]), "peewee: a connection per thread")
        assert again["superseded"] == newer["memory"]["id"]
        assert await call(session, "show", memory_id=saved["id"]) == cli_json(
            capsys, workspace, "show", str(saved["id"])
        )


async def test_recall_with_a_task_reinforces_once(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli_json(capsys, workspace, "save", "retry the flaky socket test with a fresh port")
    async with server(workspace) as session:
        for _ in range(2):
            found = await call(session, "recall", query="flaky socket test", task_id="INT-9", detail=True)
        plain = await call(session, "recall", query="flaky socket test", detail=True)
        shown = await call(session, "show", memory_id=found[0]["id"])
    assert found[0]["access_count"] == 1 and plain[0]["access_count"] == 1
    assert shown == cli_json(capsys, workspace, "show", str(found[0]["id"]))


@pytest.mark.asyncio(loop_scope="session")  # on the shared empty_server
async def test_errors_are_tool_errors_with_the_cli_code(
    empty_server: ClientSession, empty_workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "ERR_NOT_FOUND: no memory with id 99" in await error(empty_server, "show", memory_id=99)
    cli_words = "ERR_VALIDATION_FAILED: not a memory id: -1; nothing shown"  # what `mneme show -- -1` says
    assert cli_words in await error(empty_server, "show", memory_id=-1)
    assert "not a memory id: 0, -2; nothing dismissed" in await error(empty_server, "dismiss", ids=[0, 5, -2])
    assert "not a memory id: -7; nothing restored" in await error(empty_server, "restore", ids=[-7])
    typo = await error(empty_server, "recall", query="x", limt=3)
    assert "ERR_VALIDATION_FAILED: unknown argument 'limt' (recall takes: query, " in typo and "limit" in typo
    assert "ERR_NOT_FOUND" in await error(empty_server, "dismiss", ids=[99])
    statutory = await error(empty_server, "save", content="never call save twice", kind="pitfall")
    assert "ERR_VALIDATION_FAILED" in statutory and "statutory" in statutory
    assert "ERR_VALIDATION_FAILED" in await error(empty_server, "save", content="   ")
    assert "ERR_VALIDATION_FAILED" in await error(empty_server, "recall", query="x", kind="nonsense")
    assert "ERR_VALIDATION_FAILED" in await error(empty_server, "recall", query="x", profile="nonsense")
    assert "ERR_VALIDATION_FAILED" in await error(empty_server, "list", status="nonsense")
    assert (await empty_server.call_tool("recall", {"limit": 0})).is_error  # schema: query required, limit ≥ 1
    assert "ERR_NOT_FOUND" in await error(empty_server, "restore", ids=[99])
    assert "ERR_NOT_FOUND" in await error(empty_server, "supersede", memory_id=99, content="x")
    assert "ERR_VALIDATION_FAILED" in await error(empty_server, "legion_recall", kind="nonsense")
    assert "ERR_VALIDATION_FAILED" in await error(empty_server, "legion_recall", kind="patterns", agent="a")
    assert "ERR_VALIDATION_FAILED" in await error(empty_server, "legion_recall", query="KeyError")
    assert await call(empty_server, "list") == []  # the server is still alive and nothing was written
    assert "Traceback" not in (empty_workspace / "server.err").read_text()
    capsys.readouterr()
    assert cli_main(["save", "x", "--kind", "pitfall", "--db", str(db(empty_workspace))]) == 1
    assert "ERR_VALIDATION_FAILED" in capsys.readouterr().err


async def test_errors_carry_the_cli_message(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = {
        "task_id": "INT-1",
        "repo": REPO,
        "modified_files": ["src/store.py"],
        "walkthrough": "Split it.",
        "runs": [
            {"gates": [{"name": "Cognitive Complexity", "passed": True, "message": "ok", "file": "src/store.py"}]}
        ],
    }
    async with server(workspace) as session:
        saved = await call(session, "save", content="peewee keeps one connection per thread")
        pattern = (await call(session, "task_sync", report=report))["learnings"][0]["memory_id"]
        for tool, arguments, argv in (
            ("show", {"memory_id": 99}, ["show", "99"]),
            ("dismiss", {"ids": [99, saved["id"]]}, ["dismiss", "99", str(saved["id"])]),
            ("restore", {"ids": [99]}, ["restore", "99"]),
            ("supersede", {"memory_id": 99, "content": "x"}, ["supersede", "99", "x"]),
            (
                "supersede",
                {"memory_id": saved["id"], "content": "x", "kind": "pitfall"},
                ["supersede", str(saved["id"]), "x", "--kind", "pitfall"],
            ),
            ("save", {"content": "x", "kind": "pitfall"}, ["save", "x", "--kind", "pitfall"]),
            ("save", {"content": "x", "kind": "nonsense"}, ["save", "x", "--kind", "nonsense"]),
            ("recall", {"query": "x", "kind": "nonsense"}, ["recall", "x", "--kind", "nonsense"]),
            ("recall", {"query": "x", "profile": "nonsense"}, ["recall", "x", "--profile", "nonsense"]),
            ("list", {"status": "nonsense"}, ["list", "--status", "nonsense"]),
        ):
            expected = f"Error executing tool {tool}: {cli_error(capsys, workspace, *argv)}"  # the SDK's prefix
            assert await error(session, tool, **arguments) == expected, (tool, arguments)
        # a statutory memory: the CLI's message names `mneme dismiss ID`, the tool's says "dismiss it instead"
        statutory = await error(session, "supersede", memory_id=pattern, content="x")
        assert f"ERR_VALIDATION_FAILED: memory {pattern} is a pattern" in statutory and "dismiss it" in statutory
        assert "ERR_VALIDATION_FAILED" in await error(session, "task_sync", report={"task_id": "INT-3"})
        assert "ERR_VALIDATION_FAILED" in await error(
            session, "legion_record_outcome", agent="a", outcome="success", summary="x", importance=9, branch="main"
        )
    assert not legion_dir(workspace).exists()


@pytest.mark.asyncio(loop_scope="session")  # on the shared empty_server
async def test_a_missing_legion_folder_answers_like_the_cli(
    empty_server: ClientSession, empty_workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(legion_dir(empty_workspace))
    assert await call(empty_server, "legion_briefing") == cli_json(
        capsys, empty_workspace, "legion", "briefing", "--dir", folder
    )
    for kind in ("outcomes", "patterns", "errors", "preferences"):
        recalled = await call(empty_server, "legion_recall", kind=kind)
        assert recalled == cli_json(capsys, empty_workspace, "legion", "recall", kind, "--dir", folder), kind
        assert recalled["records"] == [] and recalled["total_records"] == 0
    assert not legion_dir(empty_workspace).exists()  # a read creates nothing


async def test_sees_writes_by_other_processes(workspace: Path) -> None:
    def mneme(*argv: str) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "mneme_tui", *argv, "--db", str(db(workspace)), "--json"],
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout)

    first = mneme("save", "the staging deploy needs the VPN")
    async with server(workspace) as session:
        assert [m["id"] for m in await call(session, "recall", query="staging deploy")] == [first["id"]]
        second = mneme("save", "staging deploy: run migrations before the app")
        found = await call(session, "recall", query="staging deploy migrations")
        assert found[0]["id"] == second["id"]
        mneme("dismiss", str(second["id"]))
        assert [m["id"] for m in await call(session, "recall", query="staging deploy migrations")] == [first["id"]]


async def test_handshake_and_task_sync(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = {
        "task_id": "INT-1",
        "repo": REPO,
        "modified_files": ["src/store.py"],
        "walkthrough": "Split Store.save so each function stays small.",
        "runs": [
            {"gates": [{"name": "Cognitive Complexity", "passed": False, "message": "over", "file": "src/store.py"}]},
            {"gates": [{"name": "Cognitive Complexity", "passed": True, "message": "ok", "file": "src/store.py"}]},
        ],
    }
    (workspace / "report.json").write_text(json.dumps(report))
    async with server(workspace) as session:
        preview = await call(session, "task_sync", report=report, dry_run=True)
        assert preview == cli_json(capsys, workspace, "task", "sync", "report.json", "--dry-run")
        synced = await call(session, "task_sync", report=report)
        assert synced["verified"] is True and synced["learnings"]
        capsys.readouterr()  # the same sync by the CLI into an empty twin database writes the same
        assert cli_main(["task", "sync", "report.json", "--json", "--db", str(workspace / "twin.db")]) == 0
        assert synced == json.loads(capsys.readouterr().out)
        refused = await call(session, "task_sync", report={**report, "task_id": "INT-2", "runs": report["runs"][:1]})
        assert refused["verified"] is False and refused["written"] == 0
        assert "ERR_VALIDATION_FAILED" in await error(session, "task_sync", report={"task_id": "INT-3"})

        oriented = await call(session, "handshake", modified=["src/store.py"])
        assert oriented == cli_json(capsys, workspace, "handshake", "--modified", "src/store.py")
        assert oriented["learned_pitfalls"] and oriented["verified_patterns"]
        with_task = await call(session, "handshake", task_id="INT-4", limit=1)
        assert with_task["reinforced"]  # the CLI's same call then reinforces nothing more: INT-4 already read them
        assert with_task == {
            **cli_json(capsys, workspace, "handshake", "--task", "INT-4", "-n", "1"),
            "reinforced": with_task["reinforced"],
        }
        assert "ERR_VALIDATION_FAILED" in await error(session, "handshake", modified=["/elsewhere/x.py"])


async def test_legion_tools(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = str(legion_dir(workspace))
    async with server(workspace) as session:
        empty = await call(session, "legion_briefing")
        assert empty == cli_json(capsys, workspace, "legion", "briefing", "--dir", folder)
        recorded = await call(
            session,
            "legion_record_outcome",
            agent="agent-a",
            outcome="success",
            summary="shipped the parser",
            tags=["parser"],
            branch="main",
        )
        assert recorded["action"] == "created"
        await call(
            session,
            "legion_record_outcome",
            agent="agent-a",
            outcome="failed",
            summary="broke the build",
            review_cycles=2,
            review_blockers=1,
            branch="main",
        )
        await call(session, "legion_record_pattern", pattern="parse in two passes", context="the parser", branch="main")
        await call(
            session, "legion_record_error", error_signature="KeyError: 'id'", fix="check the key first", branch="main"
        )
        await call(
            session,
            "legion_record_preference",
            decision_point="manual-edit",
            context="which parser",
            proposed="regex",
            user_choice="a real parser",
            signal="corrective",
            branch="main",
        )
        assert "ERR_VALIDATION_FAILED" in await error(
            session, "legion_record_outcome", agent="a", outcome="meh", summary="x", branch="main"
        )
        assert await call(session, "legion_briefing") == cli_json(
            capsys, workspace, "legion", "briefing", "--dir", folder
        )
        recalled = await call(session, "legion_recall", tags=["parser"])
        assert recalled == cli_json(capsys, workspace, "legion", "recall", "--tags", "parser", "--dir", folder)
        assert len(recalled["records"]) == 1
        await call(
            session,
            "legion_record_preference",
            decision_point="review-verdict",
            context="parsers",
            user_choice="a real parser",
            signal="corrective",
            agent="agent-a",
            tags=["parser"],
            branch="main",
        )
        await call(
            session,
            "legion_record_preference",
            decision_point="review-verdict",
            context="parsers again",
            user_choice="a real parser",
            signal="corrective",
            agent="agent-a",
            tags=["parser"],
            branch="main",
        )
        for arguments, argv in (
            ({"kind": "patterns"}, ["patterns"]),
            ({"kind": "patterns", "tags": ["nothing"], "limit": 1}, ["patterns", "--tags", "nothing", "-n", "1"]),
            ({"kind": "errors", "query": "KeyError 'id'"}, ["errors", "KeyError 'id'"]),
            ({"kind": "errors", "branch": "other"}, ["errors", "--branch", "other"]),
            ({"kind": "preferences"}, ["preferences"]),
            (
                {"kind": "preferences", "agent": "agent-a", "signal": "corrective"},
                ["preferences", "--agent", "agent-a", "--signal", "corrective"],
            ),
            (
                {"kind": "preferences", "decision_point": "manual-edit", "include_superseded": True},
                ["preferences", "--decision-point", "manual-edit", "--include-superseded"],
            ),
            (
                {"kind": "outcomes", "agent": "agent-a", "task_type": "general"},
                ["outcomes", "--agent", "agent-a", "--task-type", "general"],
            ),
        ):
            recalled = await call(session, "legion_recall", **arguments)
            assert recalled == cli_json(capsys, workspace, "legion", "recall", *argv, "--dir", folder), arguments
            assert "records" in recalled and "total_records" in recalled
        boosted = await call(session, "legion_recall", kind="preferences", agent="agent-a")
        assert boosted["preference_boost"]["agent_id"] == "agent-a" and boosted["notes"]
    for name in ("OUTCOMES.md", "PATTERNS.md", "ERRORS.md", "PREFERENCES.md"):
        assert (legion_dir(workspace) / name).is_file(), name


def rpc(process: subprocess.Popen[bytes], message: dict[str, Any]) -> dict[str, Any] | None:
    """Send one JSON-RPC message; for a request, read stdout up to its answer (every line must be a protocol
    message: nothing else may reach stdout)."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()
    while "id" in message:
        answer = json.loads(process.stdout.readline())
        assert answer["jsonrpc"] == "2.0"
        if answer.get("id") == message["id"]:
            return answer
    return None


def processes_naming(text: str) -> list[int]:
    """Ids of the running processes whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:  # it ended meanwhile
            continue
    return found


async def test_record_tools_answer_like_the_cli(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each record tool writes to the server's Legion folder what ``mneme legion record … --json`` writes to a
    second folder with the same arguments: the same document but for the file's folder, the same file text."""
    twin = workspace / "twin"
    async with server(workspace) as session:
        for tool, arguments, argv in (
            (
                "legion_record_outcome",
                {
                    "agent": "agent-a",
                    "outcome": "partial",
                    "summary": "half the parser",
                    "review_cycles": 2,
                    "tags": ["parser"],
                },
                [
                    "outcome",
                    "--agent",
                    "agent-a",
                    "--outcome",
                    "partial",
                    "--summary",
                    "half the parser",
                    "--review-cycles",
                    "2",
                    "--tags",
                    "parser",
                ],
            ),
            (
                "legion_record_pattern",
                {"pattern": "parse in two passes", "context": "the parser", "source": "O-001"},
                ["pattern", "--pattern", "parse in two passes", "--context", "the parser", "--source", "O-001"],
            ),
            (
                "legion_record_error",
                {"error_signature": "KeyError: 'id'", "fix": "check the key", "resolved": False},
                ["error", "--error-signature", "KeyError: 'id'", "--fix", "check the key", "--unresolved"],
            ),
            (
                "legion_record_preference",
                {
                    "decision_point": "manual-edit",
                    "context": "which parser",
                    "signal": "corrective",
                    "user_choice": "a real parser",
                },
                [
                    "preference",
                    "--decision-point",
                    "manual-edit",
                    "--context",
                    "which parser",
                    "--signal",
                    "corrective",
                    "--user-choice",
                    "a real parser",
                ],
            ),
        ):
            recorded = await call(session, tool, **arguments, branch="main")
            expected = cli_json(capsys, workspace, "legion", "record", *argv, "--branch", "main", "--dir", str(twin))
            assert recorded == {**expected, "file": expected["file"].replace(str(twin), str(legion_dir(workspace)))}
    for name in ("OUTCOMES.md", "PATTERNS.md", "ERRORS.md", "PREFERENCES.md"):
        assert (legion_dir(workspace) / name).read_text() == (twin / name).read_text(), name


def test_exits_when_the_client_closes_stdin(workspace: Path) -> None:
    """Only protocol on stdout, even when a damaged Legion file makes the briefing warn (the warning is in the
    result, as in the CLI's JSON); closing stdin ends the server with status 0 and leaves no process behind."""
    folder = legion_dir(workspace)
    folder.mkdir(parents=True)
    (folder / "OUTCOMES.md").write_bytes(b"# Outcomes\n\xff\xfe not UTF-8\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "mneme_tui", "mcp", "--db", str(db(workspace)), "--legion-dir", str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    started = rpc(
        process,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        },
    )
    assert started is not None and started["result"]["serverInfo"]["name"] == "mneme"
    rpc(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    answer = rpc(
        process,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "legion_briefing", "arguments": {}}},
    )
    assert answer is not None and not answer["result"]["isError"]
    briefing = json.loads(answer["result"]["content"][0]["text"])
    assert any("OUTCOMES.md could not be parsed" in warning for warning in briefing["warnings"])
    out, err = process.communicate(b"", timeout=60)  # closes stdin
    assert process.returncode == 0, err
    assert out == b"" and b"Traceback" not in err
    assert processes_naming(str(db(workspace))) == []


async def test_lone_surrogates_in_arguments_are_refused(workspace: Path) -> None:
    """A lone surrogate in a text argument (JSON can carry one; the SDK's stdio transport happens to drop such
    messages, so the tools are called in-process) is a tool error naming the argument; nothing is written."""
    from mneme_tui.errors import MnemeError
    from mneme_tui.mcp.context import Call, ServerContext
    from mneme_tui.mcp.tools import answer
    from mneme_tui.memory.store import Store

    store = Store(db(workspace))
    context = Call(ServerContext(store, REPO, "spec", workspace, legion_dir(workspace)))
    for tool, arguments in (
        ("save", {"content": "bad \udcff byte"}),
        ("save", {"content": "x", "topic": "\ud800"}),
        ("recall", {"query": "\udcff"}),
        ("supersede", {"memory_id": 1, "content": "\udcff"}),
        ("legion_recall", {"kind": "errors", "query": "\udcff"}),
        ("task_sync", {"report": {"task_id": "\udcff"}}),
        ("legion_record_pattern", {"pattern": "\udcff"}),
    ):
        with pytest.raises(MnemeError, match="ERR_VALIDATION_FAILED"):
            answer(context, tool, arguments)
    assert store.list(status="all", repo_id=None) == []
    assert not legion_dir(workspace).exists()


def test_bad_options_fail_in_one_line_before_serving(workspace: Path) -> None:
    """A bad option fails before serving; a store that cannot be opened is said once on stderr and the server
    starts anyway (every call then answers why: test_mcp_faults.py), here ending at once on a closed stdin."""
    for argv, code, status in (
        (["--root", str(workspace / "missing")], "ERR_VALIDATION_FAILED", 1),
        (["--db", str(workspace / "src" / "store.py")], "ERR_DATABASE", 0),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "mneme_tui", "mcp", *argv],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == status and done.stdout == ""
        assert done.stderr.count("\n") == 1 and code in done.stderr, done.stderr


def test_other_commands_do_not_import_the_sdk() -> None:
    code = "import sys; from mneme_tui.cli import build_parser; build_parser(); print('mcp' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


async def test_budget_argument_cuts_what_the_tool_answers(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``budget`` on recall, handshake, legion_briefing and legion_recall: the ``--budget N --json`` document's
    shape, measured on the compact JSON the tool answers (so it keeps at least what the CLI's indented JSON keeps);
    ``budget: 0`` is one ERR_VALIDATION_FAILED line."""
    from mneme_tui.display import compact_json
    from mneme_tui.memory.budget import estimate_tokens

    folder = str(legion_dir(workspace))
    for n in range(6):
        cli_json(capsys, workspace, "save", f"the upload worker retries job {n} with jitter " + "and backs off " * n)
        cli_json(
            capsys,
            workspace,
            "legion",
            "record",
            "outcome",
            "--dir",
            folder,
            "--agent",
            "agent-a",
            "--outcome",
            "success",
            "--summary",
            f"shipped change {n} of the upload worker",
            "--branch",
            "main",
        )
    async with server(workspace) as session:
        answers = {
            "recall": (
                await call(session, "recall", query="upload worker", limit=6, detail=True, budget=300),
                ["recall", "upload worker", "-n", "6", "--budget", "300"],
            ),
            "handshake": (await call(session, "handshake", budget=400), ["handshake", "--budget", "400"]),
            "legion_briefing": (
                await call(session, "legion_briefing", budget=900),
                ["legion", "briefing", "--dir", folder, "--budget", "900"],
            ),
            "legion_recall": (
                await call(session, "legion_recall", budget=250),
                ["legion", "recall", "--dir", folder, "--budget", "250"],
            ),
        }
        refused = await error(session, "recall", query="upload", budget=0)
    assert refused.count("\n") == 0 and "ERR_VALIDATION_FAILED: budget must be at least 1: '0'" in refused
    for tool, (answer, argv) in answers.items():
        budget, cli = int(argv[-1]), cli_json(capsys, workspace, *argv)
        assert set(answer) == set(cli) and answer["budget"]["tokens"] == budget, tool
        assert estimate_tokens(compact_json(answer)) <= budget, tool
        assert estimate_tokens(json.dumps(cli, indent=2, ensure_ascii=False)) <= budget, tool
        assert answer["budget"]["left_out"] <= cli["budget"]["left_out"], tool
    recalled = answers["recall"][0]["results"]
    assert {r["id"] for r in cli_json(capsys, workspace, *answers["recall"][1])["results"]} <= {
        r["id"] for r in recalled
    }
    for tool in ("recall", "legion_recall"):
        assert cli_json(capsys, workspace, *answers[tool][1])["budget"]["left_out"] > 0, tool
