"""The plain-text form of an orientation: short markdown meant to be pasted into an agent's prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mneme_tui.display import printable

if TYPE_CHECKING:
    from mneme_tui.memory.learning.orientation import Orientation

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
    out += ["", f"## Learned pitfalls ({len(view.learned_pitfalls)})"]
    if not view.learned_pitfalls:
        out.append("None.")
    for number, item in enumerate(view.learned_pitfalls, start=1):
        facts = ["structural gate" if item.structural else "policy gate", _tasks(item.tasks), _age(item.age_days)]
        if item.in_scope:
            facts.append("in scope of your changes")
        out.append(f"{number}. #{item.memory.id} {printable(item.memory.topic)} ({'; '.join(facts)})")
        out.append(_indented(item.memory.content))
    out += _omitted(view, "learned_pitfalls", "pitfall")
    out += ["", f"## Verified patterns ({len(view.verified_patterns)})"]
    if not view.verified_patterns:
        out.append("None.")
    for number, pattern in enumerate(view.verified_patterns, start=1):
        memory = pattern.memory
        days = (view.generated_at - memory.created_at).total_seconds() / 86400
        facts = [f"task {printable(memory.task_id)}" if memory.task_id else "no task", _age(days)]
        if pattern.in_scope:
            facts.append("in scope of your changes")
        out.append(f"{number}. #{memory.id} {printable(memory.topic)} ({'; '.join(facts)})")
        out.append(_indented(memory.content))
    out += _omitted(view, "verified_patterns", "pattern")
    out += ["", f"## Graduation candidates ({len(view.graduation_candidates)})"]
    if not view.graduation_candidates:
        out.append("None.")
    for number, candidate in enumerate(view.graduation_candidates, start=1):
        ids = " ".join(map(str, candidate.related_ids))
        out.append(f"{number}. #{candidate.memory.id} {printable(candidate.memory.topic)}: {printable(candidate.reason)}.")
        out.append(f"   Codify it as a policy rule, then run `mneme dismiss {ids}`.")
    if view.cooled:
        out += ["", f"({len(view.cooled)} one-off pitfall{'s' if len(view.cooled) != 1 else ''} older than 14 days "
                    f"cooled out: {', '.join(f'#{i}' for i in view.cooled)}; pass --modified FILE to keep those in scope.)"]
    return "\n".join(out) + "\n"


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
