"""Directory scopes and learning topics: where a learning applies, and how its topic is spelled.

A *directory scope* is the parent directory of a repository file, relative to the repository, in posix
form (``src/store/store.py`` → ``src/store``; ``setup.py`` → ``.``). Pitfall topics are
``<gate> @ <scope>`` and pattern topics ``pattern:<scope>`` (spec §3.1's example).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError

ROOT_SCOPE = "."
PATTERN_PREFIX = "pattern:"
TOPIC_SEPARATOR = " @ "

STRUCTURAL_GATES: tuple[str, ...] = (
    "Cognitive Complexity",
    "Function Length",
    "File Length",
    "Docstring Density",
    "Statement Coverage",
)
"""Tier-C structural AST gates (spec §4.2): they graduate only on recurrence, never on access count."""

_FOLD = re.compile(r"[\s_\-]+")


def repo_path(raw: str) -> str:
    """A repository-relative posix path, normalised; absolute paths and ``..`` raise ERR_VALIDATION_FAILED."""
    text = raw.strip().replace("\\", "/")
    if not text:
        raise MnemeError(ERR_VALIDATION_FAILED, "file path cannot be empty")
    if text.startswith("/") or re.match(r"^[A-Za-z]:/", text):
        raise MnemeError(ERR_VALIDATION_FAILED, f"file path must be relative to the repository: {raw!r}")
    parts = [part for part in PurePosixPath(text).parts if part not in ("", ".")]
    if ".." in parts:
        raise MnemeError(ERR_VALIDATION_FAILED, f"file path cannot leave the repository ('..'): {raw!r}")
    if not parts:
        raise MnemeError(ERR_VALIDATION_FAILED, f"not a file path: {raw!r}")
    return "/".join(parts)


def relative_to_root(raw: str, root: Path) -> str:
    """A command-line path as a repository path: absolute paths inside ``root`` are made relative to it;
    relative paths are taken as repository-relative (as ``git diff --name-only`` prints them)."""
    path = Path(raw).expanduser()
    if path.is_absolute():
        try:
            return repo_path(path.resolve().relative_to(root.resolve()).as_posix())
        except ValueError:
            raise MnemeError(ERR_VALIDATION_FAILED, f"{raw} is outside the repository root {root}") from None
    return repo_path(raw)


def directory_scope(path: str) -> str:
    """The directory scope of a repository file: its parent directory, ``.`` at the root."""
    parent = PurePosixPath(repo_path(path)).parent.as_posix()
    return ROOT_SCOPE if parent in ("", ".") else parent


def common_scope(paths: Iterable[str]) -> str:
    """The deepest directory containing every path's scope (``.`` when they share none or there are none)."""
    scopes = [directory_scope(path).split("/") for path in paths]
    scopes = [[] if parts == [ROOT_SCOPE] else parts for parts in scopes]
    if not scopes:
        return ROOT_SCOPE
    shared: list[str] = []
    for column in zip(*scopes):
        if len(set(column)) != 1:
            break
        shared.append(column[0])
    return "/".join(shared) or ROOT_SCOPE


def below(path: str, scope: str) -> bool:
    """True when repository file ``path`` is anywhere under directory ``scope`` (``.`` holds every file)."""
    directory = directory_scope(path)
    return scope == ROOT_SCOPE or directory == scope or directory.startswith(scope.rstrip("/") + "/")


def in_scope(path: str, scope: str) -> bool:
    """True when repository file ``path`` lies inside directory ``scope``, at any depth.

    The root scope ``.`` is the exception: it holds only files at the root, since every file is somewhere
    below the root and a root-level learning would otherwise match every change.
    """
    if scope == ROOT_SCOPE:
        return directory_scope(path) == ROOT_SCOPE
    return below(path, scope)


def pitfall_topic(gate: str, scope: str) -> str:
    """Topic of a pitfall: ``<gate> @ <scope>``."""
    return f"{gate}{TOPIC_SEPARATOR}{scope}"


def pattern_topic(scope: str) -> str:
    """Topic of a pattern blueprint: ``pattern:<scope>``."""
    return f"{PATTERN_PREFIX}{scope}"


def split_topic(topic: str) -> tuple[str, str | None]:
    """``(gate, scope)`` of a pitfall topic; topics not written by task sync give ``(topic, None)``."""
    if topic.startswith(PATTERN_PREFIX):
        return "pattern", topic[len(PATTERN_PREFIX) :].strip() or ROOT_SCOPE
    gate, separator, scope = topic.rpartition(TOPIC_SEPARATOR)
    if not separator or not gate.strip() or not scope.strip():
        return topic.strip(), None
    return gate.strip(), scope.strip()


def is_structural(gate: str) -> bool:
    """True for the spec's structural AST gates (case, spaces, ``_`` and ``-`` ignored)."""
    folded = _FOLD.sub(" ", gate).strip().casefold()
    return any(folded == name.casefold() for name in STRUCTURAL_GATES)
