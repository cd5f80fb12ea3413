"""The record dataclasses of the four memory files, and their conversion to and from table rows.

Field names are the spec's column names in snake_case. Every record also says where it came from
(``source_file``, 1-based ``line``, and ``occurrence`` = how many earlier records of the same file
carry the same ID), so a mirror can key it as ``(source_file, id, occurrence)`` even after a git merge
left two rows with one ID.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cache, lru_cache
from typing import Any, ClassVar

from mneme_tui.legion.markdown.schemas import DEFAULT_BRANCH, ERROR, OUTCOME, PATTERN, PREFERENCE

_TRUE_WORDS = {"true", "yes", "y", "1", "resolved", "fixed", "✓", "✅", "x"}


@dataclass(kw_only=True)
class Record:
    """Fields shared by every memory record, plus where it sits in its file."""

    kind: ClassVar[str] = ""

    id: str = ""
    date: str = ""
    branch: str = DEFAULT_BRANCH
    tags: list[str] = field(default_factory=list)
    source_file: str = ""
    line: int = 0
    occurrence: int = 0
    layout: str = "row"
    superseded_by: str = ""
    body: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """A stable identity inside one file: ``FILE:ID:occurrence`` (``-`` for an ID-less row)."""
        return f"{self.source_file}:{self.id or '-'}:{self.occurrence}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: the dataclass fields plus ``kind`` and ``key``."""
        data = asdict(self)
        data["kind"] = self.kind
        data["key"] = self.key
        return data


@dataclass(kw_only=True)
class OutcomeRecord(Record):
    """One OUTCOMES.md (or ARCHIVE.md) row."""

    kind: ClassVar[str] = OUTCOME

    phase: str = ""
    plan: str = ""
    agent: str = ""
    task_type: str = ""
    outcome: str = ""
    importance: int = 2
    summary: str = ""
    recency_weight: float | None = None
    decay_score: float | None = None


@dataclass(kw_only=True)
class PatternRecord(Record):
    """One PATTERNS.md row or ``## PAT-NNN`` block."""

    kind: ClassVar[str] = PATTERN

    pattern: str = ""
    context: str = ""
    reuse_criteria: str = ""
    source: str = ""
    recency_weight: float | None = None


@dataclass(kw_only=True)
class ErrorRecord(Record):
    """One ERRORS.md row or ``## PIT-NNN`` pitfall block."""

    kind: ClassVar[str] = ERROR

    error_signature: str = ""
    fix: str = ""
    agent: str = ""
    resolved: bool = False
    resolved_stated: bool = True
    """False for a pitfall block with no Resolved line: ``resolved`` is then the spec's default, which text
    shown to people does not repeat as if the file had said it."""
    match_score: int | None = None

    def resolved_label(self) -> str:
        """``yes`` or ``no`` as the file said, or "" when it did not say."""
        return ("yes" if self.resolved else "no") if self.resolved_stated else ""

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        del data["resolved_stated"]
        return data


@dataclass(kw_only=True)
class PreferenceRecord(Record):
    """One PREFERENCES.md row or ``## PRF-NNN`` block."""

    kind: ClassVar[str] = PREFERENCE

    decision_point: str = ""
    context: str = ""
    proposed: str = ""
    user_choice: str = ""
    signal: str = ""
    agent: str = ""
    recency_weight: float | None = None

    def one_line(self) -> str:
        """What was decided, on one line: ``decision point: user choice`` (the parts the record has), or its
        context (the heading of a ``## PRF-NNN`` block, which has neither)."""
        said = [part.strip() for part in (self.decision_point, self.user_choice) if part.strip()]
        return ": ".join(said) or self.context.strip() or self.proposed.strip()


RECORD_TYPES: dict[str, type[Record]] = {
    OUTCOME: OutcomeRecord,
    PATTERN: PatternRecord,
    ERROR: ErrorRecord,
    PREFERENCE: PreferenceRecord,
}

