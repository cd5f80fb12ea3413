"""Synthetic engineering memories for benchmarks: realistic wording, deterministic for a seed, no downloads."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta

from mneme_tui.memory.records import BENCH, Provenance

PROVENANCE = Provenance(BENCH, "synthetic")
"""Every generated memory says it is benchmark data (so it may have any kind, statutory included)."""

REPOS = ("payments-api", "ledger", "web-console", "infra", "data-pipeline", "mobile-app", "auth-service", "search")
COMPONENTS = (
    "connection pool",
    "session store",
    "retry loop",
    "migration runner",
    "token cache",
    "rate limiter",
    "webhook handler",
    "job scheduler",
    "config loader",
    "feature flag client",
    "query builder",
    "serializer",
    "file watcher",
    "thread worker",
    "message consumer",
    "schema validator",
    "index builder",
    "upload service",
)
PATHS = (
    "src/store/models.py",
    "src/api/handlers.py",
    "cmd/server/main.go",
    "web/src/hooks/useSession.ts",
    "pipeline/jobs/export.py",
    "infra/terraform/vpc.tf",
    "auth/tokens.py",
    "tests/conftest.py",
    "src/cache/lru.rs",
    "app/screens/recall.py",
    ".github/workflows/ci.yml",
    "db/migrations/0042_add_index.sql",
)
SYMPTOMS = (
    "OperationalError: database is locked",
    "a flaky timeout in CI",
    "duplicate rows after retry",
    "stale reads after a deploy",
    "memory growth under load",
    "a deadlock between two writers",
    "TypeError on a None payload",
    "slow cold start",
    "off-by-one pagination",
    "lost updates on merge",
    "a race between the watcher and the writer",
    "401 after token refresh",
    "N+1 queries on the list page",
)
FIXES = (
    "open one connection per thread with connection_context",
    "wrap the write in BEGIN IMMEDIATE",
    "add an idempotency key",
    "invalidate the cache on write",
    "bound the queue and apply backpressure",
    "use a busy timeout of ten seconds",
    "validate the payload at the boundary",
    "lazy-import the heavy module",
    "page with keyset pagination",
    "take a file lock before read-modify-write",
    "debounce the watcher",
    "refresh the token before expiry",
    "prefetch related rows in one query",
)
GATES = (
    "Cognitive Complexity",
    "Function Length",
    "Statement Coverage",
    "Docstring Density",
    "File Length",
    "Type Check",
)
KIND_WEIGHTS = (
    ("reflection", 30),
    ("pitfall", 20),
    ("decision", 12),
    ("pattern", 8),
    ("task", 10),
    ("axiom", 4),
    ("fact", 5),
    ("commit", 5),
    ("architecture", 3),
    ("preference", 3),
)
TEMPLATES = (
    "{component} in {path} hit {symptom}; {fix} fixed it.",
    "Decided to {fix} for the {component} because {symptom} kept coming back.",
    "Pitfall: the {component} ({path}) causes {symptom} unless you {fix}.",
    "Verified pattern for {path}: {fix} before touching the {component}.",
    "Gate {gate} failed on {path}; refactored the {component} and it passed.",
    "Never ship a change to the {component} without a test for {symptom}.",
    "Task outcome: {component} migrated; watch for {symptom} and {fix}.",
)
QUERIES = (
    "database is locked when two workers write",
    "how do we refresh the auth token",
    "connection per thread",
    "flaky timeout in ci",
    "duplicate rows after retry",
    "pagination off by one",
    "file lock before write",
    "why is the cold start slow",
    "migration runner deadlock",
    "cache invalidation on write",
    "rate limiter backpressure",
    "webhook idempotency key",
    "Function Length gate failed",
    "stale reads after deploy",
    "memory growth under load",
    "src/store/models.py",
)


def generate(count: int, *, seed: int = 7, now: datetime) -> Iterator[dict]:
    """``count`` memory dicts (``Store.mint_many`` fields) across repos, kinds, ages and access counts, made
    one at a time (a million of them at once would take about a gigabyte)."""
    rng = random.Random(seed)
    kinds = [kind for kind, _ in KIND_WEIGHTS]
    weights = [weight for _, weight in KIND_WEIGHTS]
    for number in range(count):
        kind = rng.choices(kinds, weights)[0]
        repo = "global" if kind == "axiom" and rng.random() < 0.6 else rng.choice(REPOS)
        path = rng.choice(PATHS)
        content = rng.choice(TEMPLATES).format(
            component=rng.choice(COMPONENTS),
            path=path,
            symptom=rng.choice(SYMPTOMS),
            fix=rng.choice(FIXES),
            gate=rng.choice(GATES),
        )
        yield {
            "content": f"{content} (ref {number})",
            "kind": kind,
            "topic": rng.choice(("Architecture", "Verification", "Operations", f"pattern:{path.rsplit('/', 1)[0]}")),
            "repo_id": repo,
            "task_id": f"INT-{rng.randint(100, 999)}",
            "created_at": now - timedelta(days=rng.uniform(0, 400)),
            "access_count": rng.choice((0, 0, 0, 1, 2, 3, 5, 12)),
            "provenance": PROVENANCE,
        }
