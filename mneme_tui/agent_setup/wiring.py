"""Setting an agent up (or undoing it): read every file first (a broken one stops everything, nothing
written), change only setup's own entries, back a changed file up beside itself, write it atomically."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mneme_tui import config
from mneme_tui.agent_setup.agents import AGENTS, ConfigFile
from mneme_tui.agent_setup.documents import Action, Document, add_entry, remove_entry
from mneme_tui.agent_setup.names import Scope
from mneme_tui.errors import ERR_CONFIG, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.markdown.storage import atomic_write


@dataclass
class FileChange:
    """What setup did (or, dry, would do) to one file."""

    path: Path
    status: str  # created, updated or unchanged
    changes: list[tuple[str, Action]]
    backup: Path | None = None
    text: str = field(default="", repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "status": self.status,
            "backup": str(self.backup) if self.backup else None,
            "changes": [{"entry": label, "action": action} for label, action in self.changes],
        }


@dataclass
class SetupResult:
    """The outcome of one ``mneme setup`` run."""

    agent: str
    scope: Scope
    dry_run: bool
    remove: bool
    files: list[FileChange]

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "scope": self.scope,
            "dry_run": self.dry_run,
            "remove": self.remove,
            "files": [change.to_json() for change in self.files],
        }


def set_up_agent(agent: str, scope: Scope, base: Path, *, remove: bool = False, dry_run: bool = False) -> SetupResult:
    """Register (or with ``remove`` unregister) mneme in ``agent``'s files for ``scope``; ``base`` is the
    project folder or the home folder. Raises ERR_CONFIG, changing nothing, when a file does not parse."""
    if agent not in AGENTS:
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown agent {agent!r}; expected one of {', '.join(AGENTS)}")
    planned = [_plan(file, remove) for file in AGENTS[agent].files(scope, base)]
    if not dry_run:
        for change in planned:
            _write(change)
    return SetupResult(agent, scope, dry_run, remove, planned)


def _plan(file: ConfigFile, remove: bool) -> FileChange:
    """The change to ``file`` and its new text, computed without writing."""
    original = _read(file.path)
    try:
        document: Document = file.format.parse(original or "")
        change = remove_entry if remove else add_entry
        actions = [(entry.label, change(document, entry, file.format)) for entry in file.entries]
    except (ValueError, MnemeError) as exc:
        reason = exc.message if isinstance(exc, MnemeError) else str(exc)
        raise MnemeError(ERR_CONFIG, f"{file.path}: {reason}; left unchanged (nothing was written)") from None
    changed = any(action in ("added", "removed") for _label, action in actions)
    status = "unchanged" if not changed else "created" if original is None else "updated"
    return FileChange(file.path, status, actions, text=file.format.render(document, original or "") if changed else "")


def _read(path: Path) -> str | None:
    """The file's text, None when it does not exist."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise MnemeError(ERR_CONFIG, f"{path}: not UTF-8 text; left unchanged (nothing was written)") from None
    except OSError as exc:
        raise MnemeError(ERR_CONFIG, f"{path}: cannot read it ({exc.strerror or exc})") from None


def _write(change: FileChange) -> None:
    """Back the existing file up, then swap the new text in."""
    if change.status == "unchanged":
        return
    try:
        if change.status == "updated":
            change.backup = _backup_path(change.path)
            shutil.copy2(change.path, change.backup)
        change.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(change.path, change.text)
    except OSError as exc:
        raise MnemeError(ERR_CONFIG, f"{change.path}: cannot write it ({exc.strerror or exc})") from None


def _backup_path(path: Path) -> Path:
    """``NAME.mneme-backup-<UTC time>`` beside ``path``, never over an earlier backup."""
    stem = f"{path.name}.mneme-backup-{config.now():%Y%m%dT%H%M%SZ}"
    candidate, number = path.with_name(stem), 1
    while candidate.exists():
        candidate, number = path.with_name(f"{stem}-{number}"), number + 1
    return candidate
