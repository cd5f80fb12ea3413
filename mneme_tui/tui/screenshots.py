"""Make the README screenshots: ``python -m mneme_tui.tui.screenshots [FOLDER]`` (default ``screenshots/``).

Each screen is driven headless on the generated demo workspace with a fixed clock and fixed data, and
saved as an SVG; running it again writes byte-identical files. The workspace lives in a temporary
folder that is the working directory while the app runs, so the header shows relative paths only.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

SCREENSHOT_NOW = datetime(2026, 3, 1, 12, 0, 0)
SIZE = (120, 36)


async def _settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause(0.05)
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _type(pilot, text: str) -> None:
    pilot.app.screen.query_one("#query").value = text
    await _settle(pilot)


def _scenes() -> list[tuple[str, Callable[..., Awaitable[None]]]]:
    async def recall(pilot):
        await _type(pilot, "sqlite lock timeout")

    async def memories(pilot):
        await pilot.press("escape", "2")
        await _settle(pilot)
        await pilot.press("down", "down", "space", "down", "space")
        await _settle(pilot)

    async def memory_detail(pilot):
        await pilot.press("escape", "2")
        await _settle(pilot)
        await pilot.press("d")
        await _settle(pilot)
        await pilot.press("u")
        await _settle(pilot)
        pilot.app.clear_notifications()
        await pilot.press("enter")
        await _settle(pilot)

    async def briefing(pilot):
        await pilot.press("escape", "3")
        await _settle(pilot)

    async def prune(pilot):
        await pilot.press("escape", "4")
        await _settle(pilot)

    async def prune_confirm(pilot):
        await prune(pilot)
        await pilot.press("a")
        await _settle(pilot)

    async def graduation(pilot):
        await pilot.press("escape", "5")
        await _settle(pilot)

    async def help_screen(pilot):
        await _settle(pilot)
        await pilot.press("f1")
        await _settle(pilot)

    return [
        ("recall", recall), ("memories", memories), ("memory-detail", memory_detail), ("briefing", briefing),
        ("prune", prune), ("prune-confirm", prune_confirm), ("graduation", graduation), ("help", help_screen),
    ]


async def _shoot(name: str, scene, workspace, out: Path) -> Path:
    from mneme_tui.memory.store import Store
    from mneme_tui.tui.app import MnemeApp
    from mneme_tui.tui.context import AppContext

    store = Store(workspace.db_path)
    try:
        ctx = AppContext(store=store, repo=workspace.repo, legion_dir=workspace.legion_dir,
                         claude_home=workspace.claude_home, demo=True)
        app = MnemeApp(ctx, poll_interval=None, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            await _settle(pilot)
            await scene(pilot)
            await _settle(pilot)
            svg = app.export_screenshot(title=f"mneme — {name}")
    finally:
        store.close()
    path = out / f"{name}.svg"
    path.write_text(svg, encoding="utf-8")
    return path


def make_screenshots(out: Path) -> list[Path]:
    """Write one SVG per scene into ``out``; returns their paths."""
    from mneme_tui.demo import build_demo_workspace

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    saved_env = {name: os.environ.get(name) for name in ("MNEME_NOW", "HOME")}
    saved_cwd = Path.cwd()
    written = []
    with tempfile.TemporaryDirectory(prefix="mneme-screens-") as temp:
        os.environ["MNEME_NOW"] = SCREENSHOT_NOW.isoformat()
        os.environ["HOME"] = temp
        try:
            os.chdir(temp)
            for name, scene in _scenes():
                folder = Path("demo")  # a fresh workspace per scene: scenes that write never affect others
                workspace = build_demo_workspace(folder, SCREENSHOT_NOW)
                written.append(asyncio.run(_shoot(name, scene, workspace, out)))
                shutil.rmtree(folder)
        finally:
            os.chdir(saved_cwd)
            for key, value in saved_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else Path("screenshots")
    for path in make_screenshots(out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
