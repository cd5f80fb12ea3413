"""Deterministic TUI fixtures: fixed clock, temp HOME and cwd, demo data, no polling, no cursor blink.

Paths are relative to a temporary working directory, so the header (which shows the database and the
Legion folder) reads the same in every run and every snapshot.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import pytest
from textual import _wait as textual_wait

from mneme_tui.demo import DemoWorkspace, build_demo_workspace, write_claude_memory
from mneme_tui.memory.store import Store
from mneme_tui.tui.app import MnemeApp
from mneme_tui.tui.context import AppContext
from mneme_tui.tui.screenshots import settle

FIXED_NOW = "2026-03-01T12:00:00"
NOW = datetime(2026, 3, 1, 12, 0, 0)
SIZE = (100, 32)


@pytest.fixture(autouse=True)
def tui_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fixed clock, a temp HOME/cwd and no user config for every TUI test."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("MNEME_NOW", FIXED_NOW)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("MNEME_CONFIG", str(home / "no-config.toml"))
    monkeypatch.setenv("MNEME_DB", str(home / "must-not-be-used.db"))
    for name in ("MNEME_REPO", "MNEME_LEGION_DIR", "MNEME_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(work)
    return work


PILOT_SLEEP = 0.004
"""How long Pilot sleeps per look at whether the app is idle (Textual's ``_wait.SLEEP_GRANULARITY``, 20 ms)."""


@pytest.fixture(autouse=True)
def quick_idle_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot looks at whether the app is idle every ``PILOT_SLEEP`` seconds instead of every 20 ms.

    ``pilot.press`` waits for idle twice per key and ``pilot.pause()`` once, each wait at least one sleep of
    Textual's granularity: about 70 s of the TUI tests' time was spent asleep there. The tests do not rely on
    that wait to see an answer (``settle`` waits for the app's workers and pending searches), so a shorter
    look changes no outcome; the idle threshold keeps its ratio to the sleep."""
    monkeypatch.setattr(textual_wait, "SLEEP_GRANULARITY", PILOT_SLEEP)
    monkeypatch.setattr(textual_wait, "SLEEP_IDLE", PILOT_SLEEP / 20)


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo workspace, built once; tests get a fresh copy."""
    import os

    folder = tmp_path_factory.mktemp("demo-template")
    previous = os.environ.get("MNEME_NOW")
    os.environ["MNEME_NOW"] = FIXED_NOW
    try:
        build_demo_workspace(folder / "ws", NOW)
    finally:
        if previous is None:
            os.environ.pop("MNEME_NOW", None)
        else:
            os.environ["MNEME_NOW"] = previous
    return folder / "ws"


@pytest.fixture
def demo(demo_template: Path, tui_environment: Path) -> DemoWorkspace:
    """A private copy of the demo workspace under the working directory, with relative paths."""
    shutil.copytree(demo_template, tui_environment / "ws")
    ws = Path("ws")
    shutil.rmtree(ws / "home")
    write_claude_memory(ws / "atlas-api", ws / "home")  # its folder name depends on the project's path
    return DemoWorkspace(
        db_path=ws / "mneme.db",
        project_dir=ws / "atlas-api",
        legion_dir=ws / "atlas-api" / ".planning" / "memory",
        repo="atlas-api",
        claude_home=ws / "home",
    )


@pytest.fixture
def make_app():
    """Build a MnemeApp for a context (no polling, no blink); stores are closed afterwards."""
    stores: list[Store] = []

    def build(
        store: Store,
        repo: str = "atlas-api",
        legion_dir: Path | None = None,
        claude_home: Path | None = None,
        poll_interval: float | None = None,
        **extra,
    ) -> MnemeApp:
        stores.append(store)
        ctx = AppContext(
            store=store,
            repo=repo,
            legion_dir=legion_dir,
            claude_home=claude_home if claude_home is not None else Path("home"),
            **extra,
        )
        return MnemeApp(ctx, poll_interval=poll_interval, cursor_blink=False)

    yield build
    for store in stores:
        store.close()


@pytest.fixture
def demo_app(demo: DemoWorkspace, make_app):
    """The app over the demo workspace."""
    return make_app(Store(demo.db_path), repo=demo.repo, legion_dir=demo.legion_dir, claude_home=demo.claude_home)


@pytest.fixture
def empty_app(make_app):
    """The app over an empty store and no Legion folder."""
    return make_app(Store(Path("empty.db")), repo="atlas-api", legion_dir=None)


async def type_text(pilot, text: str) -> None:
    await pilot.press(*[KEY_NAMES.get(ch, ch) for ch in text])


KEY_NAMES = {
    " ": "space",
    "/": "slash",
    "[": "left_square_bracket",
    "]": "right_square_bracket",
    "@": "at",
    ".": "full_stop",
    ",": "comma",
    "_": "underscore",
    "-": "minus",
    "=": "equals_sign",
}


def plain(widget) -> str:
    """The text a Static shows (its Text, or its rich renderable rendered without styles)."""
    import io

    from rich.console import Console
    from rich.text import Text

    content = widget.content
    if isinstance(content, Text):
        return content.plain
    if isinstance(content, str):
        return content
    console = Console(width=200, file=io.StringIO(), color_system=None, legacy_windows=False)
    with console.capture() as capture:
        console.print(content)
    return capture.get()


async def wait_until(pilot, condition, timeout: float = 30.0) -> None:
    """Pause until ``condition()`` holds (the app's poll saw another process's change), at most ``timeout``
    seconds (a loaded machine polls late), then settle; the caller asserts what it waited for."""
    for _ in range(int(timeout / 0.1)):
        await pilot.pause(0.1)
        if condition():
            break
    await settle(pilot)
