"""The current git branch (``git branch --show-current``, ``unknown`` when git cannot say) and the
repository's default branch (spec §11: rows without a Branch are read as the default branch)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from mneme_tui.legion.markdown.schemas import DEFAULT_BRANCH

UNKNOWN_BRANCH = "unknown"
GIT_TIMEOUT = 5.0
_REMOTE_HEAD_PREFIX = "refs/remotes/origin/"

#: A branch provider: given the project root, return the branch name (or raise / return "").
BranchProvider = Callable[[Path], str]


def _git(root: Path, *arguments: str) -> str:
    """The stripped output of a local git command in ``root`` ("" on any failure; never the network)."""
    try:
        done = subprocess.run(
            ["git", *arguments], cwd=root, capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def git_branch(root: Path) -> str:
    """Run ``git branch --show-current`` in ``root``; any failure or empty output gives ``unknown``."""
    return _git(root, "branch", "--show-current") or UNKNOWN_BRANCH


def current_branch(root: Path, provider: BranchProvider | None = None) -> str:
    """The branch from ``provider`` (default: git), with the spec's ``unknown`` fallback."""
    try:
        name = (provider or git_branch)(root)
    except Exception:  # an injected provider may fail in any way; memory must not
        return UNKNOWN_BRANCH
    return (name or "").strip() or UNKNOWN_BRANCH


def default_branch(root: Path) -> str:
    """The repository's default branch: ``origin/HEAD``'s target, else ``init.defaultBranch``, else ``main``.

    Outside a git work tree the answer is ``main``. All are local reads (``git rev-parse``,
    ``git symbolic-ref``, ``git config``); nothing contacts a remote.
    """
    if _git(root, "rev-parse", "--is-inside-work-tree") != "true":
        return DEFAULT_BRANCH
    remote_head = _git(root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
    if remote_head.startswith(_REMOTE_HEAD_PREFIX) and remote_head[len(_REMOTE_HEAD_PREFIX) :]:
        return remote_head[len(_REMOTE_HEAD_PREFIX) :]
    return _git(root, "config", "--get", "init.defaultBranch") or DEFAULT_BRANCH
