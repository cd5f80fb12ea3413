"""Phase-summary compaction (spec §12) without a language model.

``compact_phase(phase_dir)`` reads ``{NN}-*-SUMMARY.md`` in ``.planning/phases/{NN-name}/`` and writes
``{NN}-COMPACTED.md`` (originals are never touched).

Preconditions (spec §12): the phase must be marked Complete in ``.planning/ROADMAP.md`` (a phase marked
anything else is refused, naming the phase and its status; a ROADMAP.md that is missing or does not
list the phase gives a warning) and every ``{NN}-{PP}-PLAN.md`` needs its ``{NN}-{PP}-SUMMARY.md``.

Sections are sorted by their ``##`` heading, following the spec's Preserved/Trimmed lists:

- kept: deliverables and goal (accomplishments / summary / what was built / outcome / objective),
  decisions (decisions, deviations, rationale), files (files created / modified), verification
  (verification / tests / self-check: pass/fail lines and short bullets, never per-test output such
  as ``PASSED tests/x.py::test_y``), agents, requirements; YAML frontmatter keys ``requirements*``,
  ``key-decisions`` / ``decisions``, ``key-files`` (also nested ``created:`` / ``modified:`` lists, inline
  ``[a, b]`` or one ``- path`` per line), ``files-*``, ``agent(s)`` feed the same sections, and so do the
  summaries' own bold fields ``**Agent**: name`` (Legion's execution tracker writes them under ``## Result``);
- dropped: everything else (performance, commits, execution logs and traces, issues, next steps, the
  agent-selection rationale and handoff context, whose decisions repeat ``## Key Decisions``),
  every fenced code block (command output, diffs, logs), and a line repeated in several summaries
  after its first occurrence.

``requirements_satisfied`` lists the IDs the summaries declare (frontmatter, Requirements sections)
and every other ID (``REQ-12``, ``AUTH-03``, ``FR-1`` ...) their text mentions outside code blocks.
The phase's files are those of the summaries' files sections and frontmatter, not paths quoted in logs
or code. Verification: every one of those IDs and files must occur in the result; missing ones are
added back (files to the Files table, IDs to a ``## Other References`` section) and reported in
``warnings``. The size ratio is measured; outside the target 30-50 % it is reported as a warning.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from mneme_tui.config import now
from mneme_tui.errors import ERR_NOT_FOUND, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.legion.markdown.roadmap import COMPLETE, ROADMAP_NAME, phase_status
from mneme_tui.legion.markdown.storage import atomic_write, read_state

_REQ_ID = re.compile(r"(?<![\w-])([A-Z]{2,}[A-Z0-9]*-\d{1,4}[a-z]?)(?![\w-])")
_NOT_REQ = {"UTF", "SHA", "ISO", "RFC", "MD", "HTTP", "TLS", "SSL", "PAT", "PIT", "PRF", "ES", "IPV"}
_SLASH_PATH = re.compile(r"(?<![\w/.@:~-])((?:\.{1,2}/|/)?(?:[\w@.+-]+/)+[\w@+-]+(?:\.[\w-]+)+)")
_BACKTICK = re.compile(r"`([^`\s]+)`")
_FILE_NAME = re.compile(r"^[\w@+-]+(?:\.[\w-]+)*\.[A-Za-z][\w]{0,5}$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_PASS_FAIL = re.compile(r"pass|fail|✓|✗|✅|❌|ok\b|error|green|red\b|\d+/\d+", re.IGNORECASE)
_SECTION_KINDS = (
    ("decisions", ("decision", "deviation", "rationale", "trade-off", "tradeoff")),
    ("files", ("file",)),
    ("verification", ("verif", "test", "self-check", "validation", "check")),
    ("agents", ("agent",)),
    ("requirements", ("requirement",)),
    (
        "deliverables",
        (
            "accomplish",
            "deliverable",
            "what was",
            "summary",
            "built",
            "outcome",
            "overview",
            "result",
            "goal",
            "objective",
            "completed task",
        ),
    ),
)
_TEST_OUTPUT = re.compile(r"\S::\S|^\s*(?:PASSED|PASS|ok)\s+\S*[/.]\S", re.IGNORECASE)  # per-test output lines
_FLAGGED = re.compile(r"\b(?:failed|fail|error)\b|✗|❌", re.IGNORECASE)  # ... of which failures are kept
_FILE_KEYS = ("key_files", "files_modified", "files_created")
_FILE_CHANGES = {"files_created": "created", "files_modified": "modified"}
_NESTED_FILE_KEYS = {"created": "files_created", "modified": "files_modified"}
_DROPPED_SECTIONS = ("agent selection", "handoff", "token usage")
_AGENT_FIELD = re.compile(r"^\s*(?:[-*]\s+)?\*\*Agents?\*\*\s*:\s*(.+?)\s*$")
TARGET_RATIO = (0.30, 0.50)
_LEAD = re.compile(r"^[\s|*-]*")
_AFTER_PATH = re.compile(r"^`?\s*[|:—–-]*\s*")
MAX_LINE = 300


@dataclass
class CompactionResult:
    """Where the compacted file went and what it kept."""

    path: str
    phase: str
    original_summaries: list[str]
    requirements_satisfied: list[str]
    file_paths: list[str]
    missing_added: list[str] = field(default_factory=list)
    original_chars: int = 0
    compacted_chars: int = 0
    ratio: float = 0.0  # compacted_chars / original_chars (spec §12 target: 0.30-0.50)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Summary:
    name: str
    plan: str
    title: str = ""
    front: dict[str, list[str]] = field(default_factory=dict)
    sections: dict[str, list[str]] = field(default_factory=dict)
    text: str = ""
    prose: list[str] = field(default_factory=list)  # every line outside frontmatter and code fences
    file_lines: list[str] = field(default_factory=list)  # files-section lines, whole (before MAX_LINE)

    def paths(self) -> list[str]:
        """The files this plan modified: its files sections and frontmatter file keys."""
        lines = self.file_lines + [f"`{v}`" for key in _FILE_KEYS for v in self.front.get(key, []) if v]
        return list(dict.fromkeys(p for line in lines for p in file_paths(line, loose=True)))


def requirement_ids(text: str) -> list[str]:
    found = [m for m in _REQ_ID.findall(text) if m.split("-")[0] not in _NOT_REQ]
    return list(dict.fromkeys(found))


def file_paths(text: str, *, loose: bool = False) -> list[str]:
    """Paths with a directory and an extension; bare file names only in backticks (or when ``loose``)."""
    found = [p.rstrip(".") for p in _SLASH_PATH.findall(text) if re.search(r"[A-Za-z]", p)]
    for token in _BACKTICK.findall(text):
        token = token.rstrip(".,:;")
        if _FILE_NAME.match(token) or _SLASH_PATH.fullmatch(token):
            found.append(token)
    if loose:
        for token in re.findall(r"[\w@+./-]+", text):
            token = token.rstrip(".,:;")
            if "/" not in token and _FILE_NAME.match(token) and not re.fullmatch(r"[\d.]+\w*", token):
                found.append(token)
    return list(dict.fromkeys(found))


def _frontmatter(lines: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    if not lines or lines[0].strip() != "---":
        return {}, lines
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return {}, lines
    data: dict[str, list[str]] = {}
    key = target = ""
    for line in lines[1:end]:
        top = re.match(r"^([A-Za-z_][\w-]*):\s*(.*)$", line)
        nested = re.match(r"^\s+([\w-]+):\s*(.*)$", line)
        if top:
            key = target = top.group(1).lower().replace("-", "_")
            data[key] = _yaml_values(top.group(2))
        elif key and re.match(r"^\s+-\s+", line):
            data.setdefault(target, []).append(re.sub(r"^\s+-\s+", "", line).strip().strip("'\""))
        elif key and nested:  # key-files: / created: [a, b] - other nested maps keep their parent's name
            sub = nested.group(1).lower()
            target = _NESTED_FILE_KEYS.get(sub, key) if key == "key_files" else key
            data.setdefault(target, []).extend(_yaml_values(nested.group(2)))
    return data, lines[end + 1 :]


def _yaml_values(value: str) -> list[str]:
    """The items of a one-line YAML value: ``[a, 'b']`` -> ``[a, b]``, ``x`` -> ``[x]``, empty -> ``[]``."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        return [v.strip().strip("'\"") for v in value[1:-1].split(",") if v.strip()]
    return [value.strip("'\"")] if value else []


