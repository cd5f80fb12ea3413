"""The agents ``mneme setup`` knows: for each scope, the files it writes and the entries in them, in the
format each agent documents (docs/setup.md cites where)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mneme_tui.agent_setup.documents import JSON, TOML, Entry, Format
from mneme_tui.agent_setup.names import Scope

#: The SessionStart recipe of docs/agents.md (tests/setup checks they agree): orientation and briefing.
SESSION_START_COMMANDS = ("mneme handshake -n 10 --budget 1500", "mneme legion briefing --budget 600")
SERVER_NAME = "mneme"
MCP_ARGS = ["mcp"]


@dataclass(frozen=True)
class ConfigFile:
    """One file an agent reads, and the entries setup keeps in it."""

    path: Path
    format: Format
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class Agent:
    """An agent: its name and, for a scope, the files to write (``files(base)`` with ``base`` the project
    folder for the project scope, the home folder for the user scope)."""

    name: str
    project: Callable[[Path], tuple[ConfigFile, ...]]
    user: Callable[[Path], tuple[ConfigFile, ...]]

    def files(self, scope: Scope, base: Path) -> tuple[ConfigFile, ...]:
        return (self.project if scope == "project" else self.user)(base)


def _server(keys: tuple[str, ...], value: dict[str, Any]) -> Entry:
    return Entry(keys, SERVER_NAME, value)


STDIO_SERVER = {"command": "mneme", "args": MCP_ARGS}
CLAUDE_SERVER = _server(("mcpServers",), {"type": "stdio", **STDIO_SERVER, "env": {}})
CLAUDE_HOOK = Entry(
    ("hooks", "SessionStart"),
    None,
    {
        "matcher": "startup|clear|compact",
        "hooks": [{"type": "command", "command": command} for command in SESSION_START_COMMANDS],
    },
)
MCP_SERVERS = _server(("mcpServers",), STDIO_SERVER)
CODEX_SERVER = _server(("mcp_servers",), STDIO_SERVER)
OPENCODE_SERVER = _server(("mcp", "servers"), {"type": "local", "command": ["mneme", *MCP_ARGS]})


def _claude(mcp_file: Path, settings_folder: Path) -> tuple[ConfigFile, ...]:
    return (
        ConfigFile(mcp_file, JSON, (CLAUDE_SERVER,)),
        ConfigFile(settings_folder / ".claude" / "settings.json", JSON, (CLAUDE_HOOK,)),
    )


def _one(relative: str, fmt: Format, entry: Entry) -> Callable[[Path], tuple[ConfigFile, ...]]:
    return lambda base: (ConfigFile(base / relative, fmt, (entry,)),)


AGENTS: dict[str, Agent] = {
    agent.name: agent
    for agent in (
        Agent(
            "claude-code",
            lambda root: _claude(root / ".mcp.json", root),
            lambda home: _claude(home / ".claude.json", home),
        ),
        Agent("cursor", _one(".cursor/mcp.json", JSON, MCP_SERVERS), _one(".cursor/mcp.json", JSON, MCP_SERVERS)),
        Agent("codex", _one(".codex/config.toml", TOML, CODEX_SERVER), _one(".codex/config.toml", TOML, CODEX_SERVER)),
        Agent(
            "gemini-cli",
            _one(".gemini/settings.json", JSON, MCP_SERVERS),
            _one(".gemini/settings.json", JSON, MCP_SERVERS),
        ),
        Agent(
            "opencode",
            _one("opencode.json", JSON, OPENCODE_SERVER),
            lambda home: _one("opencode/opencode.json", JSON, OPENCODE_SERVER)(
                Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
            ),
        ),
    )
}
