"""Heading-block entries written by ``/legion:learn``: ``## PAT-/PIT-/PRF-NNN: summary`` + bullets + prose.

Block shape::

    ## PRF-003 (SUPERSEDED by PRF-006): Balanced cost profile
    - **Date**: 2026-09-29
    - **Tags**: cost-profile, models
    - **Signal**: corrective          (optional; any other bullet lands in ``extra``)

    Free prose, lists and even unrelated tables (all part of ``body``).

    ---

PAT blocks become pattern records, PIT blocks error (pitfall) records, PRF blocks preference records.
:func:`block_text` writes one (the sync exports a store-side preference so: it has no decision point,
signal or agent to put in a table row).
"""

from __future__ import annotations

import re

from mneme_tui.legion.markdown.legion_records import (
    ErrorRecord,
    PatternRecord,
    PreferenceRecord,
    Record,
    parse_bool,
    split_tags,
)
from mneme_tui.legion.markdown.schemas import BLOCK_KINDS, DEFAULT_BRANCH, field_name

BLOCK_HEADING = re.compile(
    r"^##\s+(?P<id>(?P<prefix>PAT|PIT|PRF)-\d+)\b\s*"
    r"(?:\(\s*SUPERSEDED\s+by\s+(?P<by>[A-Za-z]+-\d+)\s*\))?\s*:?\s*(?P<title>.*?)\s*$",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s{0,3}[-*+]\s+\*\*(?P<name>[^*]+?)\*\*\s*:?\s*(?P<value>.*?)\s*$")


def block_text(block_id: str, title: str, bullets: list[tuple[str, str]], body: str) -> str:
    """The lines of a heading block (``## ID: title``, ``- **Name**: value`` bullets, a blank line, ``body``,
    ``---``), ending in a newline; bullets with an empty value are left out. A body line that would end the
    block (a ``#`` heading, a ``|`` table row) is written with a leading backslash, as markdown escapes it."""
    lines = [f"## {block_id}: {' '.join(title.split())}"]
    lines += [f"- **{name}**: {value}" for name, value in bullets if value]
    if body.strip():
        body_lines = body.strip("\n").split("\n")
        lines += ["", *("\\" + line if line.lstrip().startswith(("#", "|")) else line for line in body_lines)]
    return "\n".join([*lines, "", "---"]) + "\n"


def match_heading(line: str) -> re.Match[str] | None:
    """The heading match when ``line`` opens a PAT/PIT/PRF block."""
    return BLOCK_HEADING.match(line.rstrip("\r\n"))


def _bullets_and_body(lines: list[str]) -> tuple[dict[str, str], str]:
    """A block's ``- **Name:** value`` bullets (by field name) and the prose after them, trailing rules dropped."""
    bullets: dict[str, str] = {}
    index = 1
    while index < len(lines) and not lines[index].strip():
        index += 1
    while index < len(lines):
        bullet = _BULLET.match(lines[index].rstrip("\r\n"))
        if not bullet:
            break
        bullets[field_name(bullet.group("name").rstrip(":"))] = bullet.group("value").lstrip(":").strip()
        index += 1
    body_lines = [line.rstrip("\r\n") for line in lines[index:]]
    while body_lines and body_lines[-1].strip() in {"", "---", "***", "___"}:
        body_lines.pop()
    return bullets, "\n".join(body_lines).strip("\n")


def record_from_block(lines: list[str], *, default_branch: str = DEFAULT_BRANCH) -> Record:
    """Build a pattern / pitfall / preference record from a block's lines (heading first)."""
    heading = match_heading(lines[0])
    assert heading is not None, "a block starts with its heading"
    bullets, body = _bullets_and_body(lines)
    kind = BLOCK_KINDS[heading.group("prefix").upper()]
    title = heading.group("title")
    common: dict[str, object] = {
        "id": heading.group("id"),
        "date": bullets.pop("date", ""),
        "branch": bullets.pop("branch", "") or default_branch,
        "tags": split_tags(bullets.pop("tags", "")),
        "layout": "block",
        "body": body,
        "superseded_by": heading.group("by") or bullets.pop("superseded_by", ""),
    }
    record: Record
    if kind == "pattern":
        record = PatternRecord(
            pattern=title,
            context=bullets.pop("context", ""),
            reuse_criteria=bullets.pop("reuse_criteria", ""),
            source=bullets.pop("source", ""),
            **common,  # type: ignore[arg-type]
        )
    elif kind == "error":
        resolved_text = bullets.pop("resolved", None)
        record = ErrorRecord(
            error_signature=title,
            fix=bullets.pop("fix", "") or body,
            agent=bullets.pop("agent", ""),
            resolved=True if resolved_text is None else parse_bool(resolved_text),
            resolved_stated=resolved_text is not None,
            **common,  # type: ignore[arg-type]
        )
    else:
        record = PreferenceRecord(
            context=title,
            decision_point=bullets.pop("decision_point", ""),
            proposed=bullets.pop("proposed", ""),
            user_choice=bullets.pop("user_choice", ""),
            signal=bullets.pop("signal", "").lower(),
            agent=bullets.pop("agent", ""),
            **common,  # type: ignore[arg-type]
        )
    record.extra = bullets
    return record
