"""Printing within ``--budget TOKENS``: the exact text (or JSON) that is printed is what the budget is measured on.

Text output is rendered as it is piped (``output.print_table``'s layout for a non-terminal), also in a terminal,
so that what the budget measured is what appears. See ``memory.budget`` for how tokens are estimated.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from mneme_tui.memory.budget import Render, fit

T = TypeVar("T")


def captured(show: Callable[[], object]) -> str:
    """What ``show()`` prints on stdout, laid out as when stdout is piped."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        show()
    return buffer.getvalue()


def text_render(show: Callable[[Sequence[T]], object], noun: str) -> Render[T]:
    """A render of the items as ``show`` prints them, then the budget's one-line note about ``noun``s."""
    return lambda kept, omission: captured(lambda: show(kept)) + omission.line(noun) + "\n"


def print_within(items: Sequence[T], budget: int, render: Render[T]) -> list[T]:
    """Print the best whole ``items`` that fit in ``budget`` tokens; the items printed."""
    fitted = fit(items, budget, render)
    sys.stdout.write(render(fitted.kept, fitted.omission))
    return fitted.kept
