"""The four Legion memory tables (plus ARCHIVE.md): columns, ID prefixes and header templates.

A table header is recognised by its column names, in any order: ``Task Type`` and ``task type`` are
the same column (``task_type``). Columns a header lacks get defaults (no ``Branch`` -> the default
branch; no ``ID`` -> an empty ID, as in 9-column files written by some ports).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError

OUTCOME = "outcome"
PATTERN = "pattern"
ERROR = "error"
PREFERENCE = "preference"

DEFAULT_BRANCH = "main"
OUTCOMES_VALUES = ("success", "partial", "failed")
SIGNALS = ("positive", "negative", "corrective")
DECISION_POINTS = ("review-verdict", "review-override", "agent-selection", "manual-edit", "fix-acceptance")

#: A ``{...}`` that may be a template placeholder (not ``${HOME}``, not inside ``{{...}}``); see :func:`is_placeholder`.
_BRACED = re.compile(r"(?<![$\w{])\{([^{}\n]{1,80})\}(?!\})")
_CAPS_TOKEN = re.compile(r"^[A-Z][A-Z0-9]*$")  # {NNN}, {NN}, {PP}, {N}
_WORDS = re.compile(r"^[\w/+'-]+(?: [\w/+'-]+)+$")  # words with single spaces: {task type}, {count + 1}
_SNAKE = re.compile(r"^[a-z]+(?:_[a-z]+)+$")  # {archived_count}
_TEMPLATE_WORDS = frozenset({"tag", "count", "limit", "project", "name", "date", "placeholder", "description"})


def field_name(column: str) -> str:
    """The snake_case field name of a column header (``Reuse Criteria`` -> ``reuse_criteria``)."""
    return re.sub(r"[^a-z0-9]+", "_", column.strip().lower()).strip("_")


@dataclass(frozen=True)
class TableSchema:
    """One memory table: record kind, file, ID prefix, canonical columns and new-file template."""

    kind: str
    file_name: str
    id_prefix: str
    section: str
    columns: tuple[str, ...]
    required: frozenset[str]
    template: str

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(field_name(column) for column in self.columns)

    def header_lines(self) -> str:
        """The canonical header and separator rows (with trailing newline)."""
        head = "| " + " | ".join(self.columns) + " |"
        sep = "|" + "|".join("-" * (len(column) + 2) for column in self.columns) + "|"
        return f"{head}\n{sep}\n"

    def matches(self, fields: list[str]) -> bool:
        return self.required.issubset(fields)


OUTCOMES_TEMPLATE = """# Memory — Outcome Log

Records agent performance and task outcomes for cross-session learning.
Managed by memory-manager skill. Do not edit manually unless pruning old records.

## Records

| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |
|----|------|--------|-------|------|-------|-----------|---------|------------|------|---------|
"""

PATTERNS_TEMPLATE = """# Memory — Pattern Library

Successful patterns distilled from agent outcomes. Each pattern captures what worked, under what conditions, and when to reuse it.
Managed by memory-manager skill. Do not edit manually unless curating entries.

## Patterns

| ID | Date | Branch | Pattern | Context | Reuse Criteria | Source | Tags |
|----|------|--------|---------|---------|----------------|--------|------|
"""  # noqa: E501 - the spec's template text, verbatim

ERRORS_TEMPLATE = """# Memory — Error Fixes

Error signatures mapped to known fixes. When an agent encounters a matching error, it should try the documented fix before investigating from scratch.
Managed by memory-manager skill. Do not edit manually unless curating entries.

## Errors

| ID | Date | Branch | Error Signature | Fix | Agent | Resolved | Tags |
|----|------|--------|-----------------|-----|-------|----------|------|
"""  # noqa: E501 - the spec's template text, verbatim

PREFERENCES_TEMPLATE = """# Memory — User Preferences

Decision signals from user interactions with agent proposals. Each record captures what was proposed, what the user chose, and the preference signal. Used by /legion:plan to improve agent and approach recommendations.
Managed by memory-manager skill. Do not edit manually unless curating entries.

## Preferences

| ID | Date | Branch | Decision Point | Context | Proposed | User Choice | Signal | Agent | Tags |
|----|------|--------|---------------|---------|----------|-------------|--------|-------|------|
"""  # noqa: E501 - the spec's template text, verbatim

ARCHIVE_TEMPLATE = """# Memory — Archived Outcomes

Pruned records from OUTCOMES.md. Preserved for historical reference.
Records archived by memory-manager prune operation. Do not edit manually.

## Archived Records

