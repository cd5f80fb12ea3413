"""A generated demo workspace: a store with a few hundred realistic memories and a Legion folder.

``build_demo_workspace(folder, now)`` writes everything under ``folder`` (never the user's database) and
is deterministic given ``seed`` and ``now``: the same call writes the same rows and the same files.
Used by ``mneme --demo``, the README screenshots, the TUI tests and the TUI bench. No Textual here.

The workspace is throwaway: when the terminal goes away (SIGHUP) while the process that built it runs,
the folder is removed before the process exits (``q`` removes it through the caller's temp folder).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from mneme_tui.demo_legion import write_legion_files
from mneme_tui.memory import kinds as K
from mneme_tui.memory.records import DEMO, TASK_SYNC, Provenance
from mneme_tui.memory.store import Store

DEMO_REPO = "atlas-api"
OTHER_REPOS = ("atlas-web", "billing-svc", "infra-live")
GLOBAL = "global"
DEFAULT_SEED = 7
DEFAULT_COUNT = 320


@dataclass(frozen=True)
class DemoWorkspace:
    db_path: Path
    project_dir: Path
    legion_dir: Path
    repo: str
    claude_home: Path | None = None  # a stand-in home holding Claude Code's MEMORY.md for the demo project

    @property
    def config_path(self) -> Path:
        """The demo's own settings file (next to its database): choosing a theme in the demo writes here."""
        return self.db_path.parent / "config.toml"


# --------------------------------------------------------------------------- memory text
MODULES = (
    "store.py",
    "ranking.py",
    "index.py",
    "api/routes.py",
    "billing/invoice.py",
    "auth/session.py",
    "workers/queue.py",
    "db/migrations",
    "web/search.tsx",
    "cli.py",
    "sync/legion.py",
    "cache.py",
)
THINGS = (
    "the SQLite WAL file",
    "the search index",
    "the session cookie",
    "the invoice PDF renderer",
    "the retry queue",
    "the feature flag client",
    "the rate limiter",
    "the migration runner",
    "the webhook signer",
    "the CSV exporter",
    "the connection pool",
    "the token cache",
)
TOOLS = ("pytest", "ruff", "mypy", "alembic", "textual", "peewee", "numpy", "docker compose", "terraform", "gh")
TOPICS = (
    "Caching",
    "Migrations",
    "Search",
    "Auth",
    "Billing",
    "Testing",
    "Deploys",
    "Performance",
    "Observability",
    "TUI",
    "Sync",
    "Queues",
    "API design",
    "Security",
)

