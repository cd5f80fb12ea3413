"""``mneme mcp``: serve the memory to an agent over the Model Context Protocol (stdio).

The server and its tools live in :mod:`mneme_tui.mcp`; it is imported only when this command
runs, so other commands never pay for the ``mcp`` SDK.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from mneme_tui import config
from mneme_tui.cli import arguments
from mneme_tui.errors import MnemeError

if TYPE_CHECKING:
    from mneme_tui.memory.store import Store


def register(sub: argparse._SubParsersAction) -> None:
    mcp = arguments.add_command(sub, "mcp", "serve the memory to an agent as MCP tools over stdio", json_option=False)
    mcp.add_argument(
        "-p",
        "--project",
        metavar="REPO",
        help="the active repository (default: $MNEME_REPO or the git work tree's name)",
    )
    mcp.add_argument(
        "--legion-dir", metavar="DIR", help="Legion memory folder (default: $MNEME_LEGION_DIR or .planning/memory)"
    )
    mcp.add_argument(
        "--root",
        metavar="DIR",
        help="repository work tree for task sync and handshake (default: the enclosing git work tree)",
    )
    arguments.add_profile_option(mcp)
    mcp.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from mneme_tui.cli.task_commands import _root
    from mneme_tui.mcp.server import ServerContext, serve

    root = _root(args)  # the same --root check and default as `mneme task sync` and `mneme handshake`
    opened: Store | MnemeError
    try:
        opened = arguments.open_store(args, create=True)
    except MnemeError as exc:  # start anyway: each call answers why (and the index warm-up says it on stderr)
        opened = exc
    serve(
        ServerContext(
            opened=opened,
            repo=config.resolve_repo(args.project, start=root),
            profile=arguments.resolve_profile(args),
            root=root,
            legion_dir=config.resolve_legion_dir(args.legion_dir, start=root),
        )
    )
    return 0
