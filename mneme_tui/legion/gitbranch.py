"""The current git branch, via ``git branch --show-current`` (``unknown`` when git cannot say)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

UNKNOWN_BRANCH = "unknown"

#: A branch provider: given the project root, return the branch name (or raise / return "").
BranchProvider = Callable[[Path], str]


def git_branch(root: Path) -> str:
    """Run ``git branch --show-current`` in ``root``; any failure or empty output gives ``unknown``."""
    try:
        done = subprocess.run(
            ["git", "branch", "--show-current"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return UNKNOWN_BRANCH
    name = done.stdout.strip() if done.returncode == 0 else ""
    return name or UNKNOWN_BRANCH


def current_branch(root: Path, provider: BranchProvider | None = None) -> str:
    """The branch from ``provider`` (default: git), with the spec's ``unknown`` fallback."""
    try:
        name = (provider or git_branch)(root)
    except Exception:  # an injected provider may fail in any way; memory must not
        return UNKNOWN_BRANCH
    return (name or "").strip() or UNKNOWN_BRANCH
