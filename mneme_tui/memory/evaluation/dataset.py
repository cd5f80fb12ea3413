"""The labelled recall dataset: memories, questions with their answer keys, validation and loading.

Format (JSON, UTF-8; the shipped example is ``tests/data/recall_eval.json``)::

    {
      "description": "free text",
      "now": "2026-11-29T12:00:00",          # naive UTC; created_at of a memory = now - age_days
      "memories": [
        {"key": "m001", "repo": "payments-api", "kind": "pitfall", "topic": "pitfall:src/store/db.py",
         "content": "...", "age_days": 34, "access_count": 6, "status": "active"}   # status optional
      ],
      "questions": [
        {"id": "q001", "query": "...", "repo": "payments-api", "cross_repo": false,
         "answers": ["m025"], "category": "lexical"}
      ]
    }

``kind`` is any of the spec's kinds, ``status`` one of active/superseded/tombstoned (default active),
``category`` one of :data:`CATEGORIES`. Any key in ``answers`` counts as a correct hit; every answer must
be an active memory the question can see (its repo or ``global``, or any repo when ``cross_repo``).
Bad content raises ``ERR_VALIDATION_FAILED`` naming the record; an unreadable file raises ``ERR_IO``. Limits:
a file of at most MAX_DATASET_BYTES, ``now`` in 1900-9998, ``age_days`` at most MAX_AGE_DAYS, ``access_count``
at most MAX_ACCESS_COUNT, integers of at most 20 digits, valid UTF-8 strings.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from mneme_tui.config import EARLIEST_NOW, GLOBAL_REPO, LATEST_NOW
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.kinds import ACTIVE, ALL_KINDS, STATUSES
from mneme_tui.validation import check_document, decode_utf8, json_int, read_file

KINDS = frozenset(ALL_KINDS)
MAX_DATASET_BYTES = 20_000_000
MAX_AGE_DAYS = 36_500
"""A memory is at most 100 years old: ``now - age_days`` stays a valid date for any ``now`` from 1900."""
MAX_ACCESS_COUNT = 1_000_000_000
CATEGORIES = ("lexical", "paraphrase", "identifier", "stopword", "near-duplicate")


@dataclass(frozen=True)
class Memory:
    """One labelled memory; ``created_at`` is ``Dataset.now - age_days``."""

    key: str
    repo: str
    kind: str
    topic: str
    content: str
    age_days: float
    access_count: int
    status: str = ACTIVE


@dataclass(frozen=True)
class Question:
    """A query asked from ``repo``; any key in ``answers`` counts as a correct hit."""

    id: str
    query: str
    repo: str
    cross_repo: bool
    answers: tuple[str, ...]
    category: str


@dataclass(frozen=True)
class Dataset:
    description: str
    now: datetime
    memories: tuple[Memory, ...]
    questions: tuple[Question, ...]
    _by_key: dict[str, Memory] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_key.update({memory.key: memory for memory in self.memories})

    def memory(self, key: str) -> Memory:
        return self._by_key[key]

    def created_at(self, memory: Memory) -> datetime:
        return self.now - timedelta(days=memory.age_days)

    def candidates(self, question: Question) -> list[Memory]:
        """The memories a recall for ``question`` may return, in key order.

        Active only; scoped to the question's repo plus ``global`` unless ``cross_repo`` (spec TC-MEM-02/03).
        """
        return sorted(
            (
                memory
                for memory in self.memories
                if memory.status == ACTIVE and (question.cross_repo or memory.repo in (question.repo, GLOBAL_REPO))
            ),
            key=lambda memory: memory.key,
        )


def _fail(source: str, message: str) -> MnemeError:
    return MnemeError(ERR_VALIDATION_FAILED, f"{source}: {message}")


def _field(obj: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str, source: str) -> Any:
    if name not in obj:
        raise _fail(source, f"{where} is missing {name!r}")
    value = obj[name]
    # bool is an int subclass: never accept it where a number is wanted
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise _fail(source, f"{where} field {name!r} has the wrong type ({type(value).__name__})")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _text(obj: Mapping[str, Any], name: str, where: str, source: str) -> str:
    value = _field(obj, name, str, where, source)
    if not value.strip():
        raise _fail(source, f"{where} field {name!r} is empty")
    return value


def parse_dataset(data: Any, *, source: str = "dataset") -> Dataset:
    """Validate a decoded JSON document and build a :class:`Dataset`; raises ERR_VALIDATION_FAILED."""
    if not isinstance(data, Mapping):
        raise _fail(source, "top level must be a JSON object")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise _fail(source, "'description' must be a string")
    now = _parse_now(data, source)

    raw_memories = _field(data, "memories", list, "dataset", source)
    raw_questions = _field(data, "questions", list, "dataset", source)
    if not raw_memories:
        raise _fail(source, "'memories' is empty")
    if not raw_questions:
        raise _fail(source, "'questions' is empty")

    seen_keys: set[str] = set()
    memories = [_parse_memory(raw, index, seen_keys, source) for index, raw in enumerate(raw_memories)]
    by_key = {memory.key: memory for memory in memories}
    seen_ids: set[str] = set()
    questions = [_parse_question(raw, index, seen_ids, by_key, source) for index, raw in enumerate(raw_questions)]
    return Dataset(description=description, now=now, memories=tuple(memories), questions=tuple(questions))


def _parse_now(data: Mapping[str, Any], source: str) -> datetime:
    """The dataset's fixed clock: a naive UTC ISO-8601 time within the supported years."""
    now_text = _text(data, "now", "dataset", source)
    try:
        now = datetime.fromisoformat(now_text.replace("Z", "+00:00"))
    except ValueError:
        raise _fail(source, f"'now' is not an ISO-8601 time: {now_text!r}") from None
    if now.tzinfo is not None:
        raise _fail(source, "'now' must be a naive UTC time (no offset)")
    if not EARLIEST_NOW <= now < LATEST_NOW:
        raise _fail(source, f"'now' {now_text!r} is outside {EARLIEST_NOW.year}-{LATEST_NOW.year - 1}")
    return now


