"""Phase two of task sync: commit buffered learnings in one transaction, only for a verified task.

``sync_task(store, report, root)`` runs both phases. Phase one (``distill``) reads files and builds
plain dataclasses; phase two opens one ``BEGIN IMMEDIATE`` transaction, skips learnings already synced
for the same (repo, task, gate, file) or (repo, task, pattern scope), mints the rest with
``Store.mint_many``, supersedes the scope's previous active pattern (audited), and records what it wrote
in ``task_sync_ledger`` (``Store.task_sync_ledger``). If anything raises, nothing is written. This and
the Legion import are the only writers of statutory kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mneme_tui import config
from mneme_tui.memory.learning.distill import PatternLearning, PitfallLearning, SyncPlan, distill
from mneme_tui.memory.learning.task_report import TaskReport
from mneme_tui.memory.records import TASK_SYNC, Memory, Provenance
from mneme_tui.memory.store import Store


@dataclass(frozen=True, slots=True)
class SyncedLearning:
    """One learning of a sync and what happened to it (``written``, ``duplicate`` or ``planned``)."""

    kind: str
    topic: str
    scope: str
    gate: str
    file: str | None
    content: str
    outcome: str
    memory_id: int = 0
    supersedes: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "topic": self.topic,
            "scope": self.scope,
            "gate": self.gate or None,
            "file": self.file,
            "outcome": self.outcome,
            "memory_id": self.memory_id or None,
            "supersedes": list(self.supersedes),
            "content": self.content,
        }


@dataclass(frozen=True, slots=True)
class SyncResult:
    """The outcome of ``sync_task``."""

    task_id: str
    repo: str
    verified: bool
    reason: str
    dry_run: bool
    learnings: tuple[SyncedLearning, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def written(self) -> tuple[SyncedLearning, ...]:
        return tuple(item for item in self.learnings if item.outcome == "written")

    @property
    def duplicates(self) -> tuple[SyncedLearning, ...]:
        return tuple(item for item in self.learnings if item.outcome == "duplicate")

    def ids(self, kind: str) -> list[int]:
        """Ids of the memories of ``kind`` this sync wrote."""
        return [item.memory_id for item in self.written if item.kind == kind]

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "repo": self.repo,
            "verified": self.verified,
            "reason": self.reason,
            "dry_run": self.dry_run,
            "written": len(self.written),
            "duplicates": len(self.duplicates),
            "learnings": [item.to_json() for item in self.learnings],
            "notes": list(self.notes),
        }


def sync_task(store: Store, report: TaskReport, root: Path, *, dry_run: bool = False) -> SyncResult:
    """Both phases: distil ``report`` (reading cited files under ``root``), then commit unless ``dry_run``."""
    plan = distill(report, root)
    if not plan.verified:
        return SyncResult(report.task_id, report.repo, False, plan.reason, dry_run, notes=plan.notes)
    if dry_run:
        return preview(store, plan)
    return commit(store, plan)


def commit(store: Store, plan: SyncPlan) -> SyncResult:
    """Phase two: write ``plan``'s new learnings in one IMMEDIATE transaction (all or nothing)."""
    if not plan.verified:
        raise ValueError("only a verified plan can be committed")
    report = plan.report

    def write() -> tuple[dict[Any, int], dict[int, Memory], tuple[int, ...]]:
        done = store.task_sync_ledger.entries(report.repo, report.task_id)
        fresh_pitfalls = [p for p in plan.pitfalls if _pitfall_key(p) not in done]
        fresh_pattern = plan.pattern if plan.pattern and _pattern_key(plan.pattern) not in done else None
        learnings: list[PitfallLearning | PatternLearning] = [*fresh_pitfalls]
        if fresh_pattern is not None:
            learnings.append(fresh_pattern)
        minted = store.mint_many([_item(report, learning) for learning in learnings])
        by_learning = dict(zip(map(id, learnings), minted))
        superseded: tuple[int, ...] = ()
        if fresh_pattern is not None:
            superseded = _supersede_patterns(store, report, fresh_pattern, by_learning[id(fresh_pattern)].id)
        now = config.now().isoformat(sep=" ")
        store.task_sync_ledger.add(
            [
                (report.repo, report.task_id, *_key(learning), memory.id, now)
                for learning, memory in zip(learnings, minted)
            ]
        )
        return done, by_learning, superseded

    # one transaction, run again whole if PostgreSQL aborts it as a serialization failure or deadlock
    done, by_learning, superseded = store.run_transaction(write)
    outcome = []
    for learning in _learnings(plan):
        memory = by_learning.get(id(learning))
        if memory is not None:
            supersedes = superseded if isinstance(learning, PatternLearning) else ()
            outcome.append(_synced(learning, "written", memory.id, supersedes))
        else:
            outcome.append(_synced(learning, "duplicate", done[_key(learning)]))
    return SyncResult(report.task_id, report.repo, True, plan.reason, False, tuple(outcome), plan.notes)


def preview(store: Store, plan: SyncPlan) -> SyncResult:
    """A dry run: what ``commit`` would write (reads the ledger, writes nothing)."""
    with store.sqlite_errors():
        done = store.task_sync_ledger.entries(plan.report.repo, plan.report.task_id)
    outcome = []
    for learning in _learnings(plan):
        key = _key(learning)
        outcome.append(_synced(learning, "duplicate", done[key]) if key in done else _synced(learning, "planned"))
    report = plan.report
    return SyncResult(report.task_id, report.repo, True, plan.reason, True, tuple(outcome), plan.notes)


def _learnings(plan: SyncPlan) -> list[PitfallLearning | PatternLearning]:
    """The plan's pitfalls, then its pattern (if any)."""
    return [*plan.pitfalls, *([plan.pattern] if plan.pattern else [])]


def _supersede_patterns(store: Store, report: TaskReport, pattern: PatternLearning, new_id: int) -> tuple[int, ...]:
    old = store.memories.active_ids(report.repo, "pattern", pattern.topic, other_than=new_id)
    for old_id in old:
        store.mark_superseded(old_id, new_id, reason=f"superseded by the pattern of task {report.task_id}")
    return tuple(old)


def _item(report: TaskReport, learning: PitfallLearning | PatternLearning) -> dict[str, Any]:
    kind = "pitfall" if isinstance(learning, PitfallLearning) else "pattern"
    return dict(
        content=learning.content,
        kind=kind,
        topic=learning.topic,
        repo_id=report.repo,
        task_id=report.task_id,
        provenance=Provenance(TASK_SYNC, report.task_id),
    )


def _synced(
    learning: PitfallLearning | PatternLearning, outcome: str, memory_id: int = 0, supersedes: tuple[int, ...] = ()
) -> SyncedLearning:
    if isinstance(learning, PitfallLearning):
        return SyncedLearning(
            "pitfall",
            learning.topic,
            learning.scope,
            learning.gate,
            learning.file,
            learning.content,
            outcome,
            memory_id,
        )
    return SyncedLearning(
        "pattern", learning.topic, learning.scope, "", None, learning.content, outcome, memory_id, supersedes
    )


def _key(learning: PitfallLearning | PatternLearning) -> tuple[str, str, str]:
    return _pitfall_key(learning) if isinstance(learning, PitfallLearning) else _pattern_key(learning)


def _pitfall_key(learning: PitfallLearning) -> tuple[str, str, str]:
    return "pitfall", learning.gate, learning.file or ""


def _pattern_key(learning: PatternLearning) -> tuple[str, str, str]:
    return "pattern", "", learning.scope
