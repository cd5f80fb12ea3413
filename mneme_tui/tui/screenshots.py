"""Make the README screenshots: ``python -m mneme_tui.tui.screenshots [FOLDER]`` (default ``screenshots/``).

Each screen is driven headless on the generated demo workspace with a fixed clock and fixed data, and
saved as an SVG; running it again writes byte-identical files. The snapshot tests replay the same scenes
(with ``settle`` and ``press``), so a screenshot shows what a snapshot checks. The workspace lives in a temporary
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

from textual.worker import WorkerCancelled

from mneme_tui.tui.screens.recall import RecallScreen

SCREENSHOT_NOW = datetime(2026, 3, 1, 12, 0, 0)
SCREENSHOT_ACTOR = "alice@laptop"
"""Who the screenshots' changes are recorded as made by (the machine's own user@host would differ per run)."""
SIZE = (120, 36)


SETTLE_ROUNDS = 200
"""How many pauses ``settle`` waits for the app to go quiet before it gives up."""


async def settle(pilot) -> None:
    """Pause until the app is quiet: no worker runs, no search waits for its debounce or for the one before it,
    no widget of the shown screens has a message waiting, and no layout is held back.

    A pause alone is not enough on a loaded machine: Textual's pause waits until the process looks idle by its
    CPU time, and a process that is not scheduled uses none. Switching modes holds every layout back for 50 ms
    (``App.delay_update``, a timer); a worker's result shown within them keeps its old size (a ``Static`` one line
    tall) until the timer ends the hold, which neither a message nor a worker shows."""
    app = pilot.app
    for _ in range(SETTLE_ROUNDS):
        await pilot.pause()
        if app.workers or _search_pending(app):
            await wait_for_workers(app)
        elif not _messages_waiting(app) and not app._batch_count:  # Textual 8: updates held while > 0
            return
    raise AssertionError(f"the app was still busy after {SETTLE_ROUNDS} pauses")


def _messages_waiting(app) -> bool:
    """Whether the app, a screen of its stack or a widget on one has a message it has not handled yet."""
    if app.message_queue_size:
        return True
    return any(node.message_queue_size for screen in app.screen_stack for node in screen.walk_children(with_self=True))


def _search_pending(app) -> bool:
    return any(isinstance(screen, RecallScreen) and screen.search_pending for screen in app.screen_stack)


async def wait_for_workers(app) -> None:
    """Wait until every worker of ``app`` has ended. A worker cancelled by a newer one of its exclusive
    group (a stale search) ended as designed; a worker that failed raises ``WorkerFailed``."""
    ended = await asyncio.gather(*[worker.wait() for worker in app.workers], return_exceptions=True)
    for outcome in ended:
        if isinstance(outcome, BaseException) and not isinstance(outcome, WorkerCancelled):
            raise outcome


async def press(pilot, *keys: str) -> None:
    """Press ``keys``, then :func:`settle`."""
    await pilot.press(*keys)
    await settle(pilot)


def keys(text: str) -> list[str]:
    """The key names that type ``text`` (letters and spaces)."""
    return ["space" if char == " " else char for char in text]


# ------------------------------------------------------------------ scenes (the snapshot tests use them too)
async def recall_scene(pilot) -> None:
    pilot.app.screen.query_one("#query").value = "sqlite lock timeout"
    await settle(pilot)


async def memories_scene(pilot) -> None:
    await press(pilot, "escape", "2")
    await press(pilot, "down", "down", "space", "down", "space")


async def memory_detail_scene(pilot) -> None:
    """Memories: dismiss the first row, undo, then open its detail (the audit history shows both)."""
    await press(pilot, "escape", "2")
    await press(pilot, "d")
    await press(pilot, "u")
    pilot.app.clear_notifications()
    await press(pilot, "enter")


async def memory_actions_scene(pilot) -> None:
    """Memories filtered to superseded ones, the first opened: its actions and the jump to the newer one."""
    await press(pilot, "escape", "2")
    await press(pilot, "f")
    await press(pilot, "enter")


async def new_memory_scene(pilot) -> None:
    """The new-memory form, filled in (``n``)."""
    await press(pilot, "escape", "n")
    await pilot.press(*keys("Run the migrations before the traffic switch"), "tab", *keys("Deploys"))
    await press(pilot, "tab")


async def briefing_scene(pilot) -> None:
    await press(pilot, "escape", "3")


async def prune_scene(pilot) -> None:
    await press(pilot, "escape", "4")


async def prune_confirm_scene(pilot) -> None:
    await prune_scene(pilot)
    await press(pilot, "a")


async def graduation_scene(pilot) -> None:
    await press(pilot, "escape", "5")


async def review_scene(pilot) -> None:
    """Review: the demo's open proposals, best first, the first stale one highlighted (its evidence below)."""
    await press(pilot, "escape", "6")
    shown = pilot.app.screen.shown
    kinds = [proposal.kind for proposal in shown.proposals] if shown is not None else []
    await press(pilot, *["down"] * (kinds.index("stale") if "stale" in kinds else 0))


async def help_scene(pilot) -> None:
    await settle(pilot)
    await press(pilot, "f1")


SCENES: list[tuple[str, Callable[..., Awaitable[None]]]] = [
    ("recall", recall_scene),
    ("memories", memories_scene),
    ("memory-detail", memory_detail_scene),
    ("memory-actions", memory_actions_scene),
    ("new-memory", new_memory_scene),
    ("briefing", briefing_scene),
    ("prune", prune_scene),
    ("prune-confirm", prune_confirm_scene),
    ("graduation", graduation_scene),
    ("review", review_scene),
    ("help", help_scene),
]


async def _shoot(name: str, scene, workspace, out: Path) -> Path:
    from mneme_tui.memory.store import Store
    from mneme_tui.tui.app import MnemeApp
    from mneme_tui.tui.context import AppContext

    store = Store(workspace.db_path)
    try:
        ctx = AppContext(
            store=store,
            repo=workspace.repo,
            legion_dir=workspace.legion_dir,
            claude_home=workspace.claude_home,
            demo=True,
        )
        app = MnemeApp(ctx, poll_interval=None, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await scene(pilot)
            await settle(pilot)
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
    saved_env = {name: os.environ.get(name) for name in ("MNEME_NOW", "HOME", "MNEME_ACTOR")}
    saved_cwd = Path.cwd()
    written = []
    with tempfile.TemporaryDirectory(prefix="mneme-screens-") as temp:
        os.environ["MNEME_NOW"] = SCREENSHOT_NOW.isoformat()
        os.environ["HOME"] = temp
        os.environ["MNEME_ACTOR"] = SCREENSHOT_ACTOR
        try:
            os.chdir(temp)
            for name, scene in SCENES:
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
