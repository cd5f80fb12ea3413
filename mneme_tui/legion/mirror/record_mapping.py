"""The mirror's representation: how a Legion record maps onto a memory, and the companion table.

Record -> memory (see :mod:`mneme_tui.legion.mirror.sync` for the rules as a whole): kind, topic, task id, the
memory text, ``created_at``, and the record's identity, columns and content hash.

``legion_records`` links a mirrored record to its memory: one row per mirrored memory (``memory_id`` is
the primary key and points at ``memories.id``; the ``memories`` table itself stays exactly the spec's
DDL). It is declared with the store's other tables (``memory/persistence/schema.py``, schema 3) and read
and written through ``LegionRecords``. Columns:

- ``project``: the repo_id the record was mirrored into;
- ``family``: the identity namespace - ``OUTCOMES.md`` for outcome rows of OUTCOMES.md *and*
  ARCHIVE.md (so a pruned row keeps its identity), otherwise the file name;
- ``source_file``: the file the record was last seen in (``ARCHIVE.md`` once archived; '' once it is
  gone from every file);
- ``kind``: the Legion record kind (``outcome``, ``pattern``, ``error``, ``preference``);
- ``identity`` / ``occurrence``: the record's identity inside its family (its ID, or a fingerprint for
  an ID-less row) and how many earlier records of the family share that identity;
- ``record_id``: the ID cell as written ('' for rows without one);
- ``content_hash``: SHA-256 of the mirror version, kind and columns (re-sync compares only this);
- ``columns``: the record's Legion columns as JSON (spec field names in snake_case);
- ``archived``: 1 while the record sits in ARCHIVE.md;
- ``origin``: ``file`` (imported from markdown) or ``store`` (created in the store, appended on export);
- ``state``: ``linked`` (mirrors a record) or ``merged`` (an exported memory that Legion folded into an
  existing record, e.g. an error signature that was already known - kept so it is not exported again);
- ``sync_status`` / ``sync_superseded_by``: the status the sync last gave the memory. A sync only moves a
  status it set itself, so a dismissal made in the store survives every re-import;
- ``synced_at``: when the row last changed.
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from datetime import datetime, time
from functools import cache, lru_cache
from typing import Any

import peewee

from mneme_tui import compat
from mneme_tui.legion.markdown.legion_records import (
    ErrorRecord,
    OutcomeRecord,
    PatternRecord,
    PreferenceRecord,
    Record,
    split_tags,
)
from mneme_tui.legion.markdown.schemas import ARCHIVE, ERROR, OUTCOME, OUTCOMES, PATTERN, PREFERENCE
from mneme_tui.legion.skill.scoring import parse_record_date
from mneme_tui.memory import secrets
from mneme_tui.memory.persistence.repositories import LegionRecords
from mneme_tui.memory.records import LEGION_IMPORT, Provenance
from mneme_tui.validation import MAX_CONTENT_CHARS, MAX_TASK_ID_BYTES, MAX_TOPIC_BYTES, cut_to_size

MIRROR_VERSION = 1
"""Part of every content hash: bump it when the mapping changes so the next sync rewrites memories."""

OUTCOMES_FAMILY = OUTCOMES.file_name
MEMORY_KINDS = {OUTCOME: "outcome", PATTERN: "practice", ERROR: "error", PREFERENCE: "preference"}
"""Legion record kind → memory kind: imported knowledge is never a statutory kind (spec 3.1: those are minted
strictly by verified task sync), so outcomes, patterns and errors get the imported kinds."""
_NOT_COLUMNS = frozenset({"source_file", "line", "occurrence", "recency_weight", "decay_score", "match_score"})


# ------------------------------------------------------------------------ record -> memory
@lru_cache(maxsize=4096)
def _first_task_type(task_type: str) -> str | None:
    types = split_tags(task_type)
    return _clean(types[0]) if types else None


def memory_kind(record: Record) -> str:
    """The memory kind of an imported record (a quality review is an ``outcome`` like any other)."""
    return MEMORY_KINDS[record.kind]


def provenance(file_name: str, identity: str) -> Provenance:
    """``legion-import`` with ``FILE#ID`` (``FILE#~fingerprint`` for a row without an ID: ``record_identity``)."""
    return Provenance(LEGION_IMPORT, f"{file_name}#{identity}")


