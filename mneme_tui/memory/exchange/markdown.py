"""Exported memories as Markdown for people: one document per repository, memories grouped by topic, each
with its kind, status, time, origin and links, and its text verbatim in a fence."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from mneme_tui.memory.exchange.export_lines import ExportedMemory, stamp


def markdown_by_repo(records: Sequence[ExportedMemory]) -> dict[str, str]:
    """Repository → its Markdown document, repositories in name order."""
    by_repo: dict[str, list[ExportedMemory]] = defaultdict(list)
    for record in records:
        by_repo[record.memory.repo_id].append(record)
    return {repo: _document(repo, by_repo[repo]) for repo in sorted(by_repo)}


def file_name(repo: str) -> str:
    """A file name for a repository's document: ``shop.md``; characters unsafe in a name become ``_``."""
    return (re.sub(r"[^A-Za-z0-9._-]", "_", repo).lstrip(".") or "_") + ".md"


def _document(repo: str, records: list[ExportedMemory]) -> str:
    statuses = Counter(record.memory.status for record in records)
    counts = ", ".join(f"{status} {count}" for status, count in sorted(statuses.items()))
    lines = [f"# Memories of {repo}", "", f"{len(records)} memories ({counts}).", ""]
    by_topic: dict[str, list[ExportedMemory]] = defaultdict(list)
    for record in records:
        by_topic[record.memory.topic].append(record)
    for topic in sorted(by_topic):
        lines += [f"## {_inline(topic)}", ""]
        for record in by_topic[topic]:
            lines += _memory(record)
    return "\n".join(lines).rstrip("\n") + "\n"


def _memory(record: ExportedMemory) -> list[str]:
    memory = record.memory
    facts = [f"created {stamp(memory.created_at)}", memory.from_line()[len("From: ") :]]
    if memory.task_id:
        facts.append(f"task {_inline(memory.task_id)}")
    if memory.superseded_by:
        facts.append(f"superseded by #{memory.superseded_by}")
    lines = [f"### #{memory.id} {memory.kind} · {memory.status}", "", "- " + " · ".join(facts)]
    lines += [
        f"- {stamp(entry.at)}: {entry.from_status} → {entry.to_status} ({_inline(entry.reason)}, "
        f"{_inline(entry.actor) or 'unknown'})"
        for entry in record.history
    ]
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", memory.content)), default=0))
    return [*lines, "", f"{fence}text", memory.content, fence, ""]


def _inline(value: str) -> str:
    """A value on one line of Markdown (line breaks shown as spaces)."""
    return " ".join(value.split())
