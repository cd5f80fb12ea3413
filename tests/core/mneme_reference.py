"""An independent reference for the Mneme core tests, written from the spec text (§3, §4) and the
documented projection in ``vectors.py`` only: tokenizer, vectors, and a per-row ranking loop."""

from __future__ import annotations

import hashlib
import math
import re
import sqlite3
import struct
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

NOW = datetime(2026, 11, 29, 12, 0, 0)  # tests/conftest.py fixes MNEME_NOW to this
SPEC_LAMBDA = {
    "axiom": 0.005,
    "pattern": 0.006,
    "pitfall": 0.008,
    "reflection": 0.02,
    "release": 0.05,
    "task": 0.05,
    "commit": 0.05,
}


def raw_rows(path: Path | str, where: str = "1=1", params: tuple = ()) -> list[Any]:
    """Rows of ``memories`` read with plain sqlite3, or plain psycopg2 for a ``postgresql://`` URL (not
    through the Store); PostgreSQL's values come back as SQLite gives them (bytes, timestamp text)."""
    if isinstance(path, str) and path.startswith("postgresql://"):
        return _raw_pg_rows(path, where, params)
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    try:
        return connection.execute(f"SELECT * FROM memories WHERE {where} ORDER BY id", params).fetchall()
    finally:
        connection.close()


def _raw_pg_rows(url: str, where: str, params: tuple) -> list[dict[str, Any]]:
    import psycopg2
    import psycopg2.extras

    connection = psycopg2.connect(url)
    try:
        with connection.cursor(cursor_factory=psycopg2.extras.RealDictCursor) as cursor:
            cursor.execute(f"SELECT * FROM memories WHERE {where.replace('?', '%s')} ORDER BY id", params)
            rows = [dict(row) for row in cursor.fetchall()]
    finally:
        connection.close()
    for row in rows:
        row["embedding"] = None if row["embedding"] is None else bytes(row["embedding"])
        row["created_at"] = row["created_at"].isoformat(sep=" ")
    return rows


_WORD = re.compile(r"[^\W_]+")


def ref_tokens(text: str) -> list[str]:
    """Lowercase Unicode letter/digit runs (the documented tokenizer)."""
    return _WORD.findall(text.lower())


def ref_token_projection(token: str) -> list[float]:
    """(nibble − 7.5) / 7.5 of the SHA-256 of the token: high nibble at even dims, low nibble at odd."""
    digest = hashlib.sha256(token.encode("utf-8")).digest()
    values = []
    for byte in digest:
        values.append(((byte >> 4) - 7.5) / 7.5)
        values.append(((byte & 0x0F) - 7.5) / 7.5)
    return values


def ref_embed(text: str) -> list[float]:
    """Sum of token projections, normalised to unit length; the zero vector when there is nothing."""
    total = [0.0] * 64
    for token in ref_tokens(text):
        for i, value in enumerate(ref_token_projection(token)):
            total[i] += value
    norm = math.sqrt(sum(v * v for v in total))
    if norm == 0.0:
        return [0.0] * 64
    return [v / norm for v in total]


def decode_blob(blob: bytes) -> list[float]:
    assert isinstance(blob, bytes) and len(blob) == 256
    return list(struct.unpack("<64f", blob))


def dot(a, b) -> float:
    return sum(x * y for x, y in zip(a, b))


@dataclass
class RefRow:
    id: int
    repo_id: str
    kind: str
    content: str
    vector: list[float]
    created_at: datetime
    status: str
    access_count: int


def ref_load(path: Path) -> list[RefRow]:
    """Every row of the database, read with plain sqlite3."""
    rows = []
    for row in raw_rows(path):
        rows.append(
            RefRow(
                id=row["id"],
                repo_id=row["repo_id"] or "",
                kind=row["kind"],
                content=row["content"],
                vector=decode_blob(row["embedding"]),
                created_at=datetime.fromisoformat(row["created_at"]),
                status=row["status"],
                access_count=row["access_count"],
            )
        )
    return rows


def ref_recall(
    rows: list[RefRow],
    query: str,
    *,
    repo: str,
    cross_repo: bool = False,
    kind: str | None = None,
    limit: int = 5,
    lambdas: dict[str, float],
    now: datetime = NOW,
) -> list[tuple[int, float, dict[str, float]]]:
    """A straightforward per-row reading of spec §4.2 (as documented in ranking.py): [(id, score, parts)]."""
    query_vector = ref_embed(query)
    query_tokens = set(ref_tokens(query))
    scored = []
    for row in rows:
        if row.status != "active" or (kind is not None and row.kind != kind):
            continue
        local = not cross_repo and row.repo_id == repo
        if not cross_repo and not (local or row.repo_id == "global"):
            continue
        cosine = dot(row.vector, query_vector)
        lexical = len(query_tokens & set(ref_tokens(row.content))) / len(query_tokens) if query_tokens else 0.0
        age_days = max(0.0, (now - row.created_at).total_seconds() / 86400)
        decay = math.exp(-lambdas[row.kind] * age_days)
        reinforcement = 1 + 0.05 * min(row.access_count, 10)
        locality = 1.25 if local else 1.0
        score = (0.75 * cosine + 0.25 * lexical) * decay * reinforcement * locality
        if score <= 0:
            continue
        capped = not cross_repo and kind is None and not local and row.repo_id == "global" and row.kind == "axiom"
        parts = dict(cosine=cosine, lexical=lexical, decay=decay, reinforcement=reinforcement, locality=locality)
        scored.append((score, row.id, capped, parts))
    scored.sort(key=lambda item: (-item[0], item[1]))
    if cross_repo or kind is not None:
        chosen = scored[:limit]
    else:
        others = [item for item in scored if not item[2]][:limit]
        axioms = [item for item in scored if item[2]]
        slots = max(1, limit // 3)
        chosen = sorted(others + axioms[:slots], key=lambda item: (-item[0], item[1]))[:limit]
        if len(chosen) < limit:
            chosen += axioms[slots : slots + limit - len(chosen)]
        chosen.sort(key=lambda item: (-item[0], item[1]))
    return [(item[1], item[0], item[3]) for item in chosen]