def memory_topic(record: Record, warnings: list[str] | None = None) -> str:
    """The memory topic of a record: its first task type or tag, cut to ``MAX_TOPIC_BYTES`` (``_within``)."""
    topic = "General"
    if isinstance(record, OutcomeRecord) and (first := _first_task_type(record.task_type)) is not None:
        topic = first
    elif record.tags:
        topic = _clean(record.tags[0])
    return _within(record, topic, "topic", MAX_TOPIC_BYTES, warnings)


def memory_task_id(record: Record, warnings: list[str] | None = None) -> str:
    """The memory task id of a record (an outcome's plan), cut to ``MAX_TASK_ID_BYTES`` (``_within``)."""
    task_id = _clean(record.plan.strip()) if isinstance(record, OutcomeRecord) else ""
    return _within(record, task_id, "task id", MAX_TASK_ID_BYTES, warnings)


def _within(record: Record, value: str, name: str, limit: int, warnings: list[str] | None) -> str:
    """``value`` cut to ``limit`` bytes of UTF-8 when longer (the file keeps it whole); ``warnings`` gets a line
    naming the file and line when given, as for an over-long text (``memory_content``)."""
    cut = cut_to_size(value, limit)
    if cut != value and warnings is not None:
        warnings.append(
            f"{record.source_file} line {record.line}: record {record.id or '(no ID)'} has a {name} of "
            f"{len(value.encode('utf-8', 'surrogatepass')):,} bytes; its memory keeps the first {limit:,} "
            "(the file keeps it whole)"
        )
    return cut


def headline(record: Record) -> str:
    """The record's one-line gist: summary, pattern, error signature or preference context."""
    if isinstance(record, OutcomeRecord):
        return record.summary
    if isinstance(record, PatternRecord):
        return record.pattern
    if isinstance(record, ErrorRecord):
        return record.error_signature
    if isinstance(record, PreferenceRecord):
        return record.context
    return ""


def _details(record: Record) -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = [("ID", record.id)]
    if isinstance(record, OutcomeRecord):
        items += [
            ("Outcome", record.outcome),
            ("Agent", record.agent),
            ("Task type", record.task_type),
            ("Importance", str(record.importance)),
            ("Phase", record.phase),
            ("Plan", record.plan),
        ]
    elif isinstance(record, PatternRecord):
        items += [("Context", record.context), ("Reuse criteria", record.reuse_criteria), ("Source", record.source)]
    elif isinstance(record, ErrorRecord):
        fix = "" if record.fix.strip() == record.body.strip() else record.fix
        items += [("Fix", fix), ("Agent", record.agent), ("Resolved", record.resolved_label())]
    elif isinstance(record, PreferenceRecord):
        items += [
            ("Decision point", record.decision_point),
            ("Proposed", record.proposed),
            ("User choice", record.user_choice),
            ("Signal", record.signal),
            ("Agent", record.agent),
        ]
    items += [
        ("Branch", record.branch),
        ("Date", record.date),
        ("Tags", ", ".join(record.tags)),
        ("Superseded by", record.superseded_by),
    ]
    items += [(name.replace("_", " ").capitalize(), value) for name, value in record.extra.items()]
    return items


