"""A phase's status in ``.planning/ROADMAP.md`` (spec §12's precondition: "Phase must be marked Complete").

Accepted forms (case-insensitive, markdown emphasis ignored), for phase 5:

- a table row whose first cell is ``5`` / ``05`` / ``Phase 5…`` and another cell a status word;
- a line naming ``Phase 5`` that carries a status word or a checkbox (``- [x] **Phase 5: API**``);
- a heading naming ``Phase 5`` followed, before the next heading, by ``Status: …`` (or a status word).

Status words: Complete / Completed / Done / Shipped (all read as ``Complete``), In Progress, Planned,
Not Started, Pending, Blocked. A checked box reads as Complete, an unchecked one as Not Started.
"""

from __future__ import annotations

import re

ROADMAP_NAME = "ROADMAP.md"
COMPLETE = "Complete"
_STATUSES = (
    (re.compile(r"\bin[ -]progress\b|\bactive\b|\bexecuting\b"), "In Progress"),
    (re.compile(r"\bnot[ -]started\b"), "Not Started"),
    (re.compile(r"\bcomplete[d]?\b|\bdone\b|\bshipped\b|✅"), COMPLETE),
    (re.compile(r"\bplanned\b|\bplanning\b"), "Planned"),
    (re.compile(r"\bpending\b"), "Pending"),
    (re.compile(r"\bblocked\b"), "Blocked"),
)
_CHECKBOX = re.compile(r"^\s*[-*]\s*\[([ xX])\]")
_HEADING = re.compile(r"^#{1,6}\s")


def _status_in(text: str) -> str | None:
    lower = text.replace("*", "").replace("_", " ").lower()
    for pattern, status in _STATUSES:
        if pattern.search(lower):
            return status
    return None


def _names_phase(line: str, number: int) -> bool:
    if re.search(rf"\bphase\s*0*{number}\b(?![.\d])", line, re.IGNORECASE):
        return True
    cells = [c.strip(" *_") for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
    return bool(cells) and re.fullmatch(rf"0*{number}", cells[0]) is not None


def phase_status(roadmap: str, number: int) -> str | None:
    """The status ROADMAP.md gives phase ``number`` (``Complete``, ``In Progress`` …), or None if not listed."""
    lines = roadmap.splitlines()
    for index, line in enumerate(lines):
        if not _names_phase(line, number):
            continue
        box = _CHECKBOX.match(line)
        if box:
            return COMPLETE if box.group(1) in "xX" else "Not Started"
        own = _status_in(re.sub(r"\bphase\s*\d+\b", "", line, flags=re.IGNORECASE))
        if own is not None:
            return own
        if _HEADING.match(line):
            for following in lines[index + 1 :]:
                if _HEADING.match(following):
                    break
                found = _status_in(following)
                if found is not None:
                    return found
    return None
