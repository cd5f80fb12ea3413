"""Token budgets (``--budget TOKENS``): how many tokens a text costs an agent, and the best whole items that fit.

Tokens are estimated, not counted by a model's tokenizer (none ships with mneme): the text is cut into runs
and each run costs

- a run of ASCII letters: ⌈length / 5⌉ (most English words are one token, long identifiers several);
- a run of digits: ⌈length / 3⌉ (tokenizers group digits by up to three);
- a run of ASCII punctuation (``|``, ``**``, ``":``, ``_``), or of one symbol repeated four times or more
  (``----``, a table's ``────`` rule): ⌈length / 2⌉;
- each line break: 1; a run of two or more spaces or tabs: 1; a single space: 0 (it joins the next word);
- any other character (accented letters, CJK, emoji, box drawing): 1 each.

Measured against OpenAI's ``cl100k_base`` (docs/ranking-lean.md), the estimate is above the real count for
almost every text: the real count is about 0.82 of the estimate, at most 1.00 of it on mneme's own outputs
and the demo's memories, and at most 1.07 of it on the Legion corpus paragraphs measured.

:func:`fit` keeps the best items (in the order given) whose output fits: each item is taken or left out whole,
and an item that does not fit is skipped so that a smaller, lower-ranked one can still come in. The output
says how many were left out and which ``--budget`` would hold them all (:class:`Omission`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from mneme_tui.display import json_document
from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError

T = TypeVar("T")

_PIECES = re.compile(
    r"(?P<letters>[A-Za-z]+)|(?P<digits>[0-9]+)|(?P<repeated>(?P<symbol>[^\sA-Za-z0-9])(?P=symbol){3,})"
    r"|(?P<punctuation>[!-/:-@\[-`{-~]+)|(?P<one>\n|[ \t]{2,}|[^\s])"
)
_PER_TOKEN = {"letters": 5, "digits": 3, "repeated": 2, "punctuation": 2, "one": 1_000_000}  # "one": any length: 1


def estimate_tokens(text: str) -> int:
    """The estimated token count of ``text`` (see the module docstring for the rule)."""
    return sum(math.ceil(len(match.group()) / _PER_TOKEN[str(match.lastgroup)]) for match in _PIECES.finditer(text))


@dataclass(frozen=True, slots=True)
class Omission:
    """What a budget left out: how many items, and the budget that would have held every one."""

    budget: int
    left_out: int
    needed: int

    def to_json(self) -> dict[str, Any]:
        return {"tokens": self.budget, "left_out": self.left_out, "needed": self.needed}

    def line(self, noun: str, plural: str = "") -> str:
        """One line for text output, e.g. ``(2 results left out to fit --budget 300; --budget 512 holds all.)``."""
        if not self.left_out:
            return f"(nothing left out to fit --budget {self.budget}: about {self.needed} tokens)"
        plural = noun if self.left_out == 1 else plural or f"{noun}s"
        return f"({self.left_out} {plural} left out to fit --budget {self.budget}; --budget {self.needed} holds all.)"


@dataclass(frozen=True, slots=True)
class Fitted(Generic[T]):
    """The items kept (in their order) and what the budget left out."""

    kept: list[T]
    omission: Omission


Render = Callable[[Sequence[T], Omission], str]
"""The exact output for some of the items, with the omission note: what the budget is measured on."""


def fit(items: Sequence[T], budget: int, render: Render[T]) -> Fitted[T]:
    """The best whole ``items`` (given best first) whose rendered output is at most ``budget`` tokens.

    Raises ERR_VALIDATION_FAILED when the output with no item at all is already over the budget.
    """
    needed = _needed(items, budget, render)
    if estimate_tokens(render(items, Omission(budget, 0, needed))) <= budget:
        return Fitted(list(items), Omission(budget, 0, needed))
    worst = Omission(budget, len(items), needed)  # the longest note: every item left out
    frame = estimate_tokens(render([], worst))
    if frame > budget:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"--budget {budget} is below the {frame} tokens this output takes with no item at all",
        )
    kept: list[T] = []
    for item in items:  # best first; an item that does not fit is skipped, a later smaller one may still fit
        if estimate_tokens(render([*kept, item], worst)) <= budget:
            kept.append(item)
    while True:  # the note's real numbers are never longer than the worst case's, but check the real thing
        omission = Omission(budget, len(items) - len(kept), needed)
        if estimate_tokens(render(kept, omission)) <= budget or not kept:
            return Fitted(kept, omission)
        kept.pop()


def _needed(items: Sequence[T], budget: int, render: Render[T]) -> int:
    """The smallest budget found that holds every item, its own number printed in the note included."""
    needed = estimate_tokens(render(items, Omission(budget, 0, budget)))
    for _ in range(3):  # a longer number in the note can cost a token more; it settles at once in practice
        needed = max(needed, estimate_tokens(render(items, Omission(needed, 0, needed))))
    return needed


Dumps = Callable[[Any], str]
"""How a surface writes a JSON document: ``display.json_document`` (``--json``) or ``display.compact_json`` (MCP)."""


def json_render(document: Callable[[Sequence[T], Omission], Any], dumps: Dumps = json_document) -> Render[T]:
    """A render of ``document(kept, omission)`` as ``dumps`` writes it (by default as ``--json`` prints it)."""
    return lambda kept, omission: dumps(document(kept, omission)) + "\n"


def fit_json(
    items: Sequence[T], tokens: int, document: Callable[[Sequence[T], Omission], Any], dumps: Dumps = json_document
) -> Any:
    """``document`` of the best whole ``items`` whose JSON, as ``dumps`` writes it, fits in ``tokens``."""
    fitted = fit(items, tokens, json_render(document, dumps))
    return document(fitted.kept, fitted.omission)
