"""Read-only access to Claude Code's project memory (spec §14): never written, absence is silent.

Claude Code keeps ``~/.claude/projects/<project>/memory/MEMORY.md`` where ``<project>`` is the
absolute project path with ``/`` replaced by ``-`` (newer versions also replace every other
character that is not a letter, digit or ``-``; both spellings are tried).
"""

from __future__ import annotations

import re
from pathlib import Path

EXCERPT_CHARS = 500
EXCERPT_LINES = 12


def project_folder_names(project_root: Path) -> list[str]:
    absolute = str(project_root.resolve())
    names = [absolute.replace("/", "-"), re.sub(r"[^A-Za-z0-9-]", "-", absolute)]
    return list(dict.fromkeys(names))


def claude_memory_path(project_root: Path, home: Path) -> Path | None:
    """The existing MEMORY.md for ``project_root`` under ``home``, or None."""
    for name in project_folder_names(project_root):
        candidate = home / ".claude" / "projects" / name / "memory" / "MEMORY.md"
        if candidate.is_file():
            return candidate
    return None


def claude_memory_excerpt(project_root: Path, home: Path) -> str:
    """The first ~12 lines / ~500 characters of Claude Code's MEMORY.md, or "" when absent."""
    path = claude_memory_path(project_root, home)
    if path is None:
        return ""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    lines = text.strip("\n").split("\n")
    excerpt = "\n".join(lines[:EXCERPT_LINES])
    truncated = len(lines) > EXCERPT_LINES
    if len(excerpt) > EXCERPT_CHARS:
        excerpt = excerpt[:EXCERPT_CHARS].rstrip()
        truncated = True
    return excerpt + ("\n…" if truncated else "")
