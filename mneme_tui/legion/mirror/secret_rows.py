"""Legion rows that hold a secret are imported redacted; the person fixes the file (mneme never rewrites a
person's row unasked: ``mneme purge --markdown`` is the asking)."""

from __future__ import annotations

import dataclasses
from typing import Any

from mneme_tui.legion.markdown.legion_records import Record
from mneme_tui.memory import secrets

_PLACE_FIELDS = ("source_file", "line", "occurrence", "layout")
"""Where the record sits: not text of the record."""


def redacted_record(record: Record) -> tuple[Record, list[secrets.Finding]]:
    """``record`` with ``<private>`` spans removed and each secret in its text fields replaced by
    ``[REDACTED:<type>]`` (the same record when nothing changed), and what was replaced."""
    texts = _texts(record)
    joined = "\n".join(texts)
    if joined == secrets.strip_private(joined) and not secrets.find_secrets(joined):  # the common case: one scan
        return record, []
    changes: dict[str, Any] = {}
    found: list[secrets.Finding] = []

    def clean(text: str) -> str:
        cleaned, findings = secrets.redact_findings(secrets.strip_private(text))
        found.extend(findings)
        return cleaned

    for field in dataclasses.fields(record):
        if field.name in _PLACE_FIELDS:
            continue
        value = getattr(record, field.name)
        if isinstance(value, str):
            cleaned: Any = clean(value)
        elif isinstance(value, list):
            cleaned = [clean(item) if isinstance(item, str) else item for item in value]
        elif isinstance(value, dict):
            cleaned = {key: clean(item) if isinstance(item, str) else item for key, item in value.items()}
        else:
            continue
        if cleaned != value:
            changes[field.name] = cleaned
    return (dataclasses.replace(record, **changes) if changes else record), found


def _texts(record: Record) -> list[str]:
    """Every text of the record's fields (list items and dict values included)."""
    texts: list[str] = []
    for field in dataclasses.fields(record):
        value = getattr(record, field.name)
        if field.name in _PLACE_FIELDS:
            continue
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list | dict):
            texts += [item for item in (value.values() if isinstance(value, dict) else value) if isinstance(item, str)]
    return texts


def redaction_warning(record: Record, findings: list[secrets.Finding]) -> str:
    """The sync summary's line for a row imported redacted: file, line and what (never the secret)."""
    what = ", ".join(dict.fromkeys(f.description for f in findings))
    where = f"{record.source_file} line {record.line}" if record.line else record.source_file
    return (f"{where}: {what} imported as [REDACTED:…]; remove it from the file "
            f"(or `mneme purge ID --markdown` after the sync)")