| ID | Date | Branch | Phase | Plan | Agent | Task Type | Outcome | Importance | Tags | Summary |
|----|------|--------|-------|------|-------|-----------|---------|------------|------|---------|
"""

_OUTCOME_COLUMNS = (
    "ID",
    "Date",
    "Branch",
    "Phase",
    "Plan",
    "Agent",
    "Task Type",
    "Outcome",
    "Importance",
    "Tags",
    "Summary",
)

OUTCOMES = TableSchema(
    OUTCOME,
    "OUTCOMES.md",
    "O",
    "Records",
    _OUTCOME_COLUMNS,
    frozenset({"agent", "outcome", "importance", "summary"}),
    OUTCOMES_TEMPLATE,
)
ARCHIVE = TableSchema(
    OUTCOME,
    "ARCHIVE.md",
    "O",
    "Archived Records",
    _OUTCOME_COLUMNS,
    frozenset({"agent", "outcome", "importance", "summary"}),
    ARCHIVE_TEMPLATE,
)
PATTERNS = TableSchema(
    PATTERN,
    "PATTERNS.md",
    "P",
    "Patterns",
    ("ID", "Date", "Branch", "Pattern", "Context", "Reuse Criteria", "Source", "Tags"),
    frozenset({"pattern", "reuse_criteria"}),
    PATTERNS_TEMPLATE,
)
ERRORS = TableSchema(
    ERROR,
    "ERRORS.md",
    "E",
    "Errors",
    ("ID", "Date", "Branch", "Error Signature", "Fix", "Agent", "Resolved", "Tags"),
    frozenset({"error_signature", "fix"}),
    ERRORS_TEMPLATE,
)
PREFERENCES = TableSchema(
    PREFERENCE,
    "PREFERENCES.md",
    "D",
    "Preferences",
    ("ID", "Date", "Branch", "Decision Point", "Context", "Proposed", "User Choice", "Signal", "Agent", "Tags"),
    frozenset({"decision_point", "signal"}),
    PREFERENCES_TEMPLATE,
)

#: Schemas in the order headers are tried (each required set is distinct).
TABLE_SCHEMAS: tuple[TableSchema, ...] = (OUTCOMES, PATTERNS, ERRORS, PREFERENCES)

#: The memory table each known file holds.
FILE_SCHEMAS: dict[str, TableSchema] = {s.file_name: s for s in (*TABLE_SCHEMAS, ARCHIVE)}

#: Heading-block prefixes written by ``/legion:learn`` and the record kind each becomes.
BLOCK_KINDS: dict[str, str] = {"PAT": PATTERN, "PIT": ERROR, "PRF": PREFERENCE}


def branch_position(fields: list[str]) -> int:
    """Where a Branch column goes in a table of ``fields``: right after Date, else after ID, else first."""
    for anchor in ("date", "id"):
        if anchor in fields:
            return fields.index(anchor) + 1
    return 0


def schema_for_header(fields: list[str]) -> TableSchema | None:
    """The memory table a header row belongs to, or None for an unrelated table."""
    for schema in TABLE_SCHEMAS:
        if schema.matches(fields):
            return schema
    return None


def is_placeholder(body: str) -> bool:
    """True when ``{body}`` is a template placeholder as the skill's templates write them.

    Those are capital tokens (``{NNN}``), phrases of plain words (``{task type}``, ``{count + 1}``),
    snake_case names (``{archived_count}``) and field names (``{summary}``, ``{agent}``). Ordinary text
    that holds braces is not: ``src/{a,b}.py``, ``${HOME}``, ``import {x} from "y"``, ``{json: 1}``.
    """
    if _CAPS_TOKEN.match(body) or _SNAKE.match(body) or _is_phrase(body):
        return True
    return body in _TEMPLATE_WORDS or body in {name for schema in TABLE_SCHEMAS for name in schema.fields}


def _is_phrase(body: str) -> bool:
    """Plain words, at least two in one comma-separated part (``{What was built, one bullet per plan}``)."""
    parts = body.split(", ")
    if not body[0].isalpha() or any(not part for part in parts):
        return False
    return any(_WORDS.match(part) for part in parts) and all(
        _WORDS.match(part) or re.fullmatch(r"[\w/+'-]+", part) for part in parts
    )


def find_placeholder(text: str) -> str | None:
    """The first template placeholder in ``text`` (with its braces), or None."""
    return next((match.group(0) for match in _BRACED.finditer(text) if is_placeholder(match.group(1))), None)


def reject_placeholders(values: Mapping[str, Any]) -> None:
    """Raise ERR_VALIDATION_FAILED when a field of a new record still holds a ``{placeholder}``.

    The skill's Completion Gate for record operations: "New entry appended with all required fields
    populated (no {placeholder} strings remaining)". ``values`` maps field names to text or lists of text.
    """
    for name, value in values.items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and (found := find_placeholder(text)):
                raise MnemeError(
                    ERR_VALIDATION_FAILED, f"{name} still holds the template placeholder {found}; fill it in"
                )