TEMPLATES: dict[str, tuple[str, ...]] = {
    "reflection": (
        "Spent an hour on {thing}: the bug was in {module}, not where the stack trace pointed.",
        "Profiling {module} showed {n}% of the time in JSON encoding; batching the writes fixed it.",
        "Pairing on {thing} went faster once we wrote the failing test first.",
        "Refactored {module} [Store.save, _flush] — the two code paths now share one transaction.",
        "The flaky test in {module} was a clock problem; freezing MNEME_NOW made it deterministic.",
    ),
    "axiom": (
        "Never swallow exceptions in {module}; log them with the request id and re-raise.",
        "Every write goes through one transaction; readers never see half a change.",
        "Time comes from one clock function; nothing else calls datetime.now().",
        "Untrusted text is shown literally: `[/bold]` and `[@click=app.quit]` are data, not markup.",
        "Prefer deleting code to adding configuration.",
    ),
    "decision": (
        "Chose {tool} over a hand-written script for {thing}: fewer moving parts.",
        "Decided to page the memory list ({n} rows per page) instead of loading everything.",
        "Moved {thing} behind a feature flag until the load test passes.",
        "Keep {module} synchronous; the async rewrite is not worth the complexity yet.",
    ),
    "fact": (
        "{thing} lives in {module}; its config key is `{key}`.",
        "The staging database is restored from production every Sunday at 03:00 UTC.",
        "{tool} needs version pins here: the last upgrade broke {module}.",
        "Rate limit on the public API is {n} requests per minute per token.",
    ),
    "preference": (
        "The team prefers small PRs (< {n} lines) with the test in the same commit.",
        "Use {tool} for formatting; do not mix styles in one file.",
        "Error messages are one line, name the file, and say what to do next.",
    ),
    "architecture": (
        "{module} owns {thing}; other modules call its public functions only.",
        "Layers import downwards only: cli → tui → legion → memory → config.",
        "{thing} is rebuilt lazily from the revision table instead of on every write.",
    ),
    "pitfall": (
        "{tool} silently ignores `{key}` when the file has a BOM; strip it first.",
        "Do not run migrations while {thing} holds a write lock: they time out after {n}s.",
        "Timezones: {module} stores naive UTC; comparing with aware datetimes raises.",
        "A `[/x]` in a commit message crashed the changelog renderer (markup!).",
        "Cancelling a thread worker does not stop it; check for staleness before showing results.",
        "peewee keeps one connection per thread: never share `:memory:` with workers.",
    ),
    "pattern": (
        "Write a temp file in the same folder, fsync, rename: atomic updates for {thing}.",
        "Keyed table rows updated in place keep the cursor where it was during refreshes.",
        "Debounce search-as-you-type by ~{n} ms and drop results overtaken by a newer query.",
        "Snapshot tests: fixed clock, fixed size, workers awaited, no cursor blink.",
    ),
    "task": (
        "Implemented {thing} in {module}; tests green, {n} files changed.",
        "Fixed the N+1 query in {module} ({n} queries → 2).",
        "Upgraded {tool} and fixed the {n} deprecation warnings.",
    ),
    "commit": ("fix({module}): handle empty {thing} [skip ci]", "feat: add {thing} export (closes #{n})"),
    "review": (
        "Review of {module}: {n} blockers, all about error handling around {thing}.",
        "Approved after one cycle; suggested extracting {thing} into its own module.",
    ),
    "release": ("v1.{n}.0 shipped {thing}; rollback plan: revert the flag.",),
}
KIND_WEIGHTS = {
    "reflection": 18,
    "pitfall": 16,
    "pattern": 10,
    "decision": 10,
    "fact": 9,
    "axiom": 6,
    "task": 10,
    "architecture": 5,
    "preference": 5,
    "commit": 5,
    "review": 4,
    "release": 2,
}
KEYS = ("cache.ttl", "db.busy_timeout", "search.limit", "auth.secure_cookie", "queue.max_retries")


def _fill(template: str, rng: random.Random) -> str:
    return template.format(
        module=rng.choice(MODULES),
        thing=rng.choice(THINGS),
        tool=rng.choice(TOOLS),
        n=rng.randint(2, 90),
        key=rng.choice(KEYS),
    )


GATES = ("Cognitive Complexity", "Function Length", "Statement Coverage", "No bare except", "Type Check")
SCOPES = {
    "src/store": ("store.py", "Store, Store.save, Store._flush"),
    "src/api": ("handlers.py", "create_invoice, list_invoices"),
    "src/sync": ("legion.py", "LegionSync, LegionSync.run"),
    "billing": ("invoice.py", "Invoice, Invoice.total"),
}
SYNC_TASKS = tuple(f"INT-{number}" for number in range(701, 713))


def _as_synced_pitfall(item: dict, rng: random.Random) -> None:
    """Shape a demo pitfall like one ``mneme task sync`` mints: a gate @ scope topic, the refactored file
    and its symbols first, and a task id from a small pool, so some of them recur and graduate."""
    gate = rng.choice(GATES)
    scope = rng.choice(tuple(SCOPES))
    file_name, symbols = SCOPES[scope]
    item["topic"] = f"{gate} @ {scope}"
    item["content"] = f"Refactored {scope}/{file_name} [{symbols}]\n\n{item['content']}"
    item["task_id"] = rng.choice(SYNC_TASKS)
    item["provenance"] = Provenance(TASK_SYNC, f"{item['task_id']} (demo)")  # a simulated task sync, labelled


