"""The compat module: each fast path over private internals gives what its public fallback gives."""

from __future__ import annotations

import json

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist

from mneme_tui import compat
from mneme_tui.tui.screenshots import settle

from .conftest import SIZE

VALUES = [
    {"id": "O-1", "summary": 'naïve — ünïcode ✓ "quoted" \\ back', "tags": ["a", "b"], "n": 3, "ok": True, "x": None},
    [1.5, "two", {"nested": []}],
    "plain string",
]


def test_the_installed_versions_take_the_fast_paths():
    assert compat.textual_internals()
    assert compat.json_internals()


@pytest.mark.parametrize("fast", [True, False])
def test_json_encoder_writes_what_json_dumps_writes(monkeypatch, fast):
    monkeypatch.setattr(compat, "json_internals", lambda: fast)
    encode = compat.json_encoder()
    for value in VALUES:
        assert encode(value) == json.dumps(value, ensure_ascii=False)


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        table: DataTable = DataTable()
        table.add_column("id", key="id")
        table.add_column("text", key="text", width=12)
        for n in range(5):
            table.add_row(Text(str(n)), Text(f"row {n}"), key=str(n))
        yield table


@pytest.mark.parametrize("fast", [True, False])
async def test_set_table_cell_changes_exactly_one_cell(monkeypatch, fast):
    monkeypatch.setattr(compat, "textual_internals", lambda: fast)
    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(DataTable)
        await settle(pilot)
        compat.set_table_cell(table, "2", "text", Text("changed"))
        await settle(pilot)
        assert [table.get_row(str(n))[1].plain for n in range(5)] == ["row 0", "row 1", "changed", "row 3", "row 4"]
        rendered = [table.render_line(y).text for y in range(1, 6)]
        assert "changed" in rendered[2] and all("changed" not in line for i, line in enumerate(rendered) if i != 2)
        with pytest.raises(CellDoesNotExist):
            compat.set_table_cell(table, "99", "text", Text("nowhere"))


@pytest.mark.parametrize("fast", [True, False])
async def test_prepare_mode_builds_the_screen_early_or_leaves_it_for_later(monkeypatch, demo_app, fast):
    monkeypatch.setattr(compat, "textual_internals", lambda: fast)
    async with demo_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        compat.prepare_mode(demo_app, "prune")
        await settle(pilot)
        assert ("prune" in demo_app.mounted_modes) == fast
        await pilot.press("escape", "4")
        await settle(pilot)
        assert demo_app.current_mode == "prune" and "prune" in demo_app.mounted_modes
