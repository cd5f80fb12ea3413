"""The words every match of a regular expression contains, read from its source text (the secret prescreen's
gates: ``secrets._gates``).

A small reader of Python's ``re`` syntax that only has to be right when it names a word: whatever it does not
understand contributes no word (a class, a lookaround, a group with its own flags, an optional part), and a
construct it cannot read at all (a backreference, a numeric escape, a conditional) gives the
whole pattern no words, so the pattern is then searched in every text. Under IGNORECASE the words are of
printable ASCII and case-folded (``fold``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

Requirement = tuple[str, ...]
"""Words one of which is in every match."""

_CONTROL_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_CLASS_ESCAPES = frozenset("dDwWsSbBAZ")
"""Escapes that stand for a class of characters or a position: no literal character."""
_FLAG_LETTERS = frozenset("aiLmsux-")
_VERBOSE_IGNORED = frozenset(" \t\n\r\v\f#")
_QUANTIFIER = re.compile(r"\*|\+|\?|\{(\d*)(?:(,)(\d*))?\}")


class Unreadable(ValueError):
    """A construct this reader does not follow: the pattern gets no words."""


def required_words(pattern: re.Pattern[str], fold: Callable[[str], str]) -> list[Requirement]:
    """What every match of ``pattern`` contains: requirements, each a tuple of words one of which is in the
    match (none: nothing known; never a word with a newline). Under IGNORECASE the words are ``fold``-ed."""
    reader = _Reader(pattern.pattern, bool(pattern.flags & re.IGNORECASE), fold, bool(pattern.flags & re.VERBOSE))
    try:
        needs = reader.alternation()
        if reader.position != len(reader.text):
            raise Unreadable("unbalanced parenthesis")
    except (Unreadable, IndexError):
        return []
    return needs


@dataclass
class _Reader:
    text: str
    folded: bool
    fold: Callable[[str], str]
    verbose: bool
    position: int = 0
    word: list[str] = field(default_factory=list)

    def alternation(self) -> list[Requirement]:
        """Branches separated by ``|`` up to a ``)`` or the end: each requirement one branch has, joined."""
        branches = [self.branch()]
        while self.position < len(self.text) and self.text[self.position] == "|":
            self.position += 1
            branches.append(self.branch())
        if len(branches) == 1:
            return branches[0]
        if not all(branches):
            return []
        return [tuple(word for needs in branches for word in _best(needs))]

    def branch(self) -> list[Requirement]:
        """A run of pieces: the literal runs between them, and what required groups need."""
        needs: list[Requirement] = []
        while self.skip_ignored() and self.text[self.position] not in "|)":
            char, inner = self.atom()
            least, exact = self.quantifier()
            if char is not None and least >= 1:
                self.word.append(char * least)
                if not exact:
                    self.end_word(needs)
                continue
            self.end_word(needs)
            if least >= 1:
                needs += inner
        self.end_word(needs)
        return needs

    def skip_ignored(self) -> bool:
        """Past the white space and comments VERBOSE mode ignores; whether any pattern text is left."""
        while self.verbose and self.position < len(self.text) and self.text[self.position] in _VERBOSE_IGNORED:
            if self.text[self.position] == "#":
                newline = self.text.find("\n", self.position)
                self.position = len(self.text) if newline < 0 else newline
            self.position += 1
        return self.position < len(self.text)

    def end_word(self, needs: list[Requirement]) -> None:
        if self.word:
            needs.append(("".join(self.word),))
        self.word = []

    def atom(self) -> tuple[str | None, list[Requirement]]:
        """The next atom: its literal character (None when it is not one) and what it needs."""
        char = self.text[self.position]
        self.position += 1
        if char == "(":
            return None, self.group()
        if char == "[":
            self.skip_class()
            return None, []
        if char in ".^$":
            return None, []
        if char in "*+?":
            raise Unreadable("a quantifier with nothing to repeat")
        if char == "\\":
            return self.escape(), []
        return self.literal(char), []

    def literal(self, char: str) -> str | None:
        """``char`` as a word's character, or None when it cannot be one (a newline; under IGNORECASE,
        anything but printable ASCII)."""
        if char == "\n" or (self.folded and not (char.isascii() and char.isprintable())):
            return None
        return self.fold(char) if self.folded else char

    def escape(self) -> str | None:
        char = self.text[self.position]
        self.position += 1
        if char in _CLASS_ESCAPES:
            return None
        if char in _CONTROL_ESCAPES:
            return self.literal(_CONTROL_ESCAPES[char])
        if char.isalnum():  # \x41, \u…, \N{…}, \0, a backreference: not read
            raise Unreadable(f"escape \\{char}")
        return self.literal(char)

    def skip_class(self) -> None:
        """Past the ``]`` that closes a ``[`` class (``[]…]`` and ``[^]…]`` hold a literal ``]``)."""
        start = self.position
        while True:
            char = self.text[self.position]
            self.position += 1
            if char == "\\":
                self.position += 1
            elif char == "]" and self.position - 1 > start and self.text[start : self.position - 1] != "^":
                return

    def group(self) -> list[Requirement]:
        """A group after its ``(``: what a plain or named group needs; nothing for a lookaround or a group
        with its own flags."""
        needs_kept = True
        if self.text.startswith("?", self.position):
            head = self.text[self.position + 1]
            if head == ":":
                self.position += 2
            elif head == "P" and self.text.startswith("<", self.position + 2):
                self.position = self.text.index(">", self.position) + 1
            elif head == "#":
                self.position = self.text.index(")", self.position) + 1
                return []
            elif head in "=!<":
                self.position += 3 if head == "<" else 2
                needs_kept = False
            elif head == ">":  # an atomic group: matched like a plain one
                self.position += 2
            elif head in _FLAG_LETTERS:  # inline flags: (?i) or (?i:…)
                end = min(i for i in (self.text.find(":", self.position), self.text.find(")", self.position)) if i > 0)
                scoped = self.text[end] == ":"
                self.position = end + 1
                if not scoped:
                    return []
                needs_kept = False
            else:
                raise Unreadable(f"group (?{head}")
        saved, self.word = self.word, []
        inner = self.alternation()
        self.word = saved
        if self.text[self.position] != ")":
            raise Unreadable("unclosed group")
        self.position += 1
        return inner if needs_kept else []

    def quantifier(self) -> tuple[int, bool]:
        """The quantifier after an atom: the fewest repeats and whether that is the only count (1, True: none)."""
        self.skip_ignored()
        match = _QUANTIFIER.match(self.text, self.position)
        if match is None or (match.group(0).startswith("{") and not (match.group(1) or match.group(2))):
            return 1, True  # (a "{" that is not a quantifier is a literal, read as the next atom)
        self.position = match.end()
        if self.position < len(self.text) and self.text[self.position] in "?+":  # lazy or possessive
            self.position += 1
        token = match.group(0)
        if token in "*?":
            return 0, False
        if token == "+":
            return 1, False
        least = int(match.group(1) or 0)
        return least, match.group(2) is None


def _best(needs: list[Requirement]) -> Requirement:
    """The requirement whose shortest word is longest (the most selective)."""
    return max(needs, key=lambda alternatives: min(map(len, alternatives)))
