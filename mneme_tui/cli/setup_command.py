"""``mneme setup AGENT``: wire ``mneme mcp`` (and Claude Code's SessionStart hook) into a coding agent's own
configuration file (issue 23); ``--remove`` undoes exactly what it wrote. See docs/setup.md."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from mneme_tui import config
from mneme_tui.agent_setup.names import AGENT_NAMES, SCOPES
from mneme_tui.cli import arguments, output

if TYPE_CHECKING:
    from mneme_tui.agent_setup.wiring import SetupResult

SAID = {
    "added": "added",
    "removed": "removed",
    "unchanged": "already there:",
    "absent": "not there:",
    "kept": "kept (differs from what setup writes; edit it by hand):",
}
WOULD = {"added": "would add", "removed": "would remove"}


def register(sub: argparse._SubParsersAction) -> None:
    parser = arguments.add_command(sub, "setup", "register mneme's MCP server (and hook) with a coding agent")
    parser.add_argument("agent", metavar="AGENT", choices=AGENT_NAMES, help=f"one of: {', '.join(AGENT_NAMES)}")
    parser.add_argument(
        "--scope",
        choices=SCOPES,
        default="project",
        help="project: the project's own files (default); user: your files in the home folder",
    )
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="the project folder (default: the enclosing git work tree, else the current folder)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print what would change, write nothing")
    parser.add_argument("--remove", action="store_true", help="remove exactly the entries setup writes")
    parser.set_defaults(func=cmd_setup)


def cmd_setup(args: argparse.Namespace) -> int:
    from mneme_tui.agent_setup.wiring import set_up_agent

    if args.scope == "user":
        base = Path.home()
    else:
        base = Path(args.root) if args.root else config.find_git_root() or Path.cwd()
    result = set_up_agent(args.agent, args.scope, base.resolve(), remove=args.remove, dry_run=args.dry_run)
    if args.json:
        output.print_json(result.to_json())
    else:
        print_result(result)
    return 0


def print_result(result: SetupResult) -> None:
    """One line per entry, then the backups."""
    for change in result.files:
        path = output.literal(str(change.path))
        for label, action in change.changes:
            said = WOULD.get(action, SAID[action]) if result.dry_run else SAID[action]
            print(f"{said} {label} in {path}{' (new file)' if change.status == 'created' else ''}")
        if change.backup:
            print(f"backup of the previous {path}: {output.literal(str(change.backup))}")