def memory_content(record: Record, warnings: list[str] | None = None) -> str:
    """The memory text of a record: headline, prose body, then ``Field: value`` lines (empty ones left out).

    The labels of that last block are for readers only: the ``bm25`` profile indexes the values, not the
    labels (``memory.analysis.searchable_text``), so a query for "branch" or "tags" does not match every record.
    A text over ``MAX_CONTENT_CHARS`` is cut there (the file keeps the record whole); ``warnings`` gets a
    line naming the file and line when given.
    """
    head = headline(record).strip() or f"{record.kind} {record.id or '(no ID)'}"
    parts = [head]
    body = record.body.strip()
    if body and body != head:
        parts += ["", body]
    lines = [f"{label}: {text}" for label, value in _details(record) if value and (text := value.strip())]
    if lines:
        parts += ["", *lines]
    text = _clean("\n".join(parts))
    if len(text) <= MAX_CONTENT_CHARS:
        return text
    if warnings is not None:
        warnings.append(
            f"{record.source_file} line {record.line}: record {record.id or '(no ID)'} is "
            f"{len(text):,} characters; its memory keeps the first {MAX_CONTENT_CHARS:,} "
            "(the file keeps it whole)"
        )
    return text[: MAX_CONTENT_CHARS - 1] + "…"


_ENCODE = compat.json_encoder()  # json.dumps(..., ensure_ascii=False), its C encoder built once


def columns_json(columns: dict[str, Any]) -> str:
    """The columns as stored in ``legion_records.columns`` (field order of the record class)."""
    return _ENCODE(columns)


def record_json(record: Record) -> str:
    """The record's Legion columns as stored in ``legion_records.columns``: its fields in class order
    (spec names; positions and recall-time scores left out), ``extra`` sorted by name, written exactly as
    ``json.dumps(..., ensure_ascii=False)`` writes that dict, but without building it."""
    values = vars(record)
    parts = []
    # mypy false positive: a class object is Hashable (type.__hash__), but mypy checks type[Record] against
    # Hashable with the instances' unbound __hash__; @cache wants Hashable arguments.
    for name in _column_names(type(record)):  # type: ignore[arg-type]
        value = values[name]
        if value.__class__ is str:
            parts.append(f'"{name}": {_encode_string(value)}')
        else:
            if name == "extra":
                value = dict(sorted(value.items()))
            parts.append(f'"{name}": {columns_json(value)}')
    return "{" + ", ".join(parts) + "}"


_encode_string = json.encoder.encode_basestring  # the encoder's own string function (ensure_ascii=False)


@cache
def _column_names(cls: type[Record]) -> tuple[str, ...]:
    """The JSON keys of a record class: its fields in order, less the ones that are not columns."""
    return tuple(spec.name for spec in dataclass_fields(cls) if spec.name not in _NOT_COLUMNS)


def content_hash(kind: str, columns_text: str) -> str:
    """SHA-256 of the mirror version, the record kind and :func:`columns_json` text."""
    return hashlib.sha256(f"{MIRROR_VERSION}\x00{kind}\x00{columns_text}".encode()).hexdigest()


def family_of(file_name: str, kind: str) -> str:
    if kind == OUTCOME and file_name in (OUTCOMES.file_name, ARCHIVE.file_name):
        return OUTCOMES_FAMILY
    return file_name


def record_identity(record: Record) -> str:
    """The record's ID, or a ``~``-prefixed fingerprint for a row without one (see module doc; a secret in it
    redacted)."""
    if record.id.strip():
        return record.id.strip()
    if isinstance(record, OutcomeRecord):
        parts = [record.date, record.plan, record.agent]
    elif isinstance(record, PreferenceRecord):
        parts = [record.date, record.decision_point, record.context]
    else:
        parts = [record.date, headline(record)]
    # the fingerprint is stored (identity, provenance detail): a secret in it is redacted, the same way every sync
    return "~" + secrets.redact("|".join(part.strip() for part in parts))[0]


def _clean(text: str) -> str:
    return text.replace("\x00", "")


def created_at(record: Record) -> datetime | None:
    return _midnight(record.date)


@lru_cache(maxsize=4096)
def _midnight(date_text: str) -> datetime | None:
    """Midnight of a record Date (dates repeat across rows, so parsing each once is enough)."""
    when = parse_record_date(date_text)
    return datetime.combine(when, time()) if when else None


# ------------------------------------------------------------------------ companion table
LINKED, MERGED = "linked", "merged"
FILE_ORIGIN, STORE_ORIGIN = "file", "store"


