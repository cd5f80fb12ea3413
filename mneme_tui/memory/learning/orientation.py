"""Orientation of an agent starting work (``mneme handshake``): learned pitfalls, verified patterns,
graduation candidates and imported Legion knowledge of one repository (spec §4.2, TC-MEM-10, TC-MEM-12).

- Verified patterns and graduation candidates come only from memories a verified task sync minted (spec
  3.1: statutory kinds are "minted strictly by 2PC task sync"); imported Legion practices and errors are
  listed apart, in ``imported``, labelled as not task-verified.

- Read-only unless a task id is given; then each pitfall shown is reinforced at most once per
  (task, memory) through ``Store.reinforce``.
- Cooling: a pitfall whose topic occurred in one task only and that is older than ``COOLING_DAYS`` is
  left out, unless a modified file lies inside its directory scope or it is pinned (``Store.pin``: pinned
  pitfalls and patterns are listed first). Without modified files (an unscoped
  handshake) nothing can match, so every old one-off cools out.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from mneme_tui import config
from mneme_tui.display import printable
from mneme_tui.memory import budget
from mneme_tui.memory.budget import Omission
from mneme_tui.memory.learning.graduation import (
    GraduationCandidate,
    Occurrences,
    candidate_picks,
    candidates_of,
    group_pitfalls,
)
from mneme_tui.memory.learning.scope import in_scope, repo_path, split_topic
from mneme_tui.memory.records import Memory, MemoryHead, iso
from mneme_tui.memory.store import Store

COOLING_DAYS = 14
IMPORTED_LIMIT = 10
"""At most this many imported practices and errors (newest first) in a handshake."""
IMPORTED_SHOWN = ("practice", "error")
"""The imported kinds a handshake lists: what to do and what went wrong (outcomes are history, not advice)."""


@dataclass(frozen=True, slots=True)
class OrientedPitfall:
    """A learned pitfall as shown to an agent: the memory, its scope, how often it recurred, its age."""

    memory: Memory
    gate: str
    scope: str | None
    recurrence: int
    tasks: tuple[str, ...]
    age_days: float
    in_scope: bool
    structural: bool
    pinned: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            **self.memory.to_json(),
            "gate": self.gate,
            "scope": self.scope,
            "recurrence": self.recurrence,
            "tasks": list(self.tasks),
            "age_days": round(self.age_days, 2),
            "in_scope": self.in_scope,
            "structural": self.structural,
            "pinned": self.pinned,
        }


@dataclass(frozen=True, slots=True)
class OrientedPattern:
    """A verified pattern blueprint and whether a modified file lies in its scope."""

    memory: Memory
    scope: str | None  # None for a pattern whose topic is not ``pattern:<scope>``
    in_scope: bool
    pinned: bool = False

    def to_json(self) -> dict[str, Any]:
        return {**self.memory.to_json(), "scope": self.scope, "in_scope": self.in_scope, "pinned": self.pinned}


@dataclass(frozen=True, slots=True)
class ImportedKnowledge:
    """A practice or error imported from a Legion file: shown to the agent, but not task-verified."""

    memory: Memory

    @property
    def file(self) -> str:
        return self.memory.provenance.detail.partition("#")[0]

    @property
    def record_id(self) -> str:
        return self.memory.provenance.detail.partition("#")[2]

    def to_json(self) -> dict[str, Any]:
        return {**self.memory.to_json(), "file": self.file, "record_id": self.record_id}


@dataclass(frozen=True, slots=True)
class Orientation:
    """What an agent should know before starting work in ``repo``."""

    repo: str
    task_id: str | None
    modified: tuple[str, ...]
    generated_at: datetime
    learned_pitfalls: tuple[OrientedPitfall, ...]
    verified_patterns: tuple[OrientedPattern, ...]
    graduation_candidates: tuple[GraduationCandidate, ...]
    imported: tuple[ImportedKnowledge, ...] = ()
    cooled: tuple[int, ...] = ()
    reinforced: tuple[int, ...] = ()
    omitted: dict[str, int] = field(default_factory=dict)  # list name → entries cut by ``limit``
    budget: Omission | None = None  # what ``within_budget`` left out, when a token budget was given
    budget_cut: dict[str, int] = field(default_factory=dict)  # list name → entries the budget left out

    @property
    def read_only(self) -> bool:
        return self.task_id is None

    @property
    def scoped(self) -> bool:
        return bool(self.modified)

    def to_json(self) -> dict[str, Any]:
        budget = {} if self.budget is None else {"budget": self.budget.to_json()}
        return {
            **budget,
            "repo": self.repo,
            "task_id": self.task_id,
            "read_only": self.read_only,
            "scoped": self.scoped,
            "modified_files": list(self.modified),
            "generated_at": iso(self.generated_at),
            "cooling_days": COOLING_DAYS,
            "learned_pitfalls": [item.to_json() for item in self.learned_pitfalls],
            "verified_patterns": [item.to_json() for item in self.verified_patterns],
            "graduation_candidates": [item.to_json() for item in self.graduation_candidates],
            "imported": [item.to_json() for item in self.imported],
            "cooled": list(self.cooled),
            "reinforced": list(self.reinforced),
            "omitted": {
                "learned_pitfalls": self.omitted.get("learned_pitfalls", 0),
                "verified_patterns": self.omitted.get("verified_patterns", 0),
                "imported": self.omitted.get("imported", 0),
            },
        }

    def to_text(self) -> str:
        """Plain markdown that reads well when pasted into an agent's prompt."""
        return render_text(self)