def _entry_name(raw: Any, index: int, noun: str, id_field: str, seen: set[str], source: str) -> tuple[str, str]:
    """Entry ``index`` (a ``noun``) must be an object with a new ``id_field``; returns it and how errors name the
    entry."""
    if not isinstance(raw, Mapping):
        raise _fail(source, f"{noun} #{index + 1} is not an object")
    name = _text(raw, id_field, f"{noun} #{index + 1}", source)
    if name in seen:
        raise _fail(source, f"duplicate {noun} {id_field} {name!r}")
    seen.add(name)
    return name, f"{noun} {name!r}"


def _parse_memory(raw: Any, index: int, seen_keys: set[str], source: str) -> Memory:
    """Memory number ``index`` of the dataset, checked (its key must not be in ``seen_keys``, which it joins)."""
    key, where = _entry_name(raw, index, "memory", "key", seen_keys, source)
    kind = _text(raw, "kind", where, source)
    if kind not in KINDS:
        raise _fail(source, f"{where} has unknown kind {kind!r}")
    status = raw.get("status", ACTIVE)
    if status not in STATUSES:
        raise _fail(source, f"{where} has unknown status {status!r}")
    age_days = _field(raw, "age_days", (int, float), where, source)
    if not (math.isfinite(age_days) and 0 <= age_days <= MAX_AGE_DAYS):
        raise _fail(
            source,
            f"{where} has a negative, non-finite or too large age_days {age_days!r} (limit: 0 to {MAX_AGE_DAYS:,})",
        )
    access_count = _field(raw, "access_count", int, where, source)
    if not 0 <= access_count <= MAX_ACCESS_COUNT:
        raise _fail(
            source,
            f"{where} has a negative or too large access_count {access_count} (limit: 0 to {MAX_ACCESS_COUNT:,})",
        )
    return Memory(
        key=key,
        repo=_text(raw, "repo", where, source),
        kind=kind,
        topic=_text(raw, "topic", where, source),
        content=_text(raw, "content", where, source),
        age_days=float(age_days),
        access_count=access_count,
        status=status,
    )


def _parse_question(raw: Any, index: int, seen_ids: set[str], by_key: dict[str, Memory], source: str) -> Question:
    """Question number ``index``, checked: a new id, a known category, answers that are active memories in scope."""
    qid, where = _entry_name(raw, index, "question", "id", seen_ids, source)
    category = _text(raw, "category", where, source)
    if category not in CATEGORIES:
        raise _fail(source, f"{where} has unknown category {category!r}")
    answers = _field(raw, "answers", list, where, source)
    if not answers or not all(isinstance(answer, str) for answer in answers):
        raise _fail(source, f"{where} needs a non-empty list of answer keys")
    if len(set(answers)) != len(answers):
        raise _fail(source, f"{where} lists an answer twice")
    question = Question(
        id=qid,
        query=_text(raw, "query", where, source),
        repo=_text(raw, "repo", where, source),
        cross_repo=_field(raw, "cross_repo", bool, where, source),
        answers=tuple(answers),
        category=category,
    )
    for answer in answers:
        memory = by_key.get(answer)
        if memory is None:
            raise _fail(source, f"{where} answer {answer!r} is not a memory key")
        if memory.status != ACTIVE:
            raise _fail(source, f"{where} answer {answer!r} is not active")
        if not question.cross_repo and memory.repo not in (question.repo, GLOBAL_REPO):
            raise _fail(source, f"{where} answer {answer!r} is outside the question's scope")
    return question


def load_dataset(path: str | os.PathLike[str]) -> Dataset:
    """Read and validate a dataset file; bad content raises ERR_VALIDATION_FAILED, unreadable files ERR_IO."""
    path = Path(path)
    text = decode_utf8(read_file(path, MAX_DATASET_BYTES, "dataset", "dataset size"), f"dataset {path}")
    try:
        data = json.loads(text, parse_int=json_int)
    except json.JSONDecodeError as exc:
        raise _fail(str(path), f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # a number past the digit limit
        raise _fail(str(path), str(exc)) from None
    except RecursionError:
        raise _fail(str(path), "nested too deeply") from None
    check_document(data, f"a string in dataset {path}")
    return parse_dataset(data, source=str(path))


def default_dataset_path() -> Path:
    """The dataset shipped with the source tree (``tests/data/recall_eval.json``)."""
    return Path(__file__).resolve().parents[3] / "tests" / "data" / "recall_eval.json"