def memory_items(count: int, now: datetime, seed: int = DEFAULT_SEED) -> list[dict]:
    """``count`` memory dicts for ``Store.mint_many`` (deterministic for a seed and ``now``)."""
    rng = random.Random(seed)
    pitfall_rng = random.Random(seed + 1)  # separate, so the other memories stay as they were
    kinds = list(KIND_WEIGHTS)
    weights = [KIND_WEIGHTS[k] for k in kinds]
    repos = (DEMO_REPO,) * 5 + OTHER_REPOS + (GLOBAL,) * 2
    items: list[dict] = []
    while len(items) < count:
        kind = rng.choices(kinds, weights)[0]
        repo = GLOBAL if kind == "axiom" and rng.random() < 0.7 else rng.choice(repos)
        content = _fill(rng.choice(TEMPLATES[kind]), rng)
        if rng.random() < 0.25:
            content += "\n\n" + _fill(rng.choice(TEMPLATES[rng.choice(kinds)]), rng)
        age_days = rng.expovariate(1 / 60) if rng.random() < 0.9 else rng.uniform(120, 400)
        created = now - timedelta(days=min(age_days, 420), minutes=rng.randint(0, 600))
        roll = rng.random()
        status = K.TOMBSTONED if roll < 0.06 else K.SUPERSEDED if roll < 0.10 else K.ACTIVE
        items.append(
            dict(
                content=content,
                kind=kind,
                topic=rng.choice(TOPICS),
                repo_id=repo,
                task_id=f"T-{rng.randint(100, 999)}" if kind in ("task", "review", "commit") else "",
                created_at=created.replace(microsecond=0),
                status=status,
                access_count=int(rng.expovariate(1 / 3)) if rng.random() < 0.6 else 0,
                superseded_by=0,
                provenance=Provenance(DEMO, "generated"),
            )
        )
        if status == K.SUPERSEDED and len(items) < count:  # its successor: the same note, revised later
            old = items[-1]
            later = min(now, created + timedelta(days=rng.uniform(1, 30)))
            items.append(
                dict(
                    old,
                    content="Update: " + content,
                    created_at=later.replace(microsecond=0),
                    status=K.ACTIVE,
                    access_count=0,
                )
            )
            old["successor"] = items[-1]
    for item in items:
        if item["kind"] == "pitfall" and item["repo_id"] != GLOBAL:
            _as_synced_pitfall(item, pitfall_rng)
    items.sort(key=lambda item: item["created_at"])  # ids follow creation time, like a real store
    position_of = {id(item): position for position, item in enumerate(items)}
    for item in items:
        successor = item.pop("successor", None)
        if successor:  # the pitfall pass may have rewritten the note: revise what is there now
            successor.update(content="Update: " + item["content"], topic=item["topic"])
        if item["status"] == K.SUPERSEDED:  # ids are positions + 1 in a new store
            item["superseded_by"] = position_of[id(successor)] + 1 if successor else 0
            item["status"] = K.SUPERSEDED if successor else K.ACTIVE
    return items


def _mint_with_history(store: Store, items: list[dict]) -> None:
    """Mint ``items`` as active, then dismiss and supersede through the store, so each status change is in
    the audit history and every ``superseded_by`` points at the revised note."""
    minted = store.mint_many([dict(item, status=K.ACTIVE, superseded_by=0) for item in items])
    ids = [memory.id for memory in minted]
    for memory_id, item in zip(ids, items):
        if item["status"] == K.SUPERSEDED:
            store.mark_superseded(memory_id, ids[item["superseded_by"] - 1], reason="replaced by a revised note")
    dismissed = [memory_id for memory_id, item in zip(ids, items) if item["status"] == K.TOMBSTONED]
    if dismissed:
        store.dismiss(dismissed, reason="dismissed during review: no longer true")


