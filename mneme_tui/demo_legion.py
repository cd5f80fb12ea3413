"""The demo workspace's Legion folder: its four memory files (outcomes, patterns, errors, preferences) and the
``.planning`` state beside them, written by ``write_legion_files`` for :mod:`mneme_tui.demo` (deterministic given
``today`` and ``seed``). No Textual here."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mneme_tui.legion.markdown.legion_records import ErrorRecord, PatternRecord, PreferenceRecord, Record
    from mneme_tui.legion.markdown.schemas import TableSchema

AGENTS = (
    "engineering-senior-developer",
    "engineering-backend-architect",
    "testing-qa-verification-specialist",
    "engineering-rapid-prototyper",
    "design-ui-designer",
    "autonomous",
)
TASK_TYPES = ("backend", "frontend", "quality-review", "workflow", "ci-cd", "database")
OUTCOME_SUMMARIES = {
    "success": (
        "Added pagination to the memory list endpoint",
        "Review-loop approved the ranking change in 2 cycles",
        "Search-as-you-type wired to the hybrid ranking",
        "Fixed the flaky snapshot test (cursor blink)",
        "Invoice export rewritten with streaming writes",
        "CI pipeline split into lint, unit and e2e stages",
        "Session cookie hardened (SameSite=strict)",
    ),
    "partial": (
        "Prune preview landed; apply still manual",
        "Review needed 2 cycles — edge case in [Store.save]",
        "Dashboard charts done; export deferred",
    ),
    "failed": (
        "Migration 0042 failed on the staging copy; rolled back",
        "Escalated review after 3 cycles — flaky worker cancellation",
        "Load test failed: p95 over budget on /search",
    ),
}


def _outcome_rows(today: date, rng: random.Random) -> list[dict]:
    rows = []
    day = today - timedelta(days=160)
    phase = 1
    while day <= today:
        for _ in range(rng.choice((0, 1, 1, 2))):
            outcome = rng.choices(("success", "partial", "failed"), (70, 18, 12))[0]
            if outcome == "success":
                importance = 1 if rng.random() < 0.2 else 2 + (rng.random() < 0.15)
            else:
                importance = {"failed": 5, "partial": 3}[outcome]
            agent = rng.choice(AGENTS)
            rows.append(
                dict(
                    date=day.isoformat(),
                    branch=rng.choice(("main", "main", "main", "feature/search")),
                    phase=str(phase),
                    plan=f"{phase:02d}-{rng.randint(1, 4):02d}",
                    agent=agent,
                    task_type=rng.choice(TASK_TYPES),
                    outcome=outcome,
                    importance=importance,
                    tags=[rng.choice(("search", "tui", "billing", "auth", "ci", "db")), agent.split("-")[0]],
                    summary=rng.choice(OUTCOME_SUMMARIES[outcome]),
                )
            )
        day += timedelta(days=rng.randint(1, 4))
        if rng.random() < 0.06:
            phase += 1
    return rows


def write_legion_files(project: Path, legion: Path, today: date, seed: int) -> None:
    """The demo project's ``legion`` folder (its four memory files) and ``.planning`` state and settings."""
    from mneme_tui.legion.markdown.legion_records import OutcomeRecord
    from mneme_tui.legion.markdown.schemas import ERRORS, OUTCOMES, PATTERNS, PREFERENCES

    rng = random.Random(seed + 1)
    legion.mkdir(parents=True, exist_ok=True)
    outcomes = _outcome_rows(today, rng)
    _write_table(legion, OUTCOMES, [OutcomeRecord(**row) for row in outcomes])
    _write_table(legion, PATTERNS, _pattern_records(today))
    _write_table(legion, ERRORS, _error_records(today))
    _write_table(legion, PREFERENCES, _preference_records(today))
    last_phase = max(int(row["phase"]) for row in outcomes)
    planning = project / ".planning"
    (planning / "STATE.md").write_text(f"# State\n\nCurrent Phase: {last_phase}\n", encoding="utf-8")
    (planning / "settings.json").write_text(
        json.dumps({"memory": {"auto_prune": False, "prune_threshold": 50, "prune_age_days": 90}}, indent=2) + "\n",
        encoding="utf-8",
    )


def _write_table(legion: Path, schema: TableSchema, records: Sequence[Record]) -> None:
    """One Legion memory file of ``records``, numbered from 1 (``O-001``, ``P-001``…)."""
    from mneme_tui.legion.markdown.document import parse

    document = parse(schema.template, schema.file_name)
    for number, record in enumerate(records, start=1):
        record.id = f"{schema.id_prefix}-{number:03d}"
        document.append_row(record, schema)
    (legion / schema.file_name).write_text(document.render(), encoding="utf-8")


