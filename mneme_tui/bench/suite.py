"""The whole of ``mneme bench``: the store at each size (and on PostgreSQL with a URL), the Legion import, and
the TUI with ``tui``; one report with every target checked."""

from __future__ import annotations

from typing import Any

from mneme_tui.bench import store_bench
from mneme_tui.bench.legion_bench import bench_import, import_targets


def run_suite(sizes: list[int], postgresql_url: str | None = None, *, tui: bool = False) -> dict[str, Any]:
    """Every benchmark: ``{"<size>": figures, ..., "targets": [...], "legion_import": {...}}``, plus
    ``"postgresql"`` with a URL and ``"tui"`` when ``tui`` is set."""
    report: dict[str, Any] = store_bench.run(sizes, postgresql_url)
    legion = report["legion_import"] = bench_import()
    report["targets"].extend(import_targets(legion))
    if tui:
        from mneme_tui.bench.tui_bench import bench_tui  # Textual only when the TUI is measured

        report["tui"] = bench_tui()
    return report
