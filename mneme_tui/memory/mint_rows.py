"""The checks a new memory passes before it is minted: its content, and the provenance that may mint its
kind; and the validated row (``NewRow``) that ``StoreWrites`` inserts."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from typing import Any

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory import kinds as K
from mneme_tui.memory.records import LEGION_IMPORT, MINT_SOURCES, SAMPLE_SOURCES, TASK_SYNC, Provenance
from mneme_tui.validation import MAX_CONTENT_CHARS

NewRow = namedtuple(
    "NewRow",
    (
        "repo_id",
        "kind",
        "topic",
        "content",
        "task_id",
        "created_at",
        "status",
        "superseded_by",
        "access_count",
        "provenance",
    ),
)
"""A validated memory to insert (``created_at`` a datetime; the embedding is computed in bulk)."""


@dataclass(slots=True)
class PreparedMint:
    """Validated memories and their embeddings (``to_blob`` bytes, in the same order), ready to insert."""

    rows: list[NewRow]
    blobs: list[bytes]


def checked_content(content: Any) -> str:
    """``content`` if it is non-empty text of at most ``MAX_CONTENT_CHARS`` without NUL bytes."""
    if not isinstance(content, str) or not content.strip():
        raise MnemeError(ERR_VALIDATION_FAILED, "memory content cannot be empty")
    if len(content) > MAX_CONTENT_CHARS:
        raise MnemeError(ERR_VALIDATION_FAILED, f"memory content is longer than {MAX_CONTENT_CHARS} characters")
    if "\x00" in content:
        raise MnemeError(ERR_VALIDATION_FAILED, "memory content cannot contain NUL bytes")
    return content


def checked_provenance(kind: str, provenance: Any) -> Provenance:
    """``provenance`` if it may mint ``kind`` (spec 3.1: statutory kinds strictly by task sync; imported
    kinds only by the Legion import), else ERR_VALIDATION_FAILED."""
    if not isinstance(provenance, Provenance) or provenance.source not in MINT_SOURCES:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"a new memory must say where it came from (provenance source one of {', '.join(MINT_SOURCES)})",
        )
    source = provenance.source
    if kind in K.STATUTORY_KINDS and source not in (TASK_SYNC, *SAMPLE_SOURCES):
        raise MnemeError(
            ERR_VALIDATION_FAILED, f"kind {kind!r} is statutory: only a verified task sync mints it (not {source})"
        )
    if kind in K.IMPORTED_KINDS and source not in (LEGION_IMPORT, *SAMPLE_SOURCES):
        raise MnemeError(
            ERR_VALIDATION_FAILED, f"kind {kind!r} is imported: only the Legion import writes it (not {source})"
        )
    return provenance