def _section_kind(heading: str) -> str | None:
    lower = heading.lower()
    if any(words in lower for words in _DROPPED_SECTIONS):
        return None
    for kind, words in _SECTION_KINDS:
        if any(word in lower for word in words):
            return kind
    return None


def _verification_line(line: str) -> bool:
    """A verification line worth keeping: a bullet, table row or pass/fail line, but no per-test output
    unless it reports a failure (spec §12: keep pass/fail, drop verbose output)."""
    if _TEST_OUTPUT.search(line):
        return bool(_FLAGGED.search(line))
    return line.lstrip().startswith(("-", "*", "|")) or bool(_PASS_FAIL.search(line))


def _read_summary(path: Path, number: str) -> _Summary:
    try:
        text = (read_state(path).data or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{path} is not UTF-8 text; nothing was compacted") from None
    plan_match = re.match(rf"^({re.escape(number)}-[\w]+?)-SUMMARY\.md$", path.name)
    summary = _Summary(path.name, plan_match.group(1) if plan_match else path.stem, text=text)
    summary.front, body = _frontmatter(text.split("\n"))
    current: str | None = "deliverables"
    in_fence = False
    for line in body:
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        summary.prose.append(line)
        agent = _AGENT_FIELD.match(line)
        if agent:
            summary.front.setdefault("agent", []).append(agent.group(1))
        if line.startswith("# ") and not summary.title:
            summary.title = line[2:].strip()
            continue
        if line.startswith("## "):
            heading = line[3:].strip()
            current = _section_kind(heading)
            if current == "verification" and ":" in heading:
                summary.sections.setdefault("verification", []).append(f"- {heading}")
            continue
        if current is None or not line.strip():
            continue
        if current == "files":
            summary.file_lines.append(line)
        kept = line.rstrip()
        if len(kept) > MAX_LINE:
            kept = kept[:MAX_LINE].rstrip() + " …"
        if current == "verification" and not _verification_line(kept):
            continue
        summary.sections.setdefault(current, []).append(kept)
    return summary


def _phase_summaries(phase_dir: Path) -> tuple[str, str, list[_Summary]]:
    """The phase number, its name and its parsed ``{NN}-*-SUMMARY.md`` files (symlinks leaving the folder refused)."""
    match = re.match(r"^(\d+)-?(.*)$", phase_dir.name)
    if not match:
        raise MnemeError(ERR_NOT_FOUND, f"{phase_dir.name} is not a phase folder named NN-name")
    number, name = match.group(1), match.group(2) or phase_dir.name
    paths = sorted(p for p in phase_dir.glob(f"{number}-*-SUMMARY.md") if p.is_file() or p.is_symlink())
    if not paths:
        raise MnemeError(ERR_NOT_FOUND, f"no {number}-*-SUMMARY.md files in {phase_dir}")
    return number, name, [_read_summary(p, number) for p in paths]


def _satisfied(summaries: list[_Summary]) -> list[str]:
    """Declared IDs (frontmatter ``requirements*``, Requirements sections), then the rest the text names."""
    declared: list[str] = []
    for s in summaries:
        for key, values in s.front.items():
            if key.startswith("requirements"):
                declared += [v for v in values if v]
        declared += requirement_ids("\n".join(s.sections.get("requirements", [])))
    mentioned = requirement_ids("\n".join(line for s in summaries for line in s.prose))
    return list(dict.fromkeys(declared + mentioned))


def _first_time(lines: list[str], seen: set[str]) -> list[str]:
    """``lines`` less those already given for an earlier summary (spec §12: repeated context is trimmed)."""
    fresh = []
    for line in lines:
        key = " ".join(line.lstrip("-* ").split()).lower()
        if key and key in seen:
            continue
        seen.add(key)
        fresh.append(line)
    return fresh


def _deliverables(summaries: list[_Summary]) -> list[str]:
    out = ["## Deliverables"]
    seen: set[str] = set()
    for s in summaries:
        out.append(f"- **{s.plan}**: {s.title or s.name}")
        out += [
            f"  {line.strip()}" if line.strip().startswith(("- ", "* ")) else f"  - {line.strip()}"
            for line in _first_time(s.sections.get("deliverables", []), seen)
            if not line.strip().startswith("|")
        ]
    return out


def _decisions(summaries: list[_Summary]) -> list[str]:
    out = ["", "## Decisions"]
    seen: set[str] = set()
    for s in summaries:
        front = s.front.get("key_decisions", []) + s.front.get("decisions", [])
        lines = _first_time(front + s.sections.get("decisions", []), seen)
        out += [
            f"- ({s.plan}) {line.strip().lstrip('-* ').strip()}"
            for line in lines
            if line.strip() and not line.strip().startswith("|")
        ]
    return out


def _change_text(line: str, path: str) -> str:
    """``line`` less its leading bullet/pipe, the (backticked) ``path`` and the separator after it."""
    rest = _LEAD.sub("", line, count=1)
    for start in (f"`{path}", path):
        if rest.startswith(start):
            return _AFTER_PATH.sub("", rest[len(start) :], count=1)
    return line


def _files_table(summaries: list[_Summary]) -> list[str]:
    out = ["", "## Files Modified", "| File | Change |", "|------|--------|"]
    seen: set[str] = set()
    for s in summaries:
        file_lines = list(s.sections.get("files", []))
        for key in _FILE_KEYS:
            change = f" - {_FILE_CHANGES[key]}" if key in _FILE_CHANGES else ""
            file_lines += [f"- `{v}`{change}" if " " not in v else f"- {v}" for v in s.front.get(key, []) if v]
        for line in file_lines:
            for path in file_paths(line, loose=True):
                if path in seen:
                    continue
                change = _change_text(line.strip(), path).strip(" |") or "modified"
                seen.add(path)
                out.append(f"| `{path}` | {change.replace('|', '/')} ({s.plan}) |")
    return out


def _verification_and_agents(summaries: list[_Summary]) -> list[str]:
    out = ["", "## Verification"]
    seen: set[str] = set()
    for s in summaries:
        lines = _first_time(s.sections.get("requirements", []) + s.sections.get("verification", []), seen)
        out += [
            f"- {s.plan}: {line.strip().lstrip('-* ').strip()}"
            for line in lines
            if line.strip() and not re.fullmatch(r"\|?[\s:|-]*", line.strip())
        ]
    out += ["", "## Agents"]
    for s in summaries:
        agents = s.front.get("agent", []) + s.front.get("agents", [])
        agents += [line.strip().lstrip("-* ").strip() for line in s.sections.get("agents", [])]
        out.append(f"- {s.plan}: {', '.join(a for a in agents if a) or 'not recorded'}")
    return out


def _missing(phase_paths: list[str], text: str, all_ids: list[str]) -> tuple[list[str], list[str]]:
    """The phase's paths and requirement IDs that ``text`` lacks (one pass over each, no rescans).

    An ID counts as present when it is a whole ``[\\w-]+`` word of ``text`` (as it was matched); a path
    when it is a whole path-character run of ``text`` (or one less a trailing ``.,:;``).
    """
    words = set(re.findall(r"[\w-]+", text))
    runs = set(re.findall(r"[\w@+./~:-]+", text))
    runs |= {run.rstrip(".,:;") for run in runs} | {run.strip(":") for run in runs}
    paths = [p for p in phase_paths if p not in runs]
    ids = [i for i in all_ids if i not in words]
    return paths, ids


def _preconditions(phase_dir: Path, number: str) -> list[str]:
    """Spec §12 preconditions: refuse a phase ROADMAP.md does not mark Complete, or a plan without its summary.

    Returns the warnings for what could not be checked (no ROADMAP.md, or the phase not listed in it).
    """
    plans = sorted(p.name[: -len("-PLAN.md")] for p in phase_dir.glob(f"{number}-*-PLAN.md"))
    missing = [f"{plan}-SUMMARY.md" for plan in plans if not (phase_dir / f"{plan}-SUMMARY.md").exists()]
    if missing:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"phase {phase_dir.name} is missing {', '.join(missing)} "
            f"(every plan needs its summary); nothing was compacted",
        )
    roadmap = phase_dir.parent.parent / ROADMAP_NAME
    try:
        text = (read_state(roadmap).data or b"").decode("utf-8", errors="replace") if roadmap.is_file() else None
    except OSError:
        text = None
    if text is None:
        return [f"no {ROADMAP_NAME} beside phases/: could not check that phase {int(number)} is Complete"]
    status = phase_status(text, int(number))
    if status is None:
        return [f"{ROADMAP_NAME} does not list phase {int(number)}: could not check that it is Complete"]
    if status != COMPLETE:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"phase {int(number)} ({phase_dir.name}) is marked {status!r} in "
            f"{roadmap}, not Complete; nothing was compacted",
        )
    return []