_OWN_FIELDS: dict[type, frozenset[str]] = {}
_NOT_COLUMNS = {
    "kind",
    "source_file",
    "line",
    "occurrence",
    "layout",
    "extra",
    "body",
    "superseded_by",
    "recency_weight",
    "decay_score",
    "match_score",
    "importance",
    "resolved",
    "resolved_stated",
}


def split_tags(text: str) -> list[str]:
    """``"a, b ,c"`` -> ``["a", "b", "c"]`` (empty items dropped)."""
    return list(_split_tags(text))


@lru_cache(maxsize=4096)
def _split_tags(text: str) -> tuple[str, ...]:  # tag lists repeat from row to row
    return tuple(tag for item in text.split(",") if (tag := item.strip()))


def parse_bool(text: str) -> bool:
    return text.strip().lower() in _TRUE_WORDS


def parse_importance(text: str) -> tuple[int, str | None]:
    """An importance 1-5 and an optional complaint (bad values score as 2, out-of-range is clamped)."""
    try:
        value = int(text.strip())
    except ValueError:
        return 2, f"importance {text.strip()!r} is not a number; scored as 2"
    if value < 1 or value > 5:
        return min(5, max(1, value)), f"importance {value} is outside 1-5; clamped"
    return value, None


def record_from_values(
    kind: str, fields: list[str], values: list[str], *, default_branch: str = DEFAULT_BRANCH
) -> tuple[Record, list[str]]:
    """Build a record from decoded cell values under the given header fields."""
    cls = RECORD_TYPES[kind]
    record = cls()
    complaints: list[str] = []
    own = _OWN_FIELDS.get(cls)
    if own is None:
        own = _OWN_FIELDS[cls] = frozenset(cls.__dataclass_fields__)
    # mypy false positive: a class object is Hashable (type.__hash__), but mypy checks type[Record] against
    # Hashable with the instances' unbound __hash__; @cache wants Hashable arguments.
    plain = _plain_fields(cls)  # type: ignore[arg-type]
    for name, value in zip(fields, values):
        if name in plain:  # the common case, decided below too: a text column of the record
            setattr(record, name, value)
        elif name == "tags":
            record.tags = split_tags(value)
        elif name == "branch":
            record.branch = value if value != "" else default_branch
        elif name == "importance" and isinstance(record, OutcomeRecord):
            record.importance, complaint = parse_importance(value)
            if complaint:
                complaints.append(complaint)
        elif name == "resolved" and isinstance(record, ErrorRecord):
            record.resolved = parse_bool(value)
        elif name in own and name not in _NOT_COLUMNS:
            setattr(record, name, value)
        else:
            record.extra[name] = value
    if "branch" not in fields:
        record.branch = default_branch
    return record, complaints


@cache
def _plain_fields(cls: type[Record]) -> frozenset[str]:
    """Fields that ``record_from_values`` sets from the cell text as is."""
    return frozenset(cls.__dataclass_fields__) - _NOT_COLUMNS - {"tags", "branch"}


def values_for_fields(record: Record, fields: list[str]) -> list[str]:
    """The decoded cell values of ``record`` laid out under ``fields`` (a table's header)."""
    out: list[str] = []
    for name in fields:
        if name == "tags":
            out.append(", ".join(record.tags))
        elif name == "resolved" and isinstance(record, ErrorRecord):
            out.append("true" if record.resolved else "false")
        elif name == "importance" and isinstance(record, OutcomeRecord):
            out.append(str(record.importance))
        elif name in record.extra:
            out.append(record.extra[name])
        else:
            value = getattr(record, name, "")
            out.append("" if value is None else str(value))
    return out


def record_text(record: Record) -> str:
    """A plain ``field: value`` dump of a record, for error messages that must not lose data."""
    data = record.to_json()
    skip = {"source_file", "line", "occurrence", "layout", "key", "kind", "extra", "body", "superseded_by"}
    lines = [f"{record.kind} record:"]
    for name, value in data.items():
        if name in skip or value is None:
            continue
        if isinstance(value, list):
            value = ", ".join(value)
        lines.append(f"  {name}: {value}")
    return "\n".join(lines)