def orientation(
    store: Store,
    repo: str,
    task_id: str | None = None,
    modified: Sequence[str] = (),
    *,
    limit: int | None = None,
    now: datetime | None = None,
) -> Orientation:
    """Orient an agent in ``repo`` (plus ``global``); ``modified`` are repository-relative paths and
    ``limit`` caps each of the pitfall and pattern lists (what it cuts is counted in ``omitted``).

    Everything is ranked on the memories' heads (``Store.active_heads``: one covering index read); only the
    memories shown are read whole."""
    moment = now or config.now()
    files = tuple(dict.fromkeys(repo_path(path) for path in modified))
    heads = store.active_heads(repo, ("pitfall", "pattern", *IMPORTED_SHOWN), verified_only=("pattern",))
    pitfalls = heads.get("pitfall", [])
    groups = group_pitfalls(pitfalls)
    pinned = store.pinned_ids()
    best, cooled, omitted_pitfalls = _learned_pitfalls(groups, files, moment, pinned, limit)
    patterns, omitted_patterns = _patterns(heads.get("pattern", []), files, pinned, limit)
    imported = [head for kind in IMPORTED_SHOWN for head in heads.get(kind, [])]
    cap = IMPORTED_LIMIT if limit is None else min(limit, IMPORTED_LIMIT)
    omitted = {
        "learned_pitfalls": omitted_pitfalls,
        "verified_patterns": omitted_patterns,
        "imported": max(0, len(imported) - cap),
    }
    imported = heapq.nsmallest(cap, imported, key=lambda head: (-head.created_at.timestamp(), -head.id))
    picks = candidate_picks(pitfalls, groups)
    shown_pitfalls = [facts[0].id for facts in best]
    full = store.get_many(
        shown_pitfalls
        + [facts[0].id for facts in patterns]
        + [head.id for head in imported]
        + [p.memory.id for p in picks]
    )
    reinforced: list[int] = []
    fresh = full
    if task_id is not None:  # the pitfalls are shown as reinforced; the candidates as read before
        reinforced = store.reinforce(task_id, shown_pitfalls)
        fresh = {**full, **store.get_many(shown_pitfalls)}
    candidates = candidates_of(picks, full, store.task_ids_by_memory([pick.memory.id for pick in picks]))
    return Orientation(
        repo,
        task_id,
        files,
        moment,
        tuple(
            _oriented(fresh[h.id], group, age, matched, pin) for h, group, age, matched, pin in best if h.id in fresh
        ),
        tuple(OrientedPattern(full[h.id], scope, matched, pin) for h, scope, matched, pin in patterns if h.id in full),
        tuple(candidates),
        tuple(ImportedKnowledge(full[head.id]) for head in imported if head.id in full),
        tuple(sorted(cooled)),
        tuple(reinforced),
        omitted,
    )


BUDGET_SECTIONS = ("learned_pitfalls", "verified_patterns", "graduation_candidates", "imported")
"""The lists a token budget cuts, most important first; a budget keeps whole entries, best first in each."""


def within_budget(view: Orientation, tokens: int, render: Callable[[Orientation], str]) -> Orientation:
    """``view`` cut to the entries whose ``render``-ed output fits in ``tokens`` (``memory.budget``), most
    important section first; ``budget`` says how many entries were left out."""
    entries = [(name, entry) for name in BUDGET_SECTIONS for entry in getattr(view, name)]

    def cut(kept: Sequence[tuple[str, Any]], omission: Omission) -> Orientation:
        lists: dict[str, Any] = {name: tuple(e for section, e in kept if section == name) for name in BUDGET_SECTIONS}
        cut_counts = {name: len(getattr(view, name)) - len(lists[name]) for name in BUDGET_SECTIONS}
        return replace(view, **lists, budget=omission, budget_cut=cut_counts)

    fitted = budget.fit(entries, tokens, lambda kept, omission: render(cut(kept, omission)))
    return cut(fitted.kept, fitted.omission)


