"""A quick speed check (not a test): how long parsing a 10,000-row OUTCOMES.md takes.

Run ``python -m mneme_tui.legion.bench``; the target is well under one second.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from mneme_tui.legion.cells import join_row
from mneme_tui.legion.schemas import OUTCOMES
from mneme_tui.legion.storage import load_document


def synthetic_outcomes(rows: int) -> str:
    """An OUTCOMES.md with ``rows`` canonical rows (a few with pipes and backslashes in summaries)."""
    lines = [OUTCOMES.template]
    for n in range(1, rows + 1):
        summary = f"Plan {n % 97:02d} done | retried once \\ see log" if n % 10 == 0 else f"Plan {n} complete"
        values = [
            f"O-{n:03d}", f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}", "main", str(n % 9 + 1), f"{n % 9 + 1:02d}-01",
            f"agent-{n % 7}", ("frontend", "backend", "workflow")[n % 3], ("success", "partial", "failed")[n % 3],
            str(n % 5 + 1), "bench, synthetic", summary,
        ]
        lines.append(join_row(values) + "\n")
    return "".join(lines)


def bench_import(rows: int = 10_000) -> dict[str, Any]:
    """Write a ``rows``-row OUTCOMES.md to a temp folder and time reading + parsing it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "OUTCOMES.md"
        path.write_text(synthetic_outcomes(rows), encoding="utf-8")
        started = time.perf_counter()
        document = load_document(path)
        elapsed = time.perf_counter() - started
        size = path.stat().st_size
    return {
        "rows": rows,
        "bytes": size,
        "records": len(document.records),
        "parse_seconds": round(elapsed, 4),
        "target_seconds": 1.0,
        "within_target": elapsed < 1.0,
    }


if __name__ == "__main__":  # pragma: no cover
    print(bench_import())