@dataclass(slots=True)
class MirrorRow:
    """One ``legion_records`` row, plus the linked memory's current kind and status (``None`` when the
    memory row is gone)."""

    memory_id: int
    project: str
    family: str
    source_file: str
    kind: str
    identity: str
    occurrence: int
    record_id: str
    content_hash: str
    columns: str
    archived: bool
    origin: str
    state: str
    sync_status: str
    sync_superseded_by: int
    synced_at: str
    memory_kind: str | None = None
    memory_status: str | None = None
    memory_superseded_by: int = 0

    @property
    def key(self) -> tuple[str, str, str]:
        return self.family, self.kind, self.identity

    @property
    def status_owned(self) -> bool:
        """True while the memory still has the status the sync gave it (nobody changed it in the store)."""
        return (self.memory_status, self.memory_superseded_by) == (self.sync_status, self.sync_superseded_by)

    def columns_dict(self) -> dict[str, Any]:
        try:
            value = json.loads(self.columns)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "project": self.project,
            "source_file": self.source_file,
            "record_id": self.record_id,
            "occurrence": self.occurrence,
            "kind": self.kind,
            "identity": self.identity,
            "archived": self.archived,
            "origin": self.origin,
            "state": self.state,
            "content_hash": self.content_hash,
            "columns": self.columns_dict(),
            "synced_at": self.synced_at,
        }


def load_rows(db: peewee.Database, project: str) -> list[MirrorRow]:
    """Every row of ``project`` with its memory's kind and status (a vanished memory gives None).

    ``columns`` is left empty here (planning never needs it); :func:`row_for_memory` reads it."""
    shared: dict[Any, Any] = {}  # one object per repeated value (project, file, kind, status, time, ...)
    rows = []
    for fetched in LegionRecords(db).each_for_project(project):  # columns, then the memory's three
        values = list(fetched)
        for position in _REPEATED:
            values[position] = shared.setdefault(values[position], values[position])
        row = MirrorRow(*values)
        row.archived = bool(row.archived)
        row.memory_superseded_by = int(row.memory_superseded_by or 0)
        rows.append(row)
    return rows


_REPEATED = tuple(
    position
    for position, spec in enumerate(dataclass_fields(MirrorRow))
    if spec.name not in ("memory_id", "identity", "occurrence", "record_id", "content_hash", "memory_superseded_by")
)
"""Positions of the ``MirrorRow`` fields whose values repeat from row to row."""


def row_for_memory(db: peewee.Database, memory_id: int) -> MirrorRow | None:
    """The companion row of one memory (for showing its Legion columns), or None."""
    values = LegionRecords(db).for_memory(memory_id)
    if values is None:
        return None
    row = MirrorRow(*values)
    row.archived = bool(row.archived)
    return row


def insert_rows(db: peewee.Database, rows: list[tuple]) -> None:
    """Insert rows, each a plain tuple of the table's columns in ``LEGION_RECORD_COLUMNS`` order
    (``archived`` as 0 / 1).

    Plain tuples, not namedtuples: sqlite3 reads a tuple subclass item by item through ``__getitem__``."""
    LegionRecords(db).insert(rows)


def update_row(db: peewee.Database, memory_id: int, **fields: Any) -> None:
    """Set columns of the companion row of ``memory_id``."""
    LegionRecords(db).update(memory_id, {name: _value(value) for name, value in fields.items()})


def move_row(db: peewee.Database, old_memory_id: int, new_memory_id: int) -> None:
    """Point a companion row at another memory (a record whose kind changed got a new memory)."""
    LegionRecords(db).move(old_memory_id, new_memory_id)


def delete_rows(db: peewee.Database, memory_ids: list[int]) -> None:
    """Drop bookkeeping rows whose memory no longer exists (never memories themselves)."""
    LegionRecords(db).delete(memory_ids)


def _value(value: Any) -> Any:
    return int(value) if isinstance(value, bool) else value