PitfallFacts = tuple[MemoryHead, Occurrences, float, bool, bool]
"""A pitfall to show, before it is read whole: its head, group, age in days, in scope, pinned."""
PatternFacts = tuple[MemoryHead, str | None, bool, bool]
"""A verified pattern to show, before it is read whole: its head, scope, in scope, pinned."""


def _learned_pitfalls(
    groups: Sequence[Occurrences], files: tuple[str, ...], moment: datetime, pinned: set[int], limit: int | None
) -> tuple[list[PitfallFacts], list[int], int]:
    """(the pitfalls to show, best first, at most ``limit``; the ids cooled out; how many ``limit`` cut).

    Best first is pinned first, then in scope, most recurrent, newest. Scope, gate and recurrence are judged
    once per group, and only a group's newest ``limit`` pitfalls (and its pinned ones) are ranked: its members
    are oldest first."""
    ranked: list[tuple[bool, bool, int, datetime, int, MemoryHead, Occurrences]] = []
    cooled: list[int] = []
    kept = 0
    for group in groups:
        matched = group.scope is not None and any(in_scope(path, group.scope) for path in files)
        members = list(group.memories)
        if group.recurrence < 2 and not matched:  # a one-off out of scope cools out once old, unless pinned
            old = {m.id for m in members if m.id not in pinned and _age_days(moment, m) > COOLING_DAYS}
            cooled += old
            members = [m for m in members if m.id not in old]
        kept += len(members)
        newest = members if limit is None else members[-limit:]
        held = [m for m in members if m.id in pinned] if pinned else []
        shown = {m.id: m for m in [*newest, *held]}
        ranked += [(m.id in pinned, matched, group.recurrence, m.created_at, m.id, m, group) for m in shown.values()]
    best = sorted(ranked, reverse=True) if limit is None else heapq.nlargest(limit, ranked)
    facts = [(m, group, _age_days(moment, m), matched, is_pinned) for is_pinned, matched, _, _, _, m, group in best]
    return facts, cooled, kept - len(facts)


def _age_days(moment: datetime, memory: MemoryHead) -> float:
    return max(0.0, (moment - memory.created_at).total_seconds() / 86400)


def _oriented(memory: Memory, group: Occurrences, age: float, matched: bool, pinned: bool) -> OrientedPitfall:
    return OrientedPitfall(
        memory, group.gate, group.scope, group.recurrence, group.tasks, age, matched, group.structural, pinned
    )


def _patterns(
    heads: Sequence[MemoryHead], files: tuple[str, ...], pinned: set[int], limit: int | None
) -> tuple[list[PatternFacts], int]:
    """(the verified patterns to show, best first, at most ``limit``; how many ``limit`` cut)."""
    scopes: dict[str, tuple[str | None, bool]] = {}
    found = []
    for memory in heads:
        if memory.kind != "pattern" or not memory.verified:  # a pattern of unknown origin is shown nowhere as verified
            continue
        if memory.topic not in scopes:
            scope = split_topic(memory.topic)[1] if memory.topic.startswith("pattern:") else None
            scopes[memory.topic] = scope, scope is not None and any(in_scope(path, scope) for path in files)
        scope, matched = scopes[memory.topic]
        is_pinned = memory.id in pinned
        found.append((not is_pinned, not matched, -memory.created_at.timestamp(), -memory.id, memory, scope))
    best = sorted(found) if limit is None else heapq.nsmallest(limit, found)
    shown = [(memory, scope, not out_of_scope, not unpinned) for unpinned, out_of_scope, _, _, memory, scope in best]
    return shown, len(found) - len(shown)


# ----------------------------------------------------------------------------- the text form
CONTENT_CHARS = 600


def render_text(view: Orientation) -> str:
    """Markdown: a header, then pitfalls, patterns and graduation candidates, each memory's text indented."""
    out = [f"# Mneme orientation: repo {printable(view.repo)}"]
    if view.task_id is not None:
        out.append(f"Task {printable(view.task_id)}: the pitfalls below are counted once for this task.")
    if view.modified:
        out.append("Modified files: " + ", ".join(map(printable, view.modified)))
    else:
        out.append("Unscoped: no modified files given.")
    out += _pitfall_lines(view) + _pattern_lines(view) + _candidate_lines(view) + _imported_lines(view)
    if view.cooled:
        out += [
            "",
            f"({len(view.cooled)} one-off pitfall{'s' if len(view.cooled) != 1 else ''} older than 14 days "
            f"cooled out: {', '.join(f'#{i}' for i in view.cooled)}; "
            "pass --modified FILE to keep those in scope.)",
        ]
    if view.budget is not None:
        out += ["", view.budget.line("entry", "entries")]
    return "\n".join(out) + "\n"


