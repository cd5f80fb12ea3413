"""Phase-summary compaction: frontmatter, kept facts, dropped output, reference check, originals untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from mneme_tui.errors import MnemeError
from mneme_tui.legion.markdown.roadmap import phase_status
from mneme_tui.legion.skill.compaction import compact_phase, file_paths, requirement_ids

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
- `mneme_tui/legion/markdown/cells.py` - cell codec
- `mneme_tui/legion/markdown/document.py` - parser

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
| mneme_tui/legion/skill/prune.py | new module |

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
        "src/app.py",
        "docs/a.md",
        "README.md",
    ]


def test_compact_phase(phase_dir: Path) -> None:
    originals = {p.name: p.read_bytes() for p in phase_dir.iterdir()}
    result = compact_phase(phase_dir)
    target = phase_dir / "05-COMPACTED.md"
    text = target.read_text(encoding="utf-8")
    assert result.path == str(target)
    assert text.startswith(
        "---\nphase: 05-memory-layer\ncompacted: 2026-10-15\n"
        "original_summaries: [05-01-SUMMARY.md, 05-02-SUMMARY.md]\n"
        "requirements_satisfied: [REQ-12, AUTH-03, REQ-13, FR-1]\n---\n\n# Phase 5: memory-layer — Compacted Summary\n"
    )
    for heading in ("## Deliverables", "## Decisions", "## Files Modified", "## Verification", "## Agents"):
        assert heading in text
    for kept in (
        "Cell codec with escapes",
        "Chose flock over lockfile polling",
        "Highest ID + 1",
        "`mneme_tui/legion/markdown/cells.py`",
        "`mneme_tui/legion/skill/prune.py`",
        "40 passed",
        "Self-Check: PASSED",
        "engineering-backend-architect",
        "testing-qa-verification-specialist",
        "Prune plan and apply",
    ):
        assert kept in text, kept
    assert "test_case_30" not in text and "Duration: 12 min" not in text
    # paths quoted only in a log or a code block are no files of the phase: not added to Files Modified
    assert "tests/test_mod.py" not in text and "scripts/gen_fixture.py" not in text
    assert result.file_paths == [
        "mneme_tui/legion/markdown/cells.py",
        "mneme_tui/legion/markdown/document.py",
        "mneme_tui/legion/skill/prune.py",
    ]
    assert result.missing_added == []
    assert result.ratio == round(result.compacted_chars / result.original_chars, 3)
    assert {p.name: p.read_bytes() for p in phase_dir.iterdir() if p.name != "05-COMPACTED.md"} == originals


def test_compact_phase_without_summaries(tmp_path: Path) -> None:
    folder = tmp_path / "07-empty"
    folder.mkdir()
    with pytest.raises(MnemeError):
        compact_phase(folder)
    assert list(folder.iterdir()) == []


# ------------------------------------------------------------------ spec §12, rule by rule
def _phase(tmp_path: Path, roadmap: str | None, *summaries: str) -> Path:
    planning = tmp_path / ".planning"
    folder = planning / "phases" / "03-api"
    folder.mkdir(parents=True)
    if roadmap is not None:
        (planning / "ROADMAP.md").write_text(roadmap, encoding="utf-8")
    for n, text in enumerate(summaries, start=1):
        (folder / f"03-0{n}-SUMMARY.md").write_text(text, encoding="utf-8")
        (folder / f"03-0{n}-PLAN.md").write_text("plan\n", encoding="utf-8")
    return folder


ROADMAP = """# Roadmap

