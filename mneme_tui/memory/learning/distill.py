"""Phase one of task sync: turn a verified report into buffered learnings (plain dataclasses, no writes).

- Every gate that failed in an earlier run and passed in the final run becomes a ``PitfallLearning``,
  one per (gate, cited file): topic ``<gate> @ <scope of the file>``, content
  ``Refactored <file> [<symbols>]`` + walkthrough + the trap message (spec TC-MEM-11).
- The task itself becomes a ``PatternLearning`` for its directory scope (topic ``pattern:<scope>``,
  spec TC-MEM-07) when it modified at least one file.
- A report whose final run failed yields no learnings and a reason.
- A learning never outgrows a memory: the pattern's head names at most ``MAX_PATTERN_GATES`` gates
  (``… and N more``), and a text still over ``MAX_CONTENT_CHARS`` is cut there, with a note saying so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from mneme_tui.memory.learning.scope import below, directory_scope, pattern_topic, pitfall_topic
from mneme_tui.memory.learning.symbols import SymbolScan, scan_file
from mneme_tui.memory.learning.task_report import Gate, TaskReport
from mneme_tui.validation import MAX_CONTENT_CHARS

MAX_PATTERN_FILES = 20
MAX_PATTERN_GATES = 20


@dataclass(frozen=True, slots=True)
class PitfallLearning:
    """A buffered pitfall: a gate that trapped the task and was fixed."""

    gate: str
    file: str | None
    scope: str
    topic: str
    content: str
    symbols: tuple[str, ...]
    failed_runs: tuple[int, ...]  # 1-based run numbers where the gate failed

    @property
    def key(self) -> tuple[str, str]:
        """The de-duplication key within a task: (gate, cited file or '')."""
        return self.gate, self.file or ""


@dataclass(frozen=True, slots=True)
class PatternLearning:
    """A buffered pattern blueprint for the task's directory scope."""

    scope: str
    topic: str
    content: str


@dataclass(frozen=True, slots=True)
class SyncPlan:
    """Everything phase two needs: the report, whether it is verified, and the learnings to commit."""

    report: TaskReport
    verified: bool
    reason: str
    pitfalls: tuple[PitfallLearning, ...] = ()
    pattern: PatternLearning | None = None
    notes: tuple[str, ...] = ()


def distill(report: TaskReport, root: Path) -> SyncPlan:
    """Phase one: the learnings of ``report``, reading cited files' post-fix state under ``root``."""
    if not report.verified:
        return SyncPlan(report, False, _failure_reason(report))
    notes: list[str] = []
    scans: dict[str, SymbolScan] = {}

    def scan(path: str) -> SymbolScan:
        if path not in scans:
            scans[path] = scan_file(root, path)
            if scans[path].note:
                notes.append(scans[path].note)
        return scans[path]

    pitfalls = _pitfalls(report, scan, notes)
    pattern = _pattern(report, scan, notes)
    total = len(report.final_run.gates)
    reason = f"final run verified: {total}/{total} gates passed"
    return SyncPlan(report, True, reason, pitfalls, pattern, tuple(notes))


def _pitfalls(report: TaskReport, scan, notes: list[str]) -> tuple[PitfallLearning, ...]:
    final_names = {gate.name for gate in report.final_run.gates}
    trapped: dict[tuple[str, str | None], list[tuple[int, Gate]]] = {}
    for number, run in enumerate(report.runs[:-1], start=1):
        for gate in run.failures:
            trapped.setdefault((gate.name, gate.file), []).append((number, gate))
    learnings = []
    for (name, file), failures in trapped.items():
        if name not in final_names:
            notes.append(f"gate {name!r} failed in run {failures[-1][0]} but did not run in the final run; no pitfall")
            continue
        runs = tuple(number for number, _ in failures)
        message = failures[-1][1].message
        learning = _pitfall(report, name, file, runs, message, scan)
        learnings.append(replace(learning, content=_fitted(learning.content, f"the pitfall for gate {name!r}", notes)))
    return tuple(learnings)


def _fitted(content: str, what: str, notes: list[str]) -> str:
    """``content`` cut to ``MAX_CONTENT_CHARS`` (a note says so) when it is longer."""
    if len(content) <= MAX_CONTENT_CHARS:
        return content
    notes.append(f"{what} is {len(content):,} characters; its memory keeps the first {MAX_CONTENT_CHARS:,}")
    return content[: MAX_CONTENT_CHARS - 1] + "…"


def _pitfall(
    report: TaskReport, gate: str, file: str | None, runs: tuple[int, ...], message: str, scan
) -> PitfallLearning:
    total = len(report.runs)
    where = "run " + ", ".join(map(str, runs)) + f" of {total}"
    trap = f"Trapped by {gate} in {where}" + (f": {message}" if message else ".")
    if file is not None:
        found = scan(file)
        scope, symbols = directory_scope(file), found.symbols
        head = f"Refactored {file} {found.label()}"
    else:
        scope, symbols = report.scope, ()
        head = f"Fixed {gate} in {scope}"
    content = f"{head}\n\n{report.walkthrough}\n\n{trap}"
    return PitfallLearning(gate, file, scope, pitfall_topic(gate, scope), content, symbols, runs)


def _pattern(report: TaskReport, scan, notes: list[str]) -> PatternLearning | None:
    files = [path for path in report.modified_files if below(path, report.scope)]
    if not report.modified_files:
        notes.append("the report lists no modified files; no pattern distilled")
        return None
    lines = []
    for path in files[:MAX_PATTERN_FILES]:
        found = scan(path)
        lines.append(f"- {path} {found.label()}" if found.symbols or found.method != "none" else f"- {path}")
    if len(files) > MAX_PATTERN_FILES:
        lines.append(f"- … and {len(files) - MAX_PATTERN_FILES} more files")
    names = list(dict.fromkeys(gate.name for gate in report.final_run.gates))
    gates = ", ".join(names[:MAX_PATTERN_GATES])
    if len(names) > MAX_PATTERN_GATES:
        gates += f", … and {len(names) - MAX_PATTERN_GATES} more"
    total = len(report.final_run.gates)
    head = f"Verified pattern for {report.scope} (task {report.task_id}, {total}/{total} gates passed: {gates})"
    body = "\n".join(lines)
    content = f"{head}\n\n{report.walkthrough}" + (f"\n\nFiles:\n{body}" if body else "")
    return PatternLearning(report.scope, pattern_topic(report.scope), _fitted(content, "the pattern", notes))


def _failure_reason(report: TaskReport) -> str:
    failures = report.final_run.failures
    total = len(report.final_run.gates)
    described = "; ".join(
        f"{gate.name}" + (f" ({gate.file})" if gate.file else "") + (f": {gate.message}" if gate.message else "")
        for gate in failures
    )
    return (
        f"task {report.task_id} is not verified: the final run failed {len(failures)} of {total} gates "
        f"({described}); nothing was written"
    )