def _pitfall_lines(view: Orientation) -> list[str]:
    """The text's "Learned pitfalls" section: each with its gate, tasks, age and scope, its text indented."""
    out = ["", f"## Learned pitfalls ({len(view.learned_pitfalls)})"]
    if not view.learned_pitfalls:
        out.append(_none(view, "learned_pitfalls"))
    for number, item in enumerate(view.learned_pitfalls, start=1):
        facts = ["pinned"] if item.pinned else []
        facts += ["structural gate" if item.structural else "policy gate", _tasks(item.tasks), _age(item.age_days)]
        if item.in_scope:
            facts.append("in scope of your changes")
        out.append(f"{number}. #{item.memory.id} {printable(item.memory.topic)} ({'; '.join(facts)})")
        out.append(_indented(item.memory.from_line()))
        out.append(_indented(item.memory.content))
    return out + _omitted(view, "learned_pitfalls", "pitfall")


def _pattern_lines(view: Orientation) -> list[str]:
    """The text's "Verified patterns" section: each with its task, age and scope, its text indented."""
    out = ["", f"## Verified patterns ({len(view.verified_patterns)})"]
    if not view.verified_patterns:
        out.append(_none(view, "verified_patterns"))
    for number, pattern in enumerate(view.verified_patterns, start=1):
        memory = pattern.memory
        days = (view.generated_at - memory.created_at).total_seconds() / 86400
        facts = [f"task {printable(memory.task_id)}" if memory.task_id else "no task", _age(days)]
        if pattern.in_scope:
            facts.append("in scope of your changes")
        out.append(f"{number}. #{memory.id} {printable(memory.topic)} ({'; '.join(facts)})")
        out.append(_indented(memory.from_line()))
        out.append(_indented(memory.content))
    return out + _omitted(view, "verified_patterns", "pattern")


def _candidate_lines(view: Orientation) -> list[str]:
    """The text's "Graduation candidates" section: each with its reason and the command that retires it."""
    out = ["", f"## Graduation candidates ({len(view.graduation_candidates)})"]
    if not view.graduation_candidates:
        out.append(_none(view, "graduation_candidates"))
    for number, candidate in enumerate(view.graduation_candidates, start=1):
        ids = " ".join(map(str, candidate.related_ids))
        topic, reason = printable(candidate.memory.topic), printable(candidate.reason)
        out.append(f"{number}. #{candidate.memory.id} {topic}: {reason}.")
        out.append(f"   Codify it as a policy rule, then run `mneme dismiss {ids}`.")
    return out


def _imported_lines(view: Orientation) -> list[str]:
    """The text's "Imported from Legion" section (only when there are some), then what was left out of it."""
    out = ["", f"## Imported from Legion, not task-verified ({len(view.imported)})"] if view.imported else []
    for number, known in enumerate(view.imported, start=1):
        out.append(
            f"{number}. #{known.memory.id} {known.memory.kind} {printable(known.file)} "
            f"{printable(known.record_id)}: {printable(known.memory.first_line)}"
        )
        out.append(_indented(known.memory.from_line()))
    return out + _omitted(view, "imported", "imported record")


def _none(view: Orientation, key: str) -> str:
    """An empty list's line: ``None.``, or how many entries the token budget left out of it."""
    cut = view.budget_cut.get(key, 0)
    return f"None within the budget ({cut} left out)." if cut else "None."


def _omitted(view: Orientation, key: str, noun: str) -> list[str]:
    count = view.omitted.get(key, 0)
    return [f"({count} more {noun}{'s' if count != 1 else ''} not shown; raise --limit to see them.)"] if count else []


def _age(days: float) -> str:
    whole = int(max(0.0, days))
    return "less than a day old" if whole == 0 else f"{whole} day{'s' if whole != 1 else ''} old"


def _tasks(tasks: tuple[str, ...]) -> str:
    shown = ", ".join(map(printable, tasks[:5])) + (f", +{len(tasks) - 5} more" if len(tasks) > 5 else "")
    return f"{len(tasks)} task{'s' if len(tasks) != 1 else ''}: {shown}"


def _indented(text: str) -> str:
    clipped = printable(text.strip())
    if len(clipped) > CONTENT_CHARS:
        clipped = clipped[: CONTENT_CHARS - 1].rstrip() + "…"
    return "\n".join(f"   {line}" if line.strip() else "" for line in clipped.splitlines())
