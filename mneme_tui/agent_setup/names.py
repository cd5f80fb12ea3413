"""The agents and scopes ``mneme setup`` takes, importable without the file formats (the CLI's parser
is built from them at every start)."""

from __future__ import annotations

from typing import Literal

Scope = Literal["project", "user"]
SCOPES: tuple[Scope, ...] = ("project", "user")
AGENT_NAMES = ("claude-code", "cursor", "codex", "gemini-cli", "opencode")
