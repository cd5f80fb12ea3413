"""The Memories list's data and rows: what it shows (``ListFilter``), one page of it from the store (``ListPage``,
``load_page``, ``PAGE_SIZE`` rows at a time), its columns for a width (``list_columns``) and one row's cells
(``memory_cells``). ``screens/memories.py`` shows them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from rich.text import Text

from mneme_tui.memory import kinds as K
from mneme_tui.memory.records import Memory
from mneme_tui.memory.store import Store
from mneme_tui.tui.text import age_cell, cell, kind_cell, one_line, status_cell, topic_content_cell
from mneme_tui.tui.widgets.paged_table import Column, fit_columns

PAGE_SIZE = 200
THIS_REPO = ""
"""``ListFilter.repo`` for the active repo (with the global memories)."""
ALL_REPOS = "*"


@dataclass(frozen=True)
class ListFilter:
    """What the list shows. ``repo``: ``THIS_REPO`` (the active repo + global), ``ALL_REPOS``, or one repo
    (``global`` included) on its own."""

    status: str = K.ACTIVE
    repo: str = THIS_REPO
    kind: str | None = None
    order: str = "newest"
    offset: int = 0
    text: str = ""


@dataclass(frozen=True)
class ListPage:
    filter: ListFilter
    memories: tuple[Memory, ...]
    total: int
    counts: dict[str, int] = field(default_factory=dict)
    kind_counts: dict[str, int] = field(default_factory=dict)
    repos: tuple[str, ...] = ()
    legion_ids: dict[int, str] = field(default_factory=dict)
    pinned: frozenset[int] = frozenset()


def load_page(store: Store, active_repo: str, wanted: ListFilter) -> ListPage:
    """One page of the list ``wanted`` names, with the status counts; ``active_repo`` is what ``THIS_REPO``
    stands for (in a worker thread)."""
    repo = {THIS_REPO: active_repo, ALL_REPOS: None}.get(wanted.repo, wanted.repo)
    with_global = wanted.repo == THIS_REPO
    text = wanted.text
    counts = store.status_counts(kind=wanted.kind, repo_id=repo, include_global=with_global, text=text)
    kind_counts = store.kind_counts(status=wanted.status, repo_id=repo, include_global=with_global, text=text)
    total = counts.get(wanted.status, 0)
    offset = wanted.offset
    if offset >= total > 0:
        offset = (total - 1) // PAGE_SIZE * PAGE_SIZE
    memories = store.list(
        status=wanted.status,
        kind=wanted.kind,
        limit=PAGE_SIZE,
        offset=max(0, offset),
        order=wanted.order,
        repo_id=repo,
        include_global=with_global,
        text=text,
    )
    repos = tuple(store.repos())
    legion_ids = store.legion_ids([memory.id for memory in memories])
    pinned = frozenset(store.pinned_ids() & {memory.id for memory in memories})
    return ListPage(
        replace(wanted, offset=max(0, offset)), tuple(memories), total, counts, kind_counts, repos, legion_ids, pinned
    )


def list_columns(wanted: ListFilter, width: int) -> list[Column]:
    """The columns for ``wanted``'s sort and a table ``width`` wide: sorting by access shows the access count;
    the text takes the width the others leave, and on a narrow table the status goes (unless the list shows
    every status), then the repo (when the list shows one repo)."""
    last = ("access", "access", 6) if wanted.order == "access" else ("age", "age", 4)
    droppable = [
        *(["status"] if wanted.status != "all" else []),
        *(["repo"] if wanted.repo not in (THIS_REPO, ALL_REPOS) else []),
    ]
    # the id column holds the pin mark too: ◆ 123456, or ● ◆ 1234 when marked
    return fit_columns(
        [
            ("id", "id", 8),
            ("status", "status", 10),
            ("kind", "kind", 12),
            ("repo", "repo", 12),
            last,
            ("content", "topic · content", None),
        ],
        width,
        droppable,
    )


def memory_cells(
    memory: Memory, now: datetime, columns: list[Column], order: str, id_cell: Text, legion_id: str | None = None
) -> list[Text]:
    """One row in ``columns`` (``id_cell`` its id); an imported memory's text starts with its Legion record ID."""
    text = topic_content_cell(memory.topic, memory.content)
    if legion_id:
        text = Text.assemble((one_line(legion_id), "bold cyan"), " ", text, no_wrap=True, end="")
    last = (
        Text(str(memory.access_count), justify="right", end="")
        if order == "access"
        else age_cell(memory.created_at, now)
    )
    width = next((w for key, _, w in columns if key == "content"), None)
    if width is not None:  # cut with … at the column's edge, as DataTable itself only clips
        text.truncate(width, overflow="ellipsis")
    cells = {
        "id": id_cell,
        "status": status_cell(memory.status),
        "kind": kind_cell(memory.kind),
        "repo": cell(memory.repo_id, "dim"),
        "access": last,
        "age": last,
        "content": text,
    }
    return [cells[key] for key, _, _ in columns]
