"""What a Legion sync did: per-file counts (:class:`FileSync`), exports and warnings (:class:`SyncReport`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mneme_tui.legion.mirror.sync_export import ExportedMemory

COUNTS = ("records", "added", "updated", "unchanged", "removed", "not_imported", "exported")


@dataclass
class FileSync:
    """What a sync did with one file."""

    file: str
    exists: bool = True
    parseable: bool = True
    records: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    not_imported: int = 0
    exported: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def skipped(self) -> bool:
        """True for a file that exists but did not parse (left alone, never rewritten)."""
        return self.exists and not self.parseable

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "exists": self.exists,
            "parseable": self.parseable,
            "skipped": self.skipped,
            "records": self.records,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "not_imported": self.not_imported,
            "exported": self.exported,
            "warnings": list(self.warnings),
        }


@dataclass
class SyncReport:
    """The result of :func:`mneme_tui.legion.mirror.sync.sync`: per-file counts, exports and warnings."""

    project: str
    memory_dir: str
    synced: bool = False
    message: str = ""
    files: list[FileSync] = field(default_factory=list)
    exports: list[ExportedMemory] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    longest_write_seconds: float = 0.0
    """The longest any one write transaction of the import held the store's lock (for the bench; not JSON)."""

    def file(self, name: str) -> FileSync:
        found = next((f for f in self.files if f.file == name), None)
        if found is None:
            found = FileSync(name)
            self.files.append(found)
        return found

    @property
    def totals(self) -> dict[str, int]:
        return {name: sum(getattr(f, name) for f in self.files) for name in COUNTS}

    def summary(self) -> str:
        """One line for a status bar or notification."""
        if not self.synced:
            return self.message
        skipped = [f.file for f in self.files if f.skipped]
        tail = f"; skipped (did not parse): {', '.join(skipped)}" if skipped else ""
        return f"Legion sync: {self.message}{tail}."

    @property
    def changed(self) -> bool:
        totals = self.totals
        return any(totals[name] for name in ("added", "updated", "removed", "exported"))

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "memory_dir": self.memory_dir,
            "synced": self.synced,
            "message": self.message,
            "files": [f.to_json() for f in self.files],
            "totals": self.totals,
            "exports": [e.to_json() for e in self.exports],
            "warnings": list(self.warnings),
        }