| Phase | Name | Status |
|-------|------|--------|
| 2 | Parser | Complete |
| 3 | API | {status} |
"""
PLAIN = "# Plan Summary\n\n## Accomplishments\n- Built `src/api.py` for REQ-01\n"


# §12 Preconditions: "Phase must be marked Complete in ROADMAP.md"
def test_a_phase_in_progress_is_refused(tmp_path: Path) -> None:
    folder = _phase(tmp_path, ROADMAP.format(status="In Progress"), PLAIN)
    with pytest.raises(MnemeError) as info:
        compact_phase(folder)
    message = str(info.value)
    assert "phase 3 (03-api) is marked 'In Progress'" in message and "ROADMAP.md" in message
    assert "not Complete" in message and not (folder / "03-COMPACTED.md").exists()


def test_a_complete_phase_compacts_and_an_unlisted_one_warns(tmp_path: Path) -> None:
    folder = _phase(tmp_path, ROADMAP.format(status="✅ Complete"), PLAIN)
    assert not any("ROADMAP" in w for w in compact_phase(folder).warnings)
    (tmp_path / ".planning" / "ROADMAP.md").unlink()
    assert any("could not check that phase 3 is Complete" in w for w in compact_phase(folder).warnings)


def test_roadmap_forms() -> None:
    assert phase_status(ROADMAP.format(status="Done"), 3) == "Complete"
    assert phase_status(ROADMAP.format(status="Planned"), 3) == "Planned"
    assert phase_status(ROADMAP.format(status="x"), 2) == "Complete"
    assert phase_status("- [x] **Phase 3: API**\n- [ ] **Phase 4: UI**\n", 4) == "Not Started"
    assert phase_status("- [x] **Phase 3: API**\n", 3) == "Complete"
    assert (
        phase_status("### Phase 3: API\n**Goal**: x\n**Status**: In progress\n### Phase 4\nDone\n", 3) == "In Progress"
    )
    assert phase_status("## Phase 13: Later — Complete\n", 3) is None
    assert phase_status("nothing here", 3) is None


# §12 Preconditions: "All plan SUMMARY files must exist in the phase directory"
def test_a_plan_without_its_summary_is_refused(tmp_path: Path) -> None:
    folder = _phase(tmp_path, ROADMAP.format(status="Complete"), PLAIN)
    (folder / "03-02-PLAN.md").write_text("plan\n", encoding="utf-8")
    with pytest.raises(MnemeError, match=r"missing 03-02-SUMMARY\.md"):
        compact_phase(folder)
    assert not (folder / "03-COMPACTED.md").exists()


TEST_LOG = "\n".join(f"PASSED tests/api/test_mod{n}.py::test_case [{n // 2}%]" for n in range(180))
LOGGED = f"""---
requirements-completed: [REQ-01]
---
# Phase 3 Plan 01: API Summary

## Objective
Serve the memory store over HTTP so agents on other machines can recall.

## Accomplishments
- Endpoints for recall and save with JSON errors
- Request validation shared with the CLI

## Files Modified
- `src/api.py` - endpoints
- `src/validation.py` - shared validation

## Decisions
- Starlette over Flask: async workers, smaller footprint

## Test Results
- pytest: 180 passed, 0 failed
FAILED tests/api/test_slow.py::test_timeout - flaky, rerun passed
{TEST_LOG}

