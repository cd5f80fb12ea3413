"""``mneme setup AGENT`` against a temporary home and project, for every agent and both scopes: a fresh file,
a file with other servers and settings (kept as they were), a second run (changes nothing), ``--remove``
(gives back the file as it was), ``--dry-run`` (writes nothing) and a broken file (one error line, nothing
written)."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from mneme_tui.agent_setup.agents import AGENTS, SESSION_START_COMMANDS
from mneme_tui.agent_setup.names import AGENT_NAMES
from mneme_tui.cli import main

AGENTS_PAGE = Path(__file__).parents[2] / "docs" / "agents.md"
#: Where each agent reads its MCP servers, relative to the project (project scope) or the home (user scope),
#: and the key path of mneme's entry in it.
SERVER_FILES = {
    "claude-code": (".mcp.json", ".claude.json", ("mcpServers", "mneme")),
    "cursor": (".cursor/mcp.json", ".cursor/mcp.json", ("mcpServers", "mneme")),
    "codex": (".codex/config.toml", ".codex/config.toml", ("mcp_servers", "mneme")),
    "gemini-cli": (".gemini/settings.json", ".gemini/settings.json", ("mcpServers", "mneme")),
    "opencode": ("opencode.json", "xdg_config_home/opencode/opencode.json", ("mcp", "servers", "mneme")),
}
CASES = [(agent, scope) for agent in SERVER_FILES for scope in ("project", "user")]
OTHER_TOML = (
    '# my settings\nmodel = "o3"  # the default\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\nargs = ["serve"]\n'
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "shop"
    (folder / ".git").mkdir(parents=True)
    monkeypatch.chdir(folder)
    return folder


def server_file(agent: str, scope: str, project: Path) -> Path:
    project_path, user_path, _keys = SERVER_FILES[agent]
    return project / project_path if scope == "project" else Path(os.environ["HOME"]) / user_path


def load(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    return tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)


def at(document: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        document = document[key]
    return document


def setup(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["setup", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def with_other_servers(agent: str, path: Path) -> str:
    """Write a file that already holds another server and other settings; return its text."""
    if path.suffix == ".toml":
        text = OTHER_TOML
    else:
        _project, _user, keys = SERVER_FILES[agent]
        document: dict[str, Any] = {"theme": "dark"}
        table = document
        for key in keys[:-1]:
            table = table.setdefault(key, {})
        table["docs"] = {"command": "docs-mcp", "args": ["serve"]}
        text = json.dumps(document, indent=2) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text


@pytest.mark.parametrize("agent, scope", CASES)
def test_a_fresh_setup_writes_the_server_and_a_second_run_changes_nothing(agent, scope, project, capsys):
    status, out, err = setup(capsys, agent, "--scope", scope)
    assert (status, err) == (0, "")
    path = server_file(agent, scope, project)
    entry = at(load(path), SERVER_FILES[agent][2])
    assert entry["command"] in ("mneme", ["mneme", "mcp"]) and "mcp" in json.dumps(entry)
    assert f"added {'.'.join(SERVER_FILES[agent][2])} in {path} (new file)" in out.splitlines()
    before = {file: file.read_bytes() for file in project.parent.rglob("*") if file.is_file()}
    status, out, err = setup(capsys, agent, "--scope", scope, "--json")
    result = json.loads(out)
    assert status == 0 and {file["status"] for file in result["files"]} == {"unchanged"}
    assert {change["action"] for file in result["files"] for change in file["changes"]} == {"unchanged"}
    assert before == {file: file.read_bytes() for file in project.parent.rglob("*") if file.is_file()}


@pytest.mark.parametrize("agent, scope", CASES)
def test_other_servers_and_settings_are_kept_and_remove_gives_the_file_back(agent, scope, project, capsys):
    path = server_file(agent, scope, project)
    original = with_other_servers(agent, path)
    status, out, _err = setup(capsys, agent, "--scope", scope, "--json")
    assert status == 0
    written = load(path)
    keys = SERVER_FILES[agent][2]
    assert at(written, keys[:-1])["docs"] == {"command": "docs-mcp", "args": ["serve"]}
    assert "mneme" in at(written, keys[:-1])
    if path.suffix == ".toml":
        assert path.read_text(encoding="utf-8").startswith(OTHER_TOML)  # comments and layout kept
    else:
        assert written["theme"] == "dark"
    changed = next(file for file in json.loads(out)["files"] if file["path"] == str(path))
    assert changed["status"] == "updated" and Path(changed["backup"]).read_text(encoding="utf-8") == original
    status, out, _err = setup(capsys, agent, "--scope", scope, "--remove")
    assert status == 0 and f"removed {'.'.join(keys)} in {path}" in out.splitlines()
    assert path.read_text(encoding="utf-8") == original
    status, out, _err = setup(capsys, agent, "--scope", scope, "--remove")
    assert status == 0 and f"not there: {'.'.join(keys)} in {path}" in out.splitlines()


@pytest.mark.parametrize("agent", list(SERVER_FILES))
def test_a_broken_file_is_left_alone_with_one_error_line(agent, project, capsys):
    path = server_file(agent, "project", project)
    path.parent.mkdir(parents=True, exist_ok=True)
    broken = "[mcp_servers\ncommand = " if path.suffix == ".toml" else '{"mcpServers": {"docs": '
    path.write_text(broken, encoding="utf-8")
    status, out, err = setup(capsys, agent)
    assert (status, out) == (1, "")
    assert len(err.splitlines()) == 1 and err.startswith(f"mneme: ERR_CONFIG: {path}: not valid ")
    assert path.read_text(encoding="utf-8") == broken
    assert sorted(file.name for file in project.rglob("*") if file.is_file()) == [path.name]  # nothing else


def test_a_broken_file_stops_the_other_files_of_the_agent_too(project, capsys):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"hooks": []}', encoding="utf-8")
    status, _out, err = setup(capsys, "claude-code")
    assert status == 1 and "`hooks.SessionStart`" not in err and "is not a table" in err
    assert not (project / ".mcp.json").exists()


def test_an_edited_entry_is_kept_and_not_removed(project, capsys):
    path = project / ".cursor" / "mcp.json"
    path.parent.mkdir()
    mine = {"mcpServers": {"mneme": {"command": "mneme", "args": ["mcp"], "env": {"MNEME_DB": "/data/m.db"}}}}
    path.write_text(json.dumps(mine), encoding="utf-8")
    for argv in ((), ("--remove",)):
        status, out, _err = setup(capsys, "cursor", *argv)
        assert status == 0 and out.startswith("kept (differs from what setup writes; edit it by hand): mcpServers")
        assert load(path) == mine


def test_dry_run_prints_the_changes_and_writes_nothing(project, capsys):
    status, out, _err = setup(capsys, "claude-code", "--dry-run")
    assert status == 0 and out.splitlines() == [
        f"would add mcpServers.mneme in {project / '.mcp.json'} (new file)",
        f"would add hooks.SessionStart[] in {project / '.claude' / 'settings.json'} (new file)",
    ]
    assert [file.name for file in project.rglob("*")] == [".git"]


def test_claude_code_gets_the_documented_session_start_hook(project, capsys):
    with_other_servers("claude-code", project / ".claude" / "settings.json")  # a settings file with a theme
    assert setup(capsys, "claude-code")[0] == 0
    settings = load(project / ".claude" / "settings.json")
    assert settings["theme"] == "dark"
    [group] = settings["hooks"]["SessionStart"]
    assert [hook["command"] for hook in group["hooks"]] == list(SESSION_START_COMMANDS)
    assert load(project / ".mcp.json") == {
        "mcpServers": {"mneme": {"type": "stdio", "command": "mneme", "args": ["mcp"], "env": {}}}
    }


def test_the_hook_commands_are_the_recipe_of_the_agents_page():
    blocks = re.findall(r"```json\n(.*?)```", AGENTS_PAGE.read_text(encoding="utf-8"), re.DOTALL)
    recipe = next(json.loads(block) for block in blocks if "SessionStart" in block)
    documented = [hook["command"] for group in recipe["hooks"]["SessionStart"] for hook in group["hooks"]]
    assert documented == list(SESSION_START_COMMANDS)


def test_the_project_is_the_git_work_tree_or_root(project, capsys, tmp_path):
    (project / "src").mkdir()
    os.chdir(project / "src")
    assert setup(capsys, "cursor")[0] == 0 and (project / ".cursor" / "mcp.json").is_file()
    assert setup(capsys, "cursor", "--root", str(tmp_path))[0] == 0 and (tmp_path / ".cursor" / "mcp.json").is_file()


def test_every_agent_is_tested_and_offered():
    assert set(AGENTS) == set(SERVER_FILES)
    assert tuple(AGENTS) == AGENT_NAMES  # the parser's choices (names.py, light to import) are the agents


def test_json_with_comments_is_refused_rather_than_rewritten_without_them(project, capsys):
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    commented = '{\n  // my theme\n  "theme": "dark"\n}\n'
    path.write_text(commented, encoding="utf-8")
    status, _out, err = setup(capsys, "gemini-cli")
    assert status == 1 and err.startswith(f"mneme: ERR_CONFIG: {path}: not valid JSON (line 2 column 3")
    assert path.read_text(encoding="utf-8") == commented