def compact_phase(phase_dir: Path, *, today: date | None = None) -> CompactionResult:
    """Write ``{NN}-COMPACTED.md`` for one phase folder (see module doc); originals stay untouched."""
    phase_dir = Path(phase_dir)
    number, name, summaries = _phase_summaries(phase_dir)
    warnings = _preconditions(phase_dir, number)
    originals = "\n".join(s.text for s in summaries)
    satisfied = _satisfied(summaries)
    head = [
        "---",
        f"phase: {phase_dir.name}",
        f"compacted: {(today or now().date()).isoformat()}",
        f"original_summaries: [{', '.join(s.name for s in summaries)}]",
        f"requirements_satisfied: [{', '.join(satisfied)}]",
        "---",
        "",
        f"# Phase {int(number)}: {name} — Compacted Summary",
        "",
    ]
    files = _files_table(summaries)
    rest = _verification_and_agents(summaries)
    body = [*head, *_deliverables(summaries), *_decisions(summaries), *files, *rest]
    phase_paths = list(dict.fromkeys(path for s in summaries for path in s.paths()))
    missing_paths, missing_ids = _missing(phase_paths, "\n".join(body), satisfied)
    files += [f"| `{path}` | listed in the original summaries |" for path in missing_paths]
    out = [*head, *_deliverables(summaries), *_decisions(summaries), *files, *rest]
    if missing_ids:
        out += ["", "## Other References", *[f"- {i}" for i in missing_ids]]
    final = "\n".join(out).rstrip("\n") + "\n"
    target = phase_dir / f"{number}-COMPACTED.md"
    atomic_write(target, final)
    ratio = len(final) / len(originals) if originals else 0.0
    warnings += [f"compaction had dropped {item}; added back" for item in [*missing_paths, *missing_ids]]
    low, high = TARGET_RATIO
    if not low <= ratio <= high:
        warnings.append(
            f"the compacted summary is {ratio:.0%} of the originals' size; the skill targets {low:.0%}-{high:.0%}"
        )
    return CompactionResult(
        path=str(target),
        phase=phase_dir.name,
        original_summaries=[s.name for s in summaries],
        requirements_satisfied=satisfied,
        file_paths=phase_paths,
        missing_added=[*missing_paths, *missing_ids],
        original_chars=len(originals),
        compacted_chars=len(final),
        ratio=round(ratio, 3),
        warnings=warnings,
    )