WORK_TREE_FILES = {
    "src/store/store.py": "class Store:\n    def save(self, item):\n        return item\n",
    "src/api/handlers.py": "def create_invoice(request):\n    return {}\n\n\ndef list_invoices(request):\n"
    "    return []\n",
    "src/sync/legion.py": "class LegionSync:\n    def run(self):\n        return None\n",
    "billing/invoice.py": "class Invoice:\n    def total(self):\n        return 0\n",
}
"""The demo project's code: the files its synced pitfalls name. ``Store._flush`` is gone from
``src/store/store.py`` and a later commit deletes ``src/sync/legion.py``, so ``mneme review`` shows stale memories."""


def _write_work_tree(project: Path, now: datetime) -> None:
    """Make ``project`` a git work tree with ``WORK_TREE_FILES`` (two commits with fixed dates and author); skipped
    where git cannot run (the stale kind then has no work tree to read)."""
    import subprocess  # only for the demo's work tree

    for path, text in WORK_TREE_FILES.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text, encoding="utf-8")
    steps = [
        ("init", "-q", "-b", "main"),
        ("add", *WORK_TREE_FILES),
        ("commit", "-q", "-m", "The demo project"),
        ("rm", "-q", "src/sync/legion.py"),
        ("commit", "-q", "-m", "Move Legion sync out of the API"),
    ]
    dates = [now - timedelta(days=300)] * 3 + [now - timedelta(days=3)] * 2
    try:
        for step, when in zip(steps, dates):
            stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
            env = {
                **os.environ,
                "GIT_AUTHOR_NAME": "Demo",
                "GIT_AUTHOR_EMAIL": "demo@example.invalid",
                "GIT_COMMITTER_NAME": "Demo",
                "GIT_COMMITTER_EMAIL": "demo@example.invalid",
                "GIT_AUTHOR_DATE": stamp,
                "GIT_COMMITTER_DATE": stamp,
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": os.devnull,
            }
            subprocess.run(
                ["git", "-c", "commit.gpgsign=false", *step],
                cwd=project,
                env=env,
                check=True,
                capture_output=True,
                timeout=30,
            )
    except (OSError, subprocess.SubprocessError):
        shutil.rmtree(project / ".git", ignore_errors=True)


def build_demo_workspace(
    folder: Path, now: datetime, *, seed: int = DEFAULT_SEED, count: int = DEFAULT_COUNT
) -> DemoWorkspace:
    """Create ``folder/mneme.db``, the project ``folder/<repo>`` (a git work tree, ``_write_work_tree``) and its
    ``.planning/memory`` (``folder`` must be empty or new)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    remove_on_hangup(folder)
    project = folder / DEMO_REPO
    legion = project / ".planning" / "memory"
    db_path = folder / "mneme.db"
    store = Store(db_path)
    try:
        _mint_with_history(store, memory_items(count, now, seed))
    finally:
        store.close()
    _write_work_tree(project, now)
    write_legion_files(project, legion, now.date(), seed)
    claude_home = folder / "home"
    write_claude_memory(project, claude_home)
    return DemoWorkspace(
        db_path=db_path, project_dir=project, legion_dir=legion, repo=DEMO_REPO, claude_home=claude_home
    )


def remove_on_hangup(folder: Path) -> None:
    """On SIGHUP (the terminal went away) remove ``folder`` and exit 129, as the hangup itself would."""
    if not hasattr(signal, "SIGHUP") or threading.current_thread() is not threading.main_thread():
        return

    def hang_up(signum: int, _frame: object) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(128 + signum)

    signal.signal(signal.SIGHUP, hang_up)


CLAUDE_MEMORY = """# atlas-api

- The user prefers small, reviewable PRs and a failing test first.
- Run `pytest -q` before proposing a commit; never skip the snapshot tests.
- Migrations live in db/migrations; the staging copy is restored every Sunday.
"""


def write_claude_memory(project: Path, home: Path) -> None:
    """Claude Code's MEMORY.md for the demo project, under a stand-in home (never the user's)."""
    from mneme_tui.legion.skill.claude_memory import project_folder_names

    folder = home / ".claude" / "projects" / project_folder_names(project)[0] / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_text(CLAUDE_MEMORY, encoding="utf-8")