PATTERN_ROWS = (
    (
        3,
        "Wave-parallel testing with a dedicated QA agent",
        "Phase 5 review found 3 issues",
        "3+ plans in a wave with test-adjacent tasks",
        "O-012",
        ["testing", "wave-execution"],
    ),
    (
        20,
        "Page long lists; never build a 100k-row table",
        "Memories screen",
        "lists over 1,000 rows",
        "O-020",
        ["tui", "performance"],
    ),
    (
        45,
        "Temp file + fsync + rename for every markdown write",
        "Legion sync",
        "any file rewrite",
        "review",
        ["io", "durability"],
    ),
    (
        70,
        "Fixed clock (MNEME_NOW) in every snapshot test",
        "flaky SVG snapshots",
        "time-dependent output",
        "O-031",
        ["testing"],
    ),
    (
        130,
        "Stream invoice rows instead of building the PDF in memory",
        "billing export",
        "exports > 10 MB",
        "O-007",
        ["billing", "performance"],
    ),
)
"""The demo's PATTERNS.md rows: days ago, pattern, context, reuse criteria, source, tags."""


def _pattern_records(today: date) -> list[PatternRecord]:
    """The demo's PATTERNS.md rows."""
    from mneme_tui.legion.markdown.legion_records import PatternRecord

    return [
        PatternRecord(
            date=(today - timedelta(days=d)).isoformat(),
            branch="main",
            pattern=p,
            context=c,
            reuse_criteria=r,
            source=s,
            tags=list(t),  # a fresh list per call, as the literal rows gave
        )
        for d, p, c, r, s, t in PATTERN_ROWS
    ]


ERROR_ROWS = (
    (
        2,
        "`MarkupError: closing tag '[/bold]' does not match any open tag`",
        "Pass rich Text, not str",
        "engineering-senior-developer",
        True,
        ["textual", "markup"],
    ),
    (
        12,
        "`sqlite3.OperationalError: database is locked`",
        "WAL mode + busy_timeout 10s",
        "engineering-backend-architect",
        True,
        ["sqlite"],
    ),
    (
        40,
        "`TypeError: can't compare offset-naive and offset-aware datetimes`",
        "Normalise to naive UTC at the boundary",
        "autonomous",
        True,
        ["datetime"],
    ),
    (
        95,
        "`alembic.util.exc.CommandError: Can't locate revision`",
        "Re-stamp head after the squash",
        "engineering-rapid-prototyper",
        False,
        ["migrations"],
    ),
)
"""The demo's ERRORS.md rows: days ago, error signature, fix, agent, resolved, tags."""


def _error_records(today: date) -> list[ErrorRecord]:
    """The demo's ERRORS.md rows."""
    from mneme_tui.legion.markdown.legion_records import ErrorRecord

    return [
        ErrorRecord(
            date=(today - timedelta(days=d)).isoformat(),
            branch="main",
            error_signature=e,
            fix=f,
            agent=a,
            resolved=r,
            tags=list(t),  # a fresh list per call, as the literal rows gave
        )
        for d, e, f, a, r, t in ERROR_ROWS
    ]


PREFERENCE_ROWS = (
    (
        1,
        "review-verdict",
        "Phase 7 review cycle 1",
        "2 blockers in the prune apply",
        "Accepted — fixed",
        "positive",
        "testing-qa-verification-specialist",
        ["review"],
    ),
    (
        6,
        "agent-selection",
        "Plan 07-02",
        "engineering-rapid-prototyper",
        "Chose senior developer",
        "corrective",
        "engineering-rapid-prototyper",
        ["agent-selection"],
    ),
    (
        15,
        "manual-edit",
        "Plan 06-03 build",
        "Generated migration",
        "Rewrote the down migration",
        "corrective",
        "engineering-backend-architect",
        ["db"],
    ),
    (
        33,
        "review-override",
        "Phase 5 escalation",
        "Block the release",
        "Accepted as-is",
        "negative",
        "testing-qa-verification-specialist",
        ["review"],
    ),
    (
        50,
        "fix-acceptance",
        "Plan 04-01",
        "Retry with backoff",
        "Accepted",
        "positive",
        "engineering-senior-developer",
        ["queues"],
    ),
    (
        80,
        "review-verdict",
        "Phase 3 review",
        "1 blocker",
        "Accepted",
        "positive",
        "engineering-senior-developer",
        ["review"],
    ),
)
"""The demo's PREFERENCES.md rows: days ago, decision point, context, proposed, user choice,
signal, agent, tags."""


def _preference_records(today: date) -> list[PreferenceRecord]:
    """The demo's PREFERENCES.md rows."""
    from mneme_tui.legion.markdown.legion_records import PreferenceRecord

    return [
        PreferenceRecord(
            date=(today - timedelta(days=d)).isoformat(),
            branch="main",
            decision_point=dp,
            context=c,
            proposed=p,
            user_choice=u,
            signal=s,
            agent=a,
            tags=list(t),  # a fresh list per call, as the literal rows gave
        )
        for d, dp, c, p, u, s, a, t in PREFERENCE_ROWS
    ]
