"""Legion markdown memory: lossless parse/render of ``.planning/memory/*.md``, store, recall, prune.

Public entry point: :class:`mneme_tui.legion.api.LegionMemory`. No Textual or Rich imports here.
"""

from mneme_tui.legion.api import FileReport, LegionMemory, MemoryReport, RecallResult
from mneme_tui.legion.compaction import CompactionResult, compact_phase
from mneme_tui.legion.document import Document, parse
from mneme_tui.legion.records import ErrorRecord, OutcomeRecord, PatternRecord, PreferenceRecord, Record
from mneme_tui.legion.storage import LegionWriteError

__all__ = [
    "CompactionResult",
    "Document",
    "ErrorRecord",
    "FileReport",
    "LegionMemory",
    "LegionWriteError",
    "MemoryReport",
    "OutcomeRecord",
    "PatternRecord",
    "PreferenceRecord",
    "RecallResult",
    "Record",
    "compact_phase",
    "parse",
]
