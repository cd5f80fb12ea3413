"""What a Legion sync would do, read without writing anything: records new to the store and store memories
that would be appended to the markdown files, counted per file. The TUI shows it before its first sync of a
session writes into files that git tracks."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from mneme_tui.legion.mirror import record_mapping as mt
from mneme_tui.legion.mirror.sync_export import export_candidates
from mneme_tui.legion.mirror.sync_pairing import pair_records
from mneme_tui.legion.skill.api import LegionMemory
from mneme_tui.memory.store import Store


@dataclass(frozen=True)
class SyncPreview:
    """Per file: how many records the sync would import, and how many memories it would export to it."""

    imports: dict[str, int] = field(default_factory=dict)
    exports: dict[str, int] = field(default_factory=dict)

    @property
    def writes_files(self) -> bool:
        return any(self.exports.values())

    def lines(self) -> list[str]:
        """``PATTERNS.md: import 2, export 3`` for every file the sync would touch, in name order."""
        files = sorted(set(self.imports) | set(self.exports))
        return [f"{name}: import {self.imports.get(name, 0)}, export {self.exports.get(name, 0)}" for name in files]


def preview_sync(store: Store, legion: LegionMemory, project: str) -> SyncPreview:
    """Count what :func:`mneme_tui.legion.mirror.sync.sync` would import and export now (nothing is written)."""
    if not legion.memory_dir.is_dir():
        return SyncPreview()
    with store.sqlite_errors():
        rows = mt.load_rows(store.db, project)
        exports = Counter(spec.file for spec in export_candidates(store, project, rows))
    plan = pair_records(legion.read_all(), rows)
    imports = Counter(item.file for item in plan.incoming if item.match is None)
    return SyncPreview(dict(imports), dict(exports))
