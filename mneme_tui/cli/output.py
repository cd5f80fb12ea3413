"""What the commands print: JSON documents, tables, one-line errors, untrusted text shown literally."""

from __future__ import annotations

import io
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mneme_tui import display
from mneme_tui.errors import MnemeError

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import JustifyMethod, Text

    from mneme_tui.memory.records import StatusChange


def print_json(document: Any) -> None:
    """One JSON document on stdout (unicode kept as is)."""
    sys.stdout.write(display.json_document(document) + "\n")


def fail(exc: MnemeError) -> int:
    """One line on stderr naming the error code; exit status 1."""
    message = " ".join(display.printable(str(exc)).split())
    print(f"mneme: {message}", file=sys.stderr)
    return 1


def print_redactions(count: int) -> None:
    """Say on stderr how many secrets a write replaced (stdout keeps its shape, ``--json`` included)."""
    if count:
        print(
            f"mneme: {count} secret{'s' if count != 1 else ''} replaced with [REDACTED:<type>] before saving",
            file=sys.stderr,
        )


def literal(value: str) -> str:
    """A value quoted for a one-line message, control characters made visible."""
    return display.printable(value).replace("\n", "\\n")


def text(value: str) -> Text:
    """A rich Text that shows ``value`` literally: no markup, no emoji codes, controls made visible."""
    from rich.text import Text

    return Text(display.printable(value))


def age(created_at: datetime, now: datetime) -> str:
    return display.age(created_at, now)


def table(*columns: tuple[str, JustifyMethod]) -> Table:
    """A plain rich table whose cells fold instead of being cut, so no text is ever lost."""
    from rich import box
    from rich.table import Table

    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    for name, justify in columns:
        grid.add_column(name, justify=justify, overflow="fold", no_wrap=False)
    return grid


#: The width tables are laid out in when stdout is not a terminal: wide enough that no cell is ever folded.
PIPE_WIDTH = 1_000_000


def print_table(grid: Table) -> None:
    """The table on stdout: fitted to the terminal, or, piped, sized to its content (one row per line, no
    cell folded or cut) and without styles. ``NO_COLOR`` turns colour off (rich honours it)."""
    from rich.console import Console

    if sys.stdout.isatty():
        Console(markup=False, emoji=False, highlight=False, soft_wrap=False).print(grid)
        return
    console = Console(
        markup=False,
        emoji=False,
        highlight=False,
        soft_wrap=False,
        width=PIPE_WIDTH,
        no_color=True,
        color_system=None,
        file=io.StringIO(),
    )
    with console.capture() as captured:
        console.print(grid)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def print_status_change(
    as_json: bool, ids: list[int], change: StatusChange, *, key: str, done: str, unchanged: str
) -> None:
    """What a status change did: as JSON ``{key: [changed ids], "unchanged": [ids]}``, else the ``done`` and
    ``unchanged`` lines (``{ids}`` in them replaced by the ids), each only when it has ids."""
    if as_json:
        print_json(change.to_json(key, ids))
        return
    left = change.unchanged(ids)
    for template, shown in ((done, change.ids), (unchanged, left)):
        if shown:
            print(template.format(ids=", ".join(map(str, shown))))
