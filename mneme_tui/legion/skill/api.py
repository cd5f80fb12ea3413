"""``LegionMemory``: the public facade over one project's ``.planning/memory/`` folder.

Reads never create anything and never raise for missing or broken files (results carry
``warnings``); writes follow the lock / temp file / fsync / replace / verify protocol of
:mod:`mneme_tui.legion.markdown.storage`. All results are plain dataclasses with ``to_json()``
(the folder's and the record recalls' in :mod:`mneme_tui.legion.skill.read_results`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path
from typing import Any

from mneme_tui.config import now
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.markdown.agent_catalog import Catalog, load_catalog
from mneme_tui.legion.markdown.document import Document
from mneme_tui.legion.markdown.folder_lock import DEFAULT_LOCK_TIMEOUT
from mneme_tui.legion.markdown.legion_records import (
    ErrorRecord,
    OutcomeRecord,
    PatternRecord,
    PreferenceRecord,
    Record,
    split_tags,
)
from mneme_tui.legion.markdown.planning import MemorySettings, load_memory_settings, read_current_phase
from mneme_tui.legion.markdown.schemas import (
    ARCHIVE,
    DECISION_POINTS,
    ERRORS,
    OUTCOMES,
    OUTCOMES_VALUES,
    PATTERNS,
    PREFERENCES,
    SIGNALS,
    TableSchema,
)
from mneme_tui.legion.markdown.storage import load_document
from mneme_tui.legion.skill import pattern_recall as recall_mod
from mneme_tui.legion.skill import scoring
from mneme_tui.legion.skill.claude_memory import claude_memory_excerpt
from mneme_tui.legion.skill.gitbranch import BranchProvider, current_branch
from mneme_tui.legion.skill.gitbranch import default_branch as git_default_branch
from mneme_tui.legion.skill.prune import PrunePlan, PruneResult, apply_prune, finish_interrupted_prune, plan_prune
from mneme_tui.legion.skill.read_results import FileReport, MemoryReport, RecallResult
from mneme_tui.legion.skill.record_files import (
    StoreResult,
    append_record,
    base_importance,
    importance_with_modifiers,
    require_choice,
    resolve_task_type,
    store_records,
)
from mneme_tui.legion.skill.session_briefing import Briefing, build_briefing

KNOWN_FILES = (OUTCOMES.file_name, PATTERNS.file_name, ERRORS.file_name, PREFERENCES.file_name, ARCHIVE.file_name)
PITFALLS_FILE = "PITFALLS.md"


def _clean_tags(tags: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(split_tags(", ".join(tags))))


def _importance_from_file(
    base: int, agent: str, task_type: str, cross_division: bool, review_blockers: int
) -> Callable[[Record, Document], Record]:
    """The ``prepare`` step giving a new outcome its importance: ``base`` with the modifiers that need the current
    file (first time this agent does this task type), cross-division work and review blockers."""

    def prepare(final: Record, document: Document) -> Record:
        if isinstance(final, OutcomeRecord):
            final.importance = importance_with_modifiers(
                base,
                first_time=scoring.first_time(document.records, agent, task_type),
                cross_division=cross_division,
                review_blockers=review_blockers,
            )
        return final

    return prepare


def _required(name: str, value: str) -> str:
    if not value or not value.strip():
        raise MnemeError(ERR_VALIDATION_FAILED, f"{name} must not be empty")
    return value


class LegionMemory:
    """Store and recall Legion memory in ``memory_dir`` (normally ``<project>/.planning/memory``).

    ``project_root`` defaults to the folder above ``.planning``; ``branch_provider`` replaces
    ``git branch --show-current``; ``claude_home`` replaces ``~`` for Claude Code's MEMORY.md.
    """

    def __init__(
        self,
        memory_dir: Path,
        *,
        project_root: Path | None = None,
        default_branch: str | None = None,
        branch_provider: BranchProvider | None = None,
        claude_home: Path | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self.memory_dir = Path(memory_dir)
        if project_root is None:
            parent = self.memory_dir.parent
            project_root = parent.parent if parent.name == ".planning" else parent
        self.project_root = Path(project_root)
        self.default_branch = default_branch or git_default_branch(self.project_root)
        self.branch_provider = branch_provider
        self.claude_home = Path(claude_home) if claude_home is not None else Path.home()
        self.lock_timeout = lock_timeout

    @classmethod
    def for_project(cls, root: Path, **options: Any) -> LegionMemory:
        return cls(Path(root) / ".planning" / "memory", project_root=Path(root), **options)

    # -- context -------------------------------------------------------------------------------
    @property
    def settings(self) -> MemorySettings:
        return load_memory_settings(self.project_root)

    def current_phase(self) -> int | None:
        return read_current_phase(self.project_root)

    def branch(self) -> str:
        return current_branch(self.project_root, self.branch_provider)

    def today(self) -> date:
        return now().date()

    def catalog(self) -> Catalog:
        return load_catalog(self.project_root)

    def has_file(self, file_name: str) -> bool:
        """True when the memory folder holds ``file_name`` (spec §6: callers show nothing when it does not)."""
        if file_name == ERRORS.file_name and (self.memory_dir / PITFALLS_FILE).is_file():
            return True
        return (self.memory_dir / file_name).is_file()

    def load(self, file_name: str) -> Document:
        return load_document(self.memory_dir / file_name, default_branch=self.default_branch)

    def _branch_filter(self, branch: str | None) -> str | None:
        return self.branch() if branch == "current" else branch

    def _records(self, file_name: str, kind: type[Record]) -> tuple[list[Any], list[str]]:
        document = self.load(file_name)
        return [r for r in document.records if isinstance(r, kind)], list(document.warnings)

    # -- reading -------------------------------------------------------------------------------
    def read_all(self) -> MemoryReport:
        names = list(KNOWN_FILES)
        if self.memory_dir.is_dir():
            names += sorted(p.name for p in self.memory_dir.glob("*.md") if p.name not in KNOWN_FILES)
        report = MemoryReport(str(self.memory_dir))
        for name in names:
            doc = self.load(name)
            report.files.append(
                FileReport(name, doc.exists, doc.parseable, doc.records, doc.not_imported(), list(doc.warnings))
            )
        return report

    # -- store ---------------------------------------------------------------------------------
    def record_outcome(
        self,
        *,
        agent: str,
        outcome: str,
        summary: str,
        phase: str | int = "",
        plan: str = "",
        task_type: str | None = None,
        tags: Iterable[str] = (),
        importance: int | None = None,
        review_escalated: bool = False,
        review_cycles: int = 0,
        review_blockers: int = 0,
        trivial: bool = False,
        cross_division: bool | None = None,
        branch: str | None = None,
    ) -> StoreResult:
        """Spec §3: resolve task type and phase, score importance, append to OUTCOMES.md, then maybe auto-prune."""
        outcome = require_choice("outcome", outcome, OUTCOMES_VALUES)
        _required("agent", agent)
        _required("summary", summary)
        if importance is not None and not 1 <= int(importance) <= 5:
            raise MnemeError(ERR_VALIDATION_FAILED, f"importance must be 1-5; got {importance}")
        catalog = self.catalog()
        resolved_type = resolve_task_type(task_type, agent, catalog)
        if cross_division is None:
            cross_division = bool(catalog.is_cross_division(agent, resolved_type))
        base = base_importance(outcome, review_escalated=review_escalated, review_cycles=review_cycles, trivial=trivial)
        record = OutcomeRecord(
            date=self.today().isoformat(),
            branch=branch or self.branch(),
            phase=self._phase(phase),
            plan=plan,
            agent=agent.strip(),
            task_type=resolved_type,
            outcome=outcome,
            summary=summary,
            tags=_clean_tags(tags),
            importance=int(importance) if importance is not None else base,
        )
        prepare = None
        if importance is None:
            prepare = _importance_from_file(base, agent, resolved_type, bool(cross_division), review_blockers)
        self.recover()
        result = append_record(
            self.memory_dir,
            OUTCOMES,
            record,
            default_branch=self.default_branch,
            lock_timeout=self.lock_timeout,
            prepare=prepare,
        )
        return self._auto_prune(result)

    def _auto_prune(self, result: StoreResult) -> StoreResult:
        """``result`` with the settings' warnings, after pruning OUTCOMES.md when auto-prune is on and it is over the
        threshold."""
        settings = self.settings
        result.warnings += settings.warnings
        if settings.auto_prune:
            total = len(self._records(OUTCOMES.file_name, OutcomeRecord)[0])
            if total > settings.prune_threshold:
                result.prune = self.apply_prune(self.prune_plan())
        return result

    def _phase(self, given: str | int) -> str:
        """Spec §3 step 5: the given phase, else the current phase named by STATE.md, else blank."""
        if str(given).strip():
            return str(given).strip()
        current = self.current_phase()
        return "" if current is None else str(current)

    def pattern_record(
        self,
        *,
        pattern: str,
        context: str = "",
        reuse_criteria: str = "",
        source: str = "",
        tags: Iterable[str] = (),
        branch: str | None = None,
    ) -> PatternRecord:
        """A checked, dated pattern record (not stored yet)."""
        return PatternRecord(
            date=self.today().isoformat(),
            branch=branch or self.branch(),
            pattern=_required("pattern", pattern),
            context=context,
            reuse_criteria=reuse_criteria,
            source=source,
            tags=_clean_tags(tags),
        )

    def error_record(
        self,
        *,
        error_signature: str,
        fix: str,
        agent: str = "",
        resolved: bool = True,
        tags: Iterable[str] = (),
        branch: str | None = None,
    ) -> ErrorRecord:
        """A checked, dated error record (not stored yet)."""
        return ErrorRecord(
            date=self.today().isoformat(),
            branch=branch or self.branch(),
            error_signature=_required("error_signature", error_signature),
            fix=_required("fix", fix),
            agent=agent,
            resolved=resolved,
            tags=_clean_tags(tags),
        )

    def preference_record(
        self,
        *,
        decision_point: str,
        context: str,
        proposed: str,
        user_choice: str,
        signal: str,
        agent: str = "system",
        tags: Iterable[str] = (),
        branch: str | None = None,
    ) -> PreferenceRecord:
        """A checked, dated preference record (not stored yet)."""
        signal = require_choice("signal", signal, SIGNALS)
        decision = require_choice("decision_point", decision_point, DECISION_POINTS)
        return PreferenceRecord(
            date=self.today().isoformat(),
            branch=branch or self.branch(),
            decision_point=decision,
            context=_required("context", context),
            proposed=proposed,
            user_choice=user_choice,
            signal=signal,
            agent=agent or "system",
            tags=_clean_tags(tags),
        )

    def store(self, schema: TableSchema, records: list[Record]) -> list[StoreResult]:
        """Store several records in ``schema``'s file with one write (errors de-duplicated, spec §9)."""
        self.recover()
        return store_records(
            self.memory_dir, schema, records, default_branch=self.default_branch, lock_timeout=self.lock_timeout
        )

    def record_pattern(self, **fields: Any) -> StoreResult:
        """Spec §8: append a pattern to PATTERNS.md (fields as :meth:`pattern_record`)."""
        return self.store(PATTERNS, [self.pattern_record(**fields)])[0]

    def record_error(self, **fields: Any) -> StoreResult:
        """Spec §9: skip a known resolved error, fix an unresolved one, else append to ERRORS.md."""
        return self.store(ERRORS, [self.error_record(**fields)])[0]

    def record_preference(self, **fields: Any) -> StoreResult:
        """Spec §13: append a preference signal to PREFERENCES.md (fields as :meth:`preference_record`)."""
        return self.store(PREFERENCES, [self.preference_record(**fields)])[0]

    # -- recall --------------------------------------------------------------------------------
    def recall_outcomes(
        self,
        *,
        tags: Iterable[str] | None = None,
        agent: str | None = None,
        task_type: str | None = None,
        branch: str | None = "all",
        limit: int | None = scoring.DEFAULT_LIMIT,
    ) -> scoring.OutcomeRecall:
        records, warnings = self._records(OUTCOMES.file_name, OutcomeRecord)
        result = scoring.recall_outcomes(
            records,
            self.today(),
            tags=tags,
            agent=agent,
            task_type=task_type,
            branch=self._branch_filter(branch),
            limit=limit,
        )
        result.warnings = warnings
        return result

    def agent_scores(
        self, task_types: Iterable[str] = (), *, match: str = scoring.MATCH_TAGS
    ) -> list[scoring.AgentScore]:
        """Spec §4 agent scores; ``match`` is what ``task_types`` matches (see :func:`scoring.agent_scores`)."""
        records, _ = self._records(OUTCOMES.file_name, OutcomeRecord)
        return scoring.agent_scores(records, self.today(), task_types, match=match)

    def archetype_scores(self, task_types: Iterable[str] = ()) -> list[scoring.ArchetypeScore]:
        records, _ = self._records(OUTCOMES.file_name, OutcomeRecord)
        return scoring.archetype_scores(records, self.today(), task_types)

    def briefing(self) -> Briefing:
        records, warnings = self._records(OUTCOMES.file_name, OutcomeRecord)
        result = build_briefing(records, self.today(), claude_memory_excerpt(self.project_root, self.claude_home))
        result.warnings = warnings
        return result

    def recall_patterns(
        self,
        *,
        tags: Iterable[str] | None = None,
        branch: str | None = "all",
        limit: int | None = recall_mod.PATTERN_LIMIT,
    ) -> RecallResult:
        records, warnings = self._records(PATTERNS.file_name, PatternRecord)
        found = recall_mod.recall_patterns(
            records, self.today(), tags=tags, branch=self._branch_filter(branch), limit=limit
        )
        return RecallResult(list(found), len(records), warnings)

    def recall_errors(
        self,
        *,
        error_text: str | None = None,
        tags: Iterable[str] | None = None,
        branch: str | None = "all",
        limit: int | None = recall_mod.ERROR_LIMIT,
    ) -> RecallResult:
        records, warnings = self._records(ERRORS.file_name, ErrorRecord)
        if (self.memory_dir / PITFALLS_FILE).is_file():
            extra, more = self._records(PITFALLS_FILE, ErrorRecord)
            records, warnings = records + extra, warnings + more
        found = recall_mod.recall_errors(
            records, error_text=error_text, tags=tags, branch=self._branch_filter(branch), limit=limit
        )
        return RecallResult(list(found), len(records), warnings)

    def recall_preferences(
        self,
        *,
        signal: str | None = "all",
        decision_point: str | None = "all",
        tags: Iterable[str] | None = None,
        agent: str | None = None,
        branch: str | None = "all",
        include_superseded: bool = False,
        limit: int | None = recall_mod.PREFERENCE_LIMIT,
    ) -> RecallResult:
        records, warnings = self._records(PREFERENCES.file_name, PreferenceRecord)
        found = recall_mod.recall_preferences(
            records,
            self.today(),
            signal=signal,
            decision_point=decision_point,
            tags=tags,
            agent=agent,
            branch=self._branch_filter(branch),
            include_superseded=include_superseded,
            limit=limit,
        )
        return RecallResult(list(found), len(records), warnings)

    def preference_boost(self, agent: str) -> recall_mod.PreferenceBoost:
        records, _ = self._records(PREFERENCES.file_name, PreferenceRecord)
        return recall_mod.preference_boost(records, agent)

    # -- prune ---------------------------------------------------------------------------------
    def prune_plan(self) -> PrunePlan:
        """Spec §7.5 preview (after finishing a prune a crash interrupted)."""
        self.recover()
        settings = self.settings
        return plan_prune(self.load(OUTCOMES.file_name), self.today(), settings, self.current_phase())

    def recover(self) -> None:
        """Finish a prune that a crash interrupted (its journal is rolled forward); a no-op otherwise."""
        finish_interrupted_prune(self.memory_dir, default_branch=self.default_branch, lock_timeout=self.lock_timeout)

    def apply_prune(self, plan: PrunePlan) -> PruneResult:
        return apply_prune(self.memory_dir, plan, default_branch=self.default_branch, lock_timeout=self.lock_timeout)
