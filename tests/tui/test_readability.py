"""Readable Recall: the matched words highlighted (by the ranking's own analysis), Legion record IDs, and a
layout that gives the memory text the width from 80×24 to 200×50."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from provenances import SAVED
from rich.text import Text

from mneme_tui.legion.markdown.schemas import OUTCOMES
from mneme_tui.legion.mirror.sync import sync
from mneme_tui.memory.matched_spans import matched_spans
from mneme_tui.memory.store import Store
from mneme_tui.tui.highlight import MATCH_STYLE, highlight
from mneme_tui.tui.screenshots import settle
from mneme_tui.tui.widgets.memory_detail import MemoryDetail
from mneme_tui.tui.widgets.results_table import ResultsTable

from .conftest import type_text


def _words(text: str, query: str, profile: str) -> list[str]:
    return [text[start:end] for start, end in matched_spans(text, query, profile)]


# ------------------------------------------------------------------------------- matched_spans (pure)
def test_bm25_spans_follow_the_analysis_stems_identifier_parts_no_stop_words() -> None:
    text = "Locked the useCartStore when locking; the DB lock_timeout"
    assert _words(text, "the lock cart store", "bm25") == ["Locked", "CartStore", "locking", "lock"]
    assert _words(text, "THE", "bm25") == []  # a stop word matches nothing, as in the ranking


def test_spec_spans_are_whole_lowercase_words() -> None:
    text = "Locked the useCartStore when locking; the DB lock_timeout"
    assert _words(text, "the lock cart", "spec") == ["the", "the", "lock"]


def test_spans_are_sorted_disjoint_and_inside_the_text() -> None:
    text = "naïve café: [bold]x[/bold] NaiveCafé"
    spans = matched_spans(text, "café bold", "bm25")
    assert spans == sorted(spans)
    assert all(0 <= a < b <= len(text) for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in itertools.pairwise(spans))
    assert matched_spans(text, "", "bm25") == [] and matched_spans("", "x", "spec") == []


def test_highlight_styles_spans_and_keeps_markup_literal() -> None:
    text = highlight(Text("[bold]lock[/bold] [@click=app.quit]"), "bold lock click", "bm25")
    assert text.plain == "[bold]lock[/bold] [@click=app.quit]"
    styled = {text.plain[span.start : span.end] for span in text.spans if span.style == MATCH_STYLE}
    assert styled == {"bold", "lock", "click"}  # matched as words, still shown as typed


# ------------------------------------------------------------------------------- the Recall list
def _table(app) -> ResultsTable:
    return app.screen.query_one("#results", ResultsTable)


def _legion_store(tmp: Path) -> Store:
    legion = tmp / "memory"
    legion.mkdir()
    rows = "".join(
        f"| O-00{n} | 2026-01-1{n} | main | 1 | 01-0{n} | agent-a | e2e | failure | 2 | e2e "
        f"| playwright booking flow failed |\n"
        for n in range(1, 5)
    )
    (legion / "OUTCOMES.md").write_text(OUTCOMES.template + rows, encoding="utf-8")
    store = Store(tmp / "legion.db")
    sync(store, legion, "atlas-api")
    return store


async def test_imported_rows_show_their_legion_ids_and_highlighted_words(make_app) -> None:
    app = make_app(_legion_store(Path(".")))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await type_text(pilot, "playwright booking")
        await settle(pilot)
        table = _table(app)
        memory_cells = [table.get_row(key)[-1] for key in table.row_keys]
        assert sorted(cell.plain.split()[0] for cell in memory_cells) == ["O-001", "O-002", "O-003", "O-004"]
        assert len({cell.plain for cell in memory_cells}) == 4  # four identical summaries now read apart
        first = memory_cells[0]
        marked = {first.plain[span.start : span.end] for span in first.spans if span.style == MATCH_STYLE}
        assert marked == {"playwright", "booking"}
        body = app.screen.query_one(MemoryDetail).query_one(".detail-body").content
        assert isinstance(body, Text)
        assert {body.plain[s.start : s.end] for s in body.spans if s.style == MATCH_STYLE} >= {"playwright", "booking"}


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)])
async def test_memory_text_gets_most_of_the_width(demo_app, size: tuple[int, int]) -> None:
    async with demo_app.run_test(size=size) as pilot:
        await settle(pilot)
        demo_app.screen.query_one("#query").value = "sqlite lock timeout"
        await settle(pilot)
        table = _table(demo_app)
        widths = table._widths(table.size.width)
        assert widths[-1] >= table.size.width // 2  # the memory text takes at least half the list
        for key in table.row_keys:  # kind and repo are never cut
            kind, repo = (table.get_row(key)[i].plain for i in (1, 2))
            assert widths[1] >= len(kind) and widths[2] >= len(repo)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)])
def test_recall_layout_snapshot(snap_compare, demo_app, size: tuple[int, int]) -> None:
    async def run_before(pilot):
        pilot.app.screen.query_one("#query").value = "sqlite lock timeout"
        await settle(pilot)

    assert snap_compare(demo_app, terminal_size=size, run_before=run_before)


# ------------------------------------------------------------------------------- the chosen theme is kept
def test_save_setting_keeps_other_keys_and_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tomllib

    from mneme_tui import config

    path = tmp_path / "config.toml"
    monkeypatch.setenv("MNEME_CONFIG", str(path))
    path.write_text('# mine\nprofile = "spec"\n\n[extra]\ntheme = "not this one"\n', encoding="utf-8")
    config.save_setting("theme", 'gruvbox "x"')
    config.save_setting("theme", "nord")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data == {"profile": "spec", "theme": "nord", "extra": {"theme": "not this one"}}
    assert path.read_text(encoding="utf-8").startswith("# mine\n")
    assert config.saved_theme() == "nord"
    assert not list(tmp_path.glob(".config.toml.*"))  # no temp file left behind


def test_broken_settings_file_is_not_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mneme_tui import config
    from mneme_tui.errors import MnemeError

    path = tmp_path / "config.toml"
    monkeypatch.setenv("MNEME_CONFIG", str(path))
    path.write_text("profile = \n", encoding="utf-8")
    with pytest.raises(MnemeError, match="not valid TOML"):
        config.save_setting("theme", "nord")
    assert path.read_text(encoding="utf-8") == "profile = \n"


async def test_chosen_theme_is_saved_and_used_next_time(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mneme_tui import config

    monkeypatch.setenv("MNEME_CONFIG", str(tmp_path / "config.toml"))
    app = make_app(Store(Path("theme.db")))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not (tmp_path / "config.toml").exists()  # starting does not write
        app.theme = "nord"
        await settle(pilot)
    assert config.saved_theme() == "nord"
    again = make_app(Store(Path("theme.db")))
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert again.theme == "nord"


# ------------------------------------------------------------------------------- demo data tells a true story
def test_demo_superseded_and_dismissed_memories_have_history_and_real_links(demo) -> None:
    store = Store(demo.db_path)
    try:
        superseded = store.list(status="superseded", limit=None)
        dismissed = store.list(status="tombstoned", limit=None)
        assert superseded and dismissed
        for memory in superseded:
            detail = store.detail(memory.id)
            assert detail.superseded_by is not None and detail.superseded_by.content == "Update: " + memory.content
            assert [entry.to_status for entry in detail.history] == ["superseded"]
        for memory in dismissed:
            assert [entry.to_status for entry in store.history(memory.id)] == ["tombstoned"]
    finally:
        store.close()


async def test_scope_and_hints_read_right_for_global_and_all_repos(make_app) -> None:
    from mneme_tui.tui.widgets.chips import ChipBar

    app = make_app(Store(Path("empty.db")), repo="global")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        chips = plain_chips(app.screen.query_one("#recall-options", ChipBar))
        assert "scope  global " in chips and "+global" not in chips
        await type_text(pilot, "nothing")
        await settle(pilot)
        assert "Try ^g" in plain_detail(app)
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert "all repos" in plain_chips(app.screen.query_one("#recall-options", ChipBar))
        assert "Try ^g" not in plain_detail(app) and "any repo" in plain_detail(app)


def plain_chips(bar) -> str:
    return str(bar.render())


def plain_detail(app) -> str:
    from .conftest import plain

    return plain(app.screen.query_one(MemoryDetail).query_one(".detail-body"))


# ------------------------------------------------------------------------------- markdown in content
MARKDOWN = (
    "Deploy notes [bold]not bold[/bold] [/x] [@click=app.quit]quit[/]\n\n"
    "| step | command |\n|---|:---:|\n| migrate | `make db` |\n| verify [b] | curl /health |\n\n"
    '```sh\necho "[red]not red[/red]"\n```\nend'
)


def test_readable_text_aligns_tables_shades_fences_and_stays_literal() -> None:
    from mneme_tui.tui.markdown_text import CODE_STYLE, readable_text

    text = readable_text(MARKDOWN)
    lines = text.plain.split("\n")
    assert lines[0] == "Deploy notes [bold]not bold[/bold] [/x] [@click=app.quit]quit[/]"
    table = lines[2:6]
    assert table == [
        "step       │ command     ",
        "───────────┼─────────────",
        "migrate    │ `make db`   ",
        "verify [b] │ curl /health",
    ]
    assert lines[7:10] == ["```sh", 'echo "[red]not red[/red]"', "```"] and lines[-1] == "end"
    code_start = text.plain.index('echo "[red]')
    assert any(span.style == CODE_STYLE and span.start == code_start for span in text.spans)
    plain_note = "no table\n  nor fence [x]\x1b\n"
    assert readable_text(plain_note).plain == "no table\n  nor fence [x]\\x1b\n"


async def test_markdown_content_reads_in_the_detail_pane_without_markup(make_app) -> None:
    store = Store(Path("markdown.db"))
    store.mint(MARKDOWN, kind="decision", topic="Deploy", repo_id="atlas-api", provenance=SAVED)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        body = plain_detail(app)
        assert "[bold]not bold[/bold] [/x] [@click=app.quit]quit[/]" in body
        assert "verify [b] │ curl /health" in body and 'echo "[red]not red[/red]"' in body
        await pilot.click(MemoryDetail, offset=(40, 3))  # clicking the text runs no embedded action
        await settle(pilot)
        assert app.is_running