## Execution Log
```
{TEST_LOG}
```
"""


# §12 Compaction Rules, Trimmed: "Full verification command output (keep pass/fail, drop verbose output)";
# Preserved: "What was done (deliverables produced, files modified)"; Step 4 checks "every file path from the phase"
def test_a_test_log_adds_no_files_and_the_size_is_measured(tmp_path: Path) -> None:
    folder = _phase(tmp_path, ROADMAP.format(status="Complete"), LOGGED)
    result = compact_phase(folder)
    text = (folder / "03-COMPACTED.md").read_text(encoding="utf-8")
    table = text.split("## Files Modified\n", 1)[1].split("\n\n", 1)[0]
    assert table.splitlines()[2:] == [
        "| `src/api.py` | endpoints (03-01) |",
        "| `src/validation.py` | shared validation (03-01) |",
    ]
    assert "test_mod" not in text and result.missing_added == []
    assert "180 passed, 0 failed" in text and "test_slow.py::test_timeout - flaky" in text  # what was flagged
    assert "Serve the memory store over HTTP" in text  # why: the goal addressed
    # §12 Target: "compacted summary should be 30-50% of original length"
    assert result.ratio == round(len(text) / result.original_chars, 3) and result.ratio < 0.30
    assert f"the compacted summary is {result.ratio:.0%} of the originals' size; the skill targets 30%-50%" in (
        result.warnings
    )


def test_within_the_target_no_size_warning(tmp_path: Path) -> None:
    dropped = "\n".join(f"- Step {n}: ran the generator again and looked at its output" for n in range(20))
    folder = _phase(
        tmp_path,
        ROADMAP.format(status="Complete"),
        LOGGED.split("## Test Results")[0] + "## Execution Details\n" + dropped + "\n",
    )
    result = compact_phase(folder)
    assert 0.30 <= result.ratio <= 0.50 and result.warnings == []


# §12 Preserved: "Requirements satisfied (IDs and brief descriptions)"; Step 4: "every requirement ID from the phase"
def test_requirements_named_only_in_a_body_are_satisfied(tmp_path: Path) -> None:
    body_only = PLAIN + "\n## Accomplishments\n- Login flow closes AUTH-07\n"
    folder = _phase(tmp_path, ROADMAP.format(status="Complete"), "---\nrequirements: [REQ-02]\n---\n" + body_only)
    result = compact_phase(folder)
    assert result.requirements_satisfied == ["REQ-02", "REQ-01", "AUTH-07"]
    assert "requirements_satisfied: [REQ-02, REQ-01, AUTH-07]" in Path(result.path).read_text(encoding="utf-8")


# §12 Trimmed: "Repeated context that appears in multiple summaries for the same phase"
def test_context_repeated_across_summaries_is_kept_once(tmp_path: Path) -> None:
    shared = "## Decisions\n- Keep the CLI's JSON shapes for the API\n"
    folder = _phase(tmp_path, ROADMAP.format(status="Complete"), PLAIN + shared, PLAIN + shared)
    text = Path(compact_phase(folder).path).read_text(encoding="utf-8")
    assert text.count("Keep the CLI's JSON shapes") == 1 and text.count("Built `src/api.py`") == 1


# ------------------------------------------------------------------ the two summary shapes met in real projects
TRACKER_SUMMARY = """# Plan 03-01 Summary: Rate limits for the public API

## Result
**Status**: Complete
**Agent**: engineering-backend-architect
**Completed**: 2026-10-09

## Agent Selection Rationale

| Candidate | Heuristic | Total |
|-----------|-----------|-------|
| engineering-backend-architect | 25 | 25 |

- **Task type detected**: implementation
- **Confidence**: HIGH

## Completed Tasks
- [x] Task 1: Token bucket per client (done)

## Files Modified
- `api/limits.py`

## Key Decisions
- One bucket per API key, not per IP, so office NAT does not throttle a whole team.

## Handoff Context
- **Decisions made**: One bucket per API key, not per IP, so office NAT does not throttle a whole team.

## Requirements Covered
- API-07
"""

FRONTMATTER_SUMMARY = """---
phase: 03-api
plan: 02
key-files:
  created: [api/quota.py, api/quota_test.py]
  modified:
    - api/routes.py - mounts the quota middleware
decisions:
  - "Quota resets at midnight UTC"
requirements-completed: [API-08]
---

# Phase 3 Plan 02: Quotas Summary

## Accomplishments
- Daily quotas on top of the rate limits
"""


def test_compaction_reads_the_summaries_own_fields(tmp_path: Path) -> None:
    """``**Agent**:`` fields, ``key-files:`` with ``created:``/``modified:``, frontmatter ``decisions:``; the
    agent-selection table and handoff repeats stay out."""
    folder = _phase(tmp_path, ROADMAP.format(status="Complete"), TRACKER_SUMMARY, FRONTMATTER_SUMMARY)
    result = compact_phase(folder)
    text = (folder / "03-COMPACTED.md").read_text(encoding="utf-8")
    agents = text.split("## Agents\n", 1)[1]
    assert "- 03-01: engineering-backend-architect" in agents and "not recorded" not in agents.split("- 03-02")[0]
    assert sorted(result.file_paths) == ["api/limits.py", "api/quota.py", "api/quota_test.py", "api/routes.py"]
    assert "| `api/quota.py` | created (03-02) |" in text
    assert "| `api/routes.py` | mounts the quota middleware (03-02) |" in text
    decisions = text.split("## Decisions\n", 1)[1].split("\n## ", 1)[0]
    assert decisions.count("One bucket per API key") == 1 and "Quota resets at midnight UTC" in decisions
    assert "Task type detected" not in text and "Confidence" not in text
    assert "Token bucket per client" in text
    assert result.missing_added == []
