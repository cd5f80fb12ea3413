"""Phase-summary compaction: frontmatter, kept facts, dropped output, reference check, originals untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme_tui.errors import MnemeError
from mneme_tui.legion.compaction import compact_phase, file_paths, requirement_ids

LOG = "\n".join(f"PASSED tests/test_mod.py::test_case_{n} [{n}%]" for n in range(60))

SUMMARY_1 = f"""---
phase: 05-memory-layer
plan: 01
requirements-completed: [REQ-12, AUTH-03]
key-decisions:
  - Chose flock over lockfile polling
agent: engineering-backend-architect
---

# Phase 5 Plan 01: Markdown codec Summary

## Accomplishments
- Cell codec with escapes for pipes and newlines
- Lossless parser for fragmented tables

## Files Created/Modified
- `mneme_tui/legion/cells.py` - cell codec
- `mneme_tui/legion/document.py` - parser

## Decisions Made
- Highest ID + 1 instead of count + 1 (ids survive prune)

## Verification
- pytest tests/legion: 40 passed
- ruff: PASS

```
{LOG}
```

## Execution Log
Step 1: read the spec. Step 2: wrote code touching scripts/gen_fixture.py and FR-1 notes.
"""

SUMMARY_2 = """# Phase 5 Plan 02: Prune Summary

**Prune moves rows to ARCHIVE.md with restore on failure**

## What Was Built
- Prune plan and apply

## Key Files
| File | Change |
|------|--------|
| mneme_tui/legion/prune.py | new module |

## Requirements
- REQ-13: prune archives old rows

## Self-Check: PASSED

## Agents
- testing-qa-verification-specialist

## Performance
- Duration: 12 min
"""


@pytest.fixture
def phase_dir(tmp_path: Path) -> Path:
    folder = tmp_path / ".planning/phases/05-memory-layer"
    folder.mkdir(parents=True)
    (folder / "05-01-SUMMARY.md").write_text(SUMMARY_1, encoding="utf-8")
    (folder / "05-02-SUMMARY.md").write_text(SUMMARY_2, encoding="utf-8")
    (folder / "05-01-PLAN.md").write_text("not a summary\n", encoding="utf-8")
    return folder


def test_extractors() -> None:
    assert requirement_ids("REQ-12, AUTH-03 and FR-1; not UTF-8 or O-001") == ["REQ-12", "AUTH-03", "FR-1"]
    assert file_paths("see `src/app.py`, docs/a.md. and https://x.io/a/b.py, 21/21 passed, `README.md`") == [
        "src/app.py", "docs/a.md", "README.md"]


def test_compact_phase(phase_dir: Path) -> None:
    originals = {p.name: p.read_bytes() for p in phase_dir.iterdir()}
    result = compact_phase(phase_dir)
    target = phase_dir / "05-COMPACTED.md"
    text = target.read_text(encoding="utf-8")
    assert result.path == str(target)
    assert text.startswith(
        "---\nphase: 05-memory-layer\ncompacted: 2026-10-15\n"
        "original_summaries: [05-01-SUMMARY.md, 05-02-SUMMARY.md]\n"
        "requirements_satisfied: [REQ-12, AUTH-03, REQ-13]\n---\n\n# Phase 5: memory-layer — Compacted Summary\n"
    )
    for heading in ("## Deliverables", "## Decisions", "## Files Modified", "## Verification", "## Agents"):
        assert heading in text
    for kept in ("Cell codec with escapes", "Chose flock over lockfile polling", "Highest ID + 1",
                 "`mneme_tui/legion/cells.py`", "`mneme_tui/legion/prune.py`", "40 passed", "Self-Check: PASSED",
                 "engineering-backend-architect", "testing-qa-verification-specialist", "Prune plan and apply"):
        assert kept in text, kept
    assert "test_case_30" not in text and "Duration: 12 min" not in text
    # references only present in dropped parts are added back, with a warning
    assert "scripts/gen_fixture.py" in text and "FR-1" in text
    assert set(result.missing_added) == {"scripts/gen_fixture.py", "tests/test_mod.py", "FR-1"}
    assert len(result.warnings) == 3
    assert result.compacted_chars < result.original_chars * 0.6
    assert {p.name: p.read_bytes() for p in phase_dir.iterdir() if p.name != "05-COMPACTED.md"} == originals


def test_compact_phase_without_summaries(tmp_path: Path) -> None:
    folder = tmp_path / "07-empty"
    folder.mkdir()
    with pytest.raises(MnemeError):
        compact_phase(folder)
    assert list(folder.iterdir()) == []
