"""Learning from verified task runs (spec §4.2): task sync, graduation candidates and orientation.

- ``report``: the task report format and its validation (``load_report``, ``parse_report``).
- ``symbols``: definitions in a cited file's post-fix state (``scan_file``).
- ``distill``: phase one, buffered learnings (``distill`` → ``SyncPlan``).
- ``tasksync``: phase two, one transaction (``sync_task``, ``commit``).
- ``graduation``: ``graduation_candidates(store, repo)`` → ``GraduationCandidate``.
- ``orientation``: ``orientation(store, repo, task_id, modified)`` → ``Orientation`` (handshake).
- ``scope``: directory scopes and topic spelling.
"""

from mneme_tui.memory.learning.distill import PatternLearning, PitfallLearning, SyncPlan, distill
from mneme_tui.memory.learning.graduation import GraduationCandidate, graduation_candidates
from mneme_tui.memory.learning.orientation import Orientation, OrientedPattern, OrientedPitfall, orientation
from mneme_tui.memory.learning.report import Gate, GateRun, TaskReport, load_report, parse_report, parse_report_text
from mneme_tui.memory.learning.scope import STRUCTURAL_GATES, directory_scope, pattern_topic, pitfall_topic
from mneme_tui.memory.learning.symbols import SymbolScan, scan_file
from mneme_tui.memory.learning.tasksync import SyncedLearning, SyncResult, commit, sync_task

__all__ = [
    "Gate", "GateRun", "GraduationCandidate", "Orientation", "OrientedPattern", "OrientedPitfall",
    "PatternLearning", "PitfallLearning", "STRUCTURAL_GATES", "SymbolScan", "SyncPlan", "SyncResult",
    "SyncedLearning", "TaskReport", "commit", "directory_scope", "distill", "graduation_candidates",
    "load_report", "orientation", "parse_report", "parse_report_text", "pattern_topic", "pitfall_topic",
    "scan_file", "sync_task",
]
