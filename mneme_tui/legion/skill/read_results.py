"""What reading a Legion memory folder returns: each file as read (:class:`FileReport`), the whole folder
(:class:`MemoryReport`) and recalled pattern / error / preference records (:class:`RecallResult`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from mneme_tui.legion.markdown.document import NotImported
from mneme_tui.legion.markdown.legion_records import Record


@dataclass
class FileReport:
    """One memory file as read: records, not-imported blocks and warnings."""

    file: str
    exists: bool
    parseable: bool
    records: list[Record] = field(default_factory=list)
    not_imported: list[NotImported] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def record_count(self) -> int:
        return len(self.records)

    @property
    def not_imported_count(self) -> int:
        return len(self.not_imported)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "exists": self.exists,
            "parseable": self.parseable,
            "record_count": self.record_count,
            "records": [r.to_json() for r in self.records],
            "not_imported_count": self.not_imported_count,
            "not_imported": [asdict(n) for n in self.not_imported],
            "warnings": list(self.warnings),
        }


@dataclass
class MemoryReport:
    """Every memory file in the folder, known ones first."""

    memory_dir: str
    files: list[FileReport] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return [w for f in self.files for w in f.warnings]

    def file(self, name: str) -> FileReport | None:
        return next((f for f in self.files if f.file == name), None)

    def to_json(self) -> dict[str, Any]:
        return {"memory_dir": self.memory_dir, "files": [f.to_json() for f in self.files], "warnings": self.warnings}


@dataclass
class RecallResult:
    """Recalled pattern / error / preference records with the file's warnings."""

    records: list[Record] = field(default_factory=list)
    total_records: int = 0
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "records": [r.to_json() for r in self.records],
            "total_records": self.total_records,
            "warnings": list(self.warnings),
        }
