"""``mneme`` with no command: open the app on the user's store, or on a throwaway demo workspace."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from mneme_tui import config
from mneme_tui.errors import MnemeError
from mneme_tui.memory.ranking import DEFAULT_PROFILE
from mneme_tui.memory.store import Store

if TYPE_CHECKING:
    from mneme_tui.tui.app import MnemeApp


def launch(args: argparse.Namespace) -> int:
    """Run the TUI until the user quits; returns the exit status (Textual is imported here, not before)."""
    from mneme_tui.tui.app import MnemeApp
    from mneme_tui.tui.context import AppContext

    profile = _profile(args)
    if getattr(args, "demo", False):
        from mneme_tui.demo import build_demo_workspace

        with tempfile.TemporaryDirectory(prefix="mneme-demo-") as folder:
            workspace = build_demo_workspace(Path(folder), config.now())
            config.use_settings_copy(workspace.config_path)  # a theme chosen in the demo stays in the demo
            store = Store(workspace.db_path)
            try:
                ctx = AppContext(
                    store=store,
                    repo=workspace.repo,
                    legion_dir=workspace.legion_dir,
                    profile=profile,
                    demo=True,
                    claude_home=workspace.claude_home,
                    read_only=_read_only(args),
                )
                return _run(MnemeApp(ctx))
            finally:
                store.close()
    store = Store(config.resolve_db_path(getattr(args, "db", None)))
    try:
        ctx = AppContext(
            store=store,
            repo=config.resolve_repo(getattr(args, "project", None)),
            legion_dir=config.project_legion_dir(getattr(args, "legion_dir", None)),
            profile=profile,
            read_only=_read_only(args),
        )
        return _run(MnemeApp(ctx))
    finally:
        store.close()


def _profile(args: argparse.Namespace) -> str:
    try:
        return config.resolve_profile(getattr(args, "profile", None), DEFAULT_PROFILE)
    except MnemeError:  # the profile is a nicety; a broken config file is reported by the CLI commands
        return DEFAULT_PROFILE


def _read_only(args: argparse.Namespace) -> bool:
    """``--read-only``, else the config file's ``read_only`` (a broken setting opens read-only: the safe side)."""
    if getattr(args, "read_only", False):
        return True
    try:
        return config.flag_setting("read_only", False)
    except MnemeError:
        return True


def _run(app: MnemeApp) -> int:
    app.run()
    return int(app.return_code or 0)
