"""Legion rows that hold a secret are imported redacted; the person fixes the file (mneme never rewrites a
person's row unasked: ``mneme purge --markdown`` is the asking)."""

from __future__ import annotations

import dataclasses
from typing import Any

from mneme_tui.legion.markdown.legion_records import Record
from mneme_tui.memory import secrets

_PLACE_FIELDS = ("source_file", "line", "occurrence", "layout")
"""Where the record sits: not text of the record."""
_TEXT_FIELDS: dict[type[Record], tuple[str, ...]] = {}


def redacted_records(records: list[Record]) -> list[tuple[Record, list[secrets.Finding]]]:
    """:func:`redacted_record` of each record, their texts screened as one batch first (``secrets.prescreen``)."""
    joined = ["\n".join(_texts(record)) for record in records]
    secrets.prescreen(joined)
    return [_redacted(record, text) for record, text in zip(records, joined, strict=True)]


def prescreen_records(records: list[Record]) -> None:
    """Screen the texts of ``records`` as one batch (``secrets.prescreen``), so :func:`redacted_record` of each
    clean one answers at once; nothing else changes."""
    secrets.prescreen("\n".join(_texts(record)) for record in records)


def redacted_record(record: Record) -> tuple[Record, list[secrets.Finding]]:
    """``record`` with ``<private>`` spans removed and each secret in its text fields replaced by
    ``[REDACTED:<type>]`` (the same record when nothing changed), and what was replaced."""
    return _redacted(record, "\n".join(_texts(record)))


def _redacted(record: Record, joined: str) -> tuple[Record, list[secrets.Finding]]:
    """:func:`redacted_record`, given the record's texts joined by newlines."""
    if joined == secrets.strip_private(joined) and not secrets.find_secrets(joined):  # the common case: one scan
        return record, []
    changes: dict[str, Any] = {}
    found: list[secrets.Finding] = []

    def clean(text: str) -> str:
        cleaned, findings = secrets.redact_findings(secrets.strip_private(text))
        found.extend(findings)
        return cleaned

    for name in _text_fields(type(record)):
        value = getattr(record, name)
        if isinstance(value, str):
            cleaned: Any = clean(value)
        elif isinstance(value, list):
            cleaned = [clean(item) if isinstance(item, str) else item for item in value]
        elif isinstance(value, dict):
            cleaned = {key: clean(item) if isinstance(item, str) else item for key, item in value.items()}
        else:
            continue
        if cleaned != value:
            changes[name] = cleaned
    return (dataclasses.replace(record, **changes) if changes else record), found


def _texts(record: Record) -> list[str]:
    """Every text of the record's fields (list items and dict values included)."""
    texts: list[str] = []
    values = vars(record)
    for name in _text_fields(type(record)):
        value = values[name]
        if value.__class__ is str or isinstance(value, str):  # (the exact type first: the common case, faster)
            texts.append(value)
        elif isinstance(value, list | dict):
            texts += [item for item in (value.values() if isinstance(value, dict) else value) if isinstance(item, str)]
    return texts


def _text_fields(kind: type[Record]) -> tuple[str, ...]:
    """The fields of a record class that may hold its text (not where it sits)."""
    names = _TEXT_FIELDS.get(kind)
    if names is None:
        names = _TEXT_FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind) if f.name not in _PLACE_FIELDS)
    return names


def redaction_warning(record: Record, findings: list[secrets.Finding]) -> str:
    """The sync summary's line for a row imported redacted: file, line and what (never the secret)."""
    what = ", ".join(dict.fromkeys(f.description for f in findings))
    where = f"{record.source_file} line {record.line}" if record.line else record.source_file
    return (
        f"{where}: {what} imported as [REDACTED:…]; remove it from the file "
        f"(or `mneme purge ID --markdown` after the sync)"
    )
