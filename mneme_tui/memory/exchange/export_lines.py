"""One exported memory: what a JSONL line holds, written from the store and parsed back (every field
checked, a bad line named by its number)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from mneme_tui.config import parse_timestamp
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.records import AuditEntry, Memory, Provenance

FORMAT = "mneme-memory"
VERSION = 1
TEXT_FIELDS = ("repo_id", "kind", "topic", "content", "task_id", "status")


@dataclass(frozen=True)
class ExportedMemory:
    """A memory as exported: its own fields, who minted it, its history and the tasks that reinforced it.
    ``id`` and ``superseded_by`` are the exporting store's ids (an import gives new ones)."""

    memory: Memory
    created_by: str
    history: tuple[AuditEntry, ...]
    accessed_by: tuple[tuple[str, datetime], ...]
    line: int = 0
    """The line of the file it was read from (0: read from a store)."""

    @property
    def key(self) -> tuple[str, ...]:
        """What makes two memories the same one (an import skips a memory the store already holds)."""
        return memory_key(self.memory)

    def to_json(self) -> dict[str, Any]:
        """The JSONL line's object (docs/export.md)."""
        memory = self.memory
        return {
            "format": FORMAT,
            "version": VERSION,
            "id": memory.id,
            **{name: getattr(memory, name) for name in TEXT_FIELDS},
            "created_at": stamp(memory.created_at),
            "superseded_by": memory.superseded_by,
            "access_count": memory.access_count,
            "provenance": {
                "source": memory.provenance.source,
                "detail": memory.provenance.detail,
                "actor": self.created_by,
            },
            "history": [
                {
                    "from_status": entry.from_status,
                    "to_status": entry.to_status,
                    "at": stamp(entry.at),
                    "reason": entry.reason,
                    "actor": entry.actor,
                }
                for entry in self.history
            ],
            "accessed_by": [{"task_id": task, "at": stamp(at)} for task, at in self.accessed_by],
        }


def memory_key(memory: Memory) -> tuple[str, ...]:
    return (memory.repo_id, memory.kind, memory.topic, memory.content, memory.task_id, stamp(memory.created_at))


def stamp(moment: datetime) -> str:
    """A naive-UTC time as ISO-8601 with ``Z``, to the microsecond when it has one (lossless)."""
    return moment.isoformat() + "Z"


def to_jsonl(records: Iterable[ExportedMemory]) -> str:
    """One compact JSON object per line."""
    return "".join(json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n" for record in records)


def parse_jsonl(text: str, source: str) -> list[ExportedMemory]:
    """Every line of an export, checked; ERR_VALIDATION_FAILED naming ``source`` and the line number at the
    first bad one (blank lines are skipped)."""
    parsed: list[ExportedMemory] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            parsed.append(replace(_record(json.loads(line)), line=number))
        except (ValueError, TypeError, KeyError) as exc:
            raise MnemeError(ERR_VALIDATION_FAILED, f"{source} line {number}: {_reason(exc)}") from None
        except MnemeError as exc:
            raise MnemeError(ERR_VALIDATION_FAILED, f"{source} line {number}: {exc.message}") from None
    ids = [record.memory.id for record in parsed]
    if len(set(ids)) != len(ids):
        raise MnemeError(ERR_VALIDATION_FAILED, f"{source}: an id appears on two lines")
    return parsed


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not a JSON object ({exc.msg} at column {exc.colno})"
    if isinstance(exc, KeyError):
        return f"missing field {exc.args[0]!r}"
    return str(exc)


def _record(data: Any) -> ExportedMemory:
    """An ExportedMemory from one parsed line (ValueError/TypeError/KeyError when it is not one)."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ValueError(f"not a {FORMAT} version {VERSION} line")
    provenance = _object(data["provenance"], "provenance")
    memory = Memory(
        id=_integer(data["id"], "id", 1),
        **{name: _text(data[name], name) for name in TEXT_FIELDS},
        created_at=_time(data["created_at"], "created_at"),
        superseded_by=_integer(data["superseded_by"], "superseded_by", 0),
        access_count=_integer(data["access_count"], "access_count", 0),
        provenance=Provenance(
            _text(provenance["source"], "provenance.source"), _text(provenance["detail"], "provenance.detail")
        ),
    )
    history = tuple(
        AuditEntry(
            memory.id,
            _text(entry["from_status"], "history.from_status"),
            _text(entry["to_status"], "history.to_status"),
            _time(entry["at"], "history.at"),
            _text(entry["reason"], "history.reason"),
            _text(entry["actor"], "history.actor"),
        )
        for entry in _objects(data["history"], "history")
    )
    accessed = tuple(
        (_text(entry["task_id"], "accessed_by.task_id"), _time(entry["at"], "accessed_by.at"))
        for entry in _objects(data["accessed_by"], "accessed_by")
    )
    return ExportedMemory(memory, _text(provenance["actor"], "provenance.actor"), history, accessed)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be text")
    return value


def _integer(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise TypeError(f"{name} must be an integer ≥ {minimum}")
    return value


def _time(value: Any, name: str) -> datetime:
    return parse_timestamp(_text(value, name), source=name)


def _object(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be an object")
    return value


def _objects(value: Any, name: str) -> Sequence[dict[str, Any]]:
    if not isinstance(value, list):
        raise TypeError(f"{name} must be a list")
    return [_object(item, name) for item in value]
