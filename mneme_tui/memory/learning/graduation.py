"""Graduation candidates (spec §4.2, TC-MEM-08/09): active pitfalls a person should codify as policy.

Pitfalls are grouped per (repo, gate, directory scope) — the parts of the topic ``<gate> @ <scope>``;
a topic task sync did not write is its own group. A group's *recurrence* is the number of distinct
tasks among its active pitfalls (a pitfall without a task id counts as its own occurrence).

- ``recurrence``: any gate graduates when its recurrence is ≥ 2.
- ``access_count``: a *policy* pitfall (not one of ``STRUCTURAL_GATES``) graduates when its
  task-deduplicated ``access_count`` (``Store.reinforce`` counts each task once) is ≥ 3.
  Structural AST gates graduate only on recurrence.

Patterns, one-off pitfalls nobody reinforced, superseded and tombstoned memories never appear.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from mneme_tui.display import one_line
from mneme_tui.memory.learning.scope import is_structural, split_topic
from mneme_tui.memory.records import Memory, MemoryHead
from mneme_tui.memory.store import Store

MIN_RECURRENCE = 2
MIN_ACCESS = 3
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff\u2028\u2029]")


@dataclass(frozen=True, slots=True)
class Occurrences:
    """The active pitfalls sharing one (repo, gate, scope), and the distinct tasks they came from."""

    repo_id: str
    gate: str
    scope: str | None
    memories: tuple[MemoryHead, ...]
    tasks: tuple[str, ...]

    @property
    def recurrence(self) -> int:
        return len(self.tasks)

    @property
    def structural(self) -> bool:
        return is_structural(self.gate)


def group_pitfalls(pitfalls: Iterable[MemoryHead]) -> list[Occurrences]:
    """The groups (recurrence and tasks) of the active pitfalls ``pitfalls``, given in id order (as
    ``Store.active_heads`` gives them): a group's members are oldest first, and the stable sort by date keeps
    the id order among equal dates. A topic is split once, however many pitfalls share it."""
    parts: dict[str, tuple[str, str | None]] = {}
    buckets: dict[tuple[str, str, str | None], list[MemoryHead]] = defaultdict(list)
    for memory in pitfalls:
        gate, scope = parts.get(memory.topic) or parts.setdefault(memory.topic, _gate_key(memory.topic))
        buckets[(memory.repo_id, gate, scope)].append(memory)
    groups = []
    for (repo_id, _, scope), members in buckets.items():
        members.sort(key=attrgetter("created_at"))
        tasks = tuple(dict.fromkeys([m.task_id.strip() or f"memory #{m.id}" for m in members]))
        groups.append(Occurrences(repo_id, split_topic(members[-1].topic)[0], scope, tuple(members), tasks))
    return groups


def _gate_key(topic: str) -> tuple[str, str | None]:
    """(the gate as groups compare it: case and runs of spaces ignored, the scope) of a pitfall topic."""
    gate, scope = split_topic(topic)
    return " ".join(gate.casefold().split()), scope


@dataclass(frozen=True, slots=True)
class GraduationCandidate:
    """A pitfall (group) ready to be codified, with the rule that surfaced it and why."""

    memory: Memory
    rule: str  # "recurrence", "access_count" or "recurrence+access_count"
    recurrence: int
    access_count: int
    scope: str | None
    tasks: tuple[str, ...]
    reason: str
    gate: str = ""
    structural: bool = False
    related_ids: tuple[int, ...] = ()
    accessed_by: tuple[str, ...] = field(default_factory=tuple)

    def rule_text(self) -> str:
        """A YAML list item for a ``nomos.yaml``-style policy file (paste it under ``rules:``)."""
        lines = [
            # one_line: a reason built from a topic with a newline must not start a YAML line of its own
            f"# graduated from mneme pitfall {', '.join(f'#{i}' for i in self.related_ids)}: {one_line(self.reason)}",
            f"- id: {_yaml(f'mneme-{self.memory.repo_id}-{self.memory.id}')}",
            f"  gate: {_yaml(self.gate)}",
            f"  scope: {_yaml(self.scope or '.')}",
            f"  kind: {'structural' if self.structural else 'policy'}",
            "  enforcement: block",
            f"  source: {_yaml(f'mneme {self.rule}: ' + ', '.join(self.tasks))}",
        ]
        return "\n".join([*lines, _yaml_block("guidance", self.memory.content, "  ")]) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_json(),
            "rule": self.rule,
            "recurrence": self.recurrence,
            "access_count": self.access_count,
            "scope": self.scope,
            "gate": self.gate,
            "structural": self.structural,
            "tasks": list(self.tasks),
            "accessed_by": list(self.accessed_by),
            "related_ids": list(self.related_ids),
            "reason": self.reason,
            "rule_text": self.rule_text(),
        }


def graduation_candidates(store: Store, repo: str | None = None) -> list[GraduationCandidate]:
    """Graduation candidates of ``repo`` (with ``global``), or of every repository when ``repo`` is None;
    most recurrent first. Read-only. Only pitfalls a verified task sync minted count (spec 3.1): imported
    Legion errors and pitfalls of unknown origin never feed the gates."""
    return candidates_among(store, store.active_heads(repo, ("pitfall",)).get("pitfall", []))


def candidates_among(store: Store, listed: Sequence[MemoryHead]) -> list[GraduationCandidate]:
    """The graduation candidates among the active pitfalls ``listed`` (one repository's, with ``global``)."""
    picks = candidate_picks(listed)
    ids = [pick.memory.id for pick in picks]
    return candidates_of(picks, store.get_many(ids), store.task_ids_by_memory(ids))


@dataclass(frozen=True, slots=True)
class CandidatePick:
    """A group that graduates, the pitfall that speaks for it, and by which rules."""

    group: Occurrences
    memory: MemoryHead
    by_recurrence: bool
    by_access: bool


def candidate_picks(listed: Sequence[MemoryHead], groups: Sequence[Occurrences] | None = None) -> list[CandidatePick]:
    """The candidate rules applied to the verified pitfalls among ``listed``: one pick per group that graduates.
    ``groups`` (``group_pitfalls(listed)``, when the caller has it) is used as it is when every one is verified."""
    verified = [memory for memory in listed if memory.verified]
    if groups is None or len(verified) != len(listed):
        groups = group_pitfalls(verified)
    picks = []
    for group in groups:
        most_read = max(group.memories, key=lambda m: (m.access_count, m.created_at, m.id))
        by_recurrence = group.recurrence >= MIN_RECURRENCE
        by_access = not group.structural and most_read.access_count >= MIN_ACCESS
        if by_recurrence or by_access:
            picks.append(CandidatePick(group, most_read if by_access else group.memories[-1], by_recurrence, by_access))
    return picks


def candidates_of(
    picks: Sequence[CandidatePick], memories: Mapping[int, Memory], accessors: Mapping[int, Sequence[str]]
) -> list[GraduationCandidate]:
    """The candidates of ``picks``, most recurrent first (``memories``: id → memory of each pick, a pick whose
    memory is absent is left out; ``accessors``: memory id → tasks that reinforced it)."""
    found = [_candidate(pick, memories[pick.memory.id], accessors) for pick in picks if pick.memory.id in memories]
    found.sort(key=lambda c: (-c.recurrence, -c.access_count, -c.memory.created_at.timestamp(), -c.memory.id))
    return found


def _candidate(pick: CandidatePick, memory: Memory, accessors: Mapping[int, Sequence[str]]) -> GraduationCandidate:
    group = pick.group
    rules, reasons = [], []
    if pick.by_recurrence:
        rules.append("recurrence")
        tasks = ", ".join(group.tasks)
        reasons.append(f"recurs in {group.recurrence} tasks ({tasks}) within scope {group.scope or 'unknown'}")
    if pick.by_access:
        rules.append("access_count")
        reasons.append(f"policy pitfall reinforced by {memory.access_count} tasks (≥ {MIN_ACCESS})")
    kind = "structural gate" if group.structural else "policy gate"
    reason = f"{group.gate} ({kind}) " + " and ".join(reasons)
    return GraduationCandidate(
        memory=memory,
        rule="+".join(rules),
        recurrence=group.recurrence,
        access_count=memory.access_count,
        scope=group.scope,
        tasks=group.tasks,
        reason=reason,
        gate=group.gate,
        structural=group.structural,
        related_ids=tuple(m.id for m in group.memories),
        accessed_by=tuple(accessors.get(memory.id, ())),
    )


def _yaml(value: str) -> str:
    """A YAML scalar: JSON's double-quoted string is valid YAML for any text."""
    return json.dumps(value, ensure_ascii=False)


def _yaml_block(key: str, text: str, indent: str) -> str:
    """``key: |-`` with ``text`` indented, or a quoted scalar when a block cannot hold it literally."""
    lines = text.strip("\n").splitlines()
    plain = _UNSAFE.search(text) is None
    if not lines or not plain or lines[0][:1] in (" ", "\t") or any(line != line.rstrip() for line in lines):
        return f"{indent}{key}: {_yaml(text)}"
    body = "\n".join(f"{indent}  {line}" if line else "" for line in lines)
    return f"{indent}{key}: |-\n{body}"
