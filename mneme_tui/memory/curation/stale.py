"""Stale by code: the code a memory names, and whether the repository's work tree still has it.

A memory names code with a *path* (``src/store/models.py``, or a bare ``README.md``), a path with
*symbols* (``Refactored src/store/store.py [Store.save]``, as task sync writes them) or a *directory
scope* (``src/store/``). ``StaleChecker`` reads the work tree once (``git ls-files``) and the history
once (``git log --name-only``) per repository, caches what it learns per path, and gives evidence of
three kinds, strongest first:

- ``missing_path``: git knew the path (it is tracked, or a commit in the history read touched it) and it
  is no longer in the work tree. A path git never knew is not judged: a URL's tail, ``and/or``,
  ``Node.js``, a file of another repository are no evidence of anything.
- ``missing_symbol``: the file exists and a named symbol is no longer defined in it. Python is parsed
  with ``ast`` (classes, functions and methods as ``Class.method``, plus assigned and imported names);
  other files, and Python that does not parse, keep a symbol while its name still occurs as a word in
  the file (a conservative word match: a declaration scanner that misses a language's syntax would
  otherwise report symbols that are still there).
- ``churned``: the file exists and changed in at least ``churn_commits`` commits since the memory was
  created (default ``DEFAULT_CHURN_COMMITS``: ordinary upkeep touches a file a few times; ten separate
  commits mean it has been reworked and what a memory says about it deserves a re-check).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path, PurePosixPath

from mneme_tui.errors import ERR_IO, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory.learning.symbols import MAX_FILE_BYTES, python_symbols
from mneme_tui.validation import read_file

DEFAULT_CHURN_COMMITS = 10
GIT_TIMEOUT = 120.0
"""Seconds one git read may take (``ls-files`` and ``log`` of a very large repository)."""

MISSING_PATH_SCORE = 1.0
MISSING_SYMBOL_SCORE = 0.8
CHURN_SCORE_LOW, CHURN_SCORE_HIGH = 0.4, 0.7
"""A churned file scores from LOW at the threshold to HIGH at twice the threshold and beyond."""

SOURCE_EXTENSIONS = frozenset(
    {
        "py",
        "pyi",
        "go",
        "rs",
        "js",
        "jsx",
        "mjs",
        "cjs",
        "ts",
        "tsx",
        "java",
        "kt",
        "kts",
        "scala",
        "cs",
        "rb",
        "sh",
        "bash",
        "zsh",
        "c",
        "h",
        "cc",
        "cpp",
        "cxx",
        "hpp",
        "hh",
        "php",
        "swift",
        "m",
        "mm",
        "lua",
        "pl",
        "ex",
        "exs",
        "erl",
        "hs",
        "ml",
        "clj",
        "dart",
        "vue",
        "svelte",
        "sql",
        "proto",
        "md",
        "rst",
        "txt",
        "toml",
        "yaml",
        "yml",
        "json",
        "ini",
        "cfg",
        "conf",
        "xml",
        "html",
        "css",
        "scss",
        "tcss",
        "lock",
        "gradle",
        "mk",
        "cmake",
        "tf",
        "nix",
        "ipynb",
        "csv",
        "svg",
    }
)
"""Extensions that make a bare word a file name (``setup.py``), so ``e.g.`` and ``1.2.3`` are not."""

_EXTENSION = "|".join(sorted(SOURCE_EXTENSIONS, key=len, reverse=True))
_ANCHOR = re.compile(rf"/|\.(?:{_EXTENSION})(?![\w-])")
"""A ``/`` or a ``.ext``: every reference holds one. Both start with a literal, so the search is fast and
a memory without one (most of them) costs one scan."""
_TOKEN = re.compile(
    r"[\"'`(<\[*]*(?:\./)?"  # where a whitespace-separated token starts: quotes, brackets, emphasis, "./"
    rf"((?:[\w-][\w.-]*/)+(?:[\w-][\w.-]*)?|[\w-][\w.-]*\.(?:{_EXTENSION}))"
    r"(?![\w/@\\-])"  # the token ends here (a ":12" line number, a comma or a bracket may follow)
    r"(?:[ \t]*\[([^\[\]\n]*)\](?!\())?"  # "[Store.save, load]", but not a markdown link "[text](url)"
)
_SPACE = re.compile(r"[ \t\n]")
_SYMBOL = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*[?!]?")
_MORE = re.compile(r"\+\d+ more")
_WORD = re.compile(r"[\w$]+[?!]?")


@dataclass(frozen=True, slots=True)
class CodeRef:
    """A piece of code a memory names: a repository-relative path (a directory ends with ``/``) and the
    symbols named with it."""

    path: str
    symbols: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StaleEvidence:
    """Why a memory's code reference looks stale: ``missing_path``, ``missing_symbol`` or ``churned``."""

    ref: CodeRef
    reason: str
    detail: str
    score: float

    def to_json(self) -> dict[str, object]:
        """The evidence as the CLI's ``--json`` and the MCP tools show it."""
        return {
            "path": self.ref.path,
            "symbols": list(self.ref.symbols),
            "reason": self.reason,
            "detail": self.detail,
            "score": round(self.score, 4),
        }


def code_refs(text: str) -> list[CodeRef]:
    """The paths (with their ``[symbols]``) and directory scopes ``text`` names, in order, each once.

    A reference is a whole whitespace-separated token, so the tail of a URL (``https://x.org/a.py``),
    an absolute path (``/etc/hosts``, ``~/.config``) or ``../x`` is none.
    """
    found: dict[str, list[str]] = {}
    position = 0
    while anchor := _ANCHOR.search(text, position):
        start = _token_start(text, anchor.start())
        match = _TOKEN.match(text, start)
        if match is None or match.end(1) <= anchor.start():  # this token names no code: skip all of it
            space = _SPACE.search(text, anchor.end())
            position = space.start() if space else len(text)
            continue
        position = match.end()
        symbols = found.setdefault(match.group(1).rstrip("."), [])  # without a sentence's full stop
        if match.group(2) is not None:
            symbols.extend(name for name in _symbol_list(match.group(2)) if name not in symbols)
    return [CodeRef(path, tuple(symbols)) for path, symbols in found.items()]


def _token_start(text: str, position: int) -> int:
    """Where the whitespace-separated token holding ``position`` starts."""
    return max(text.rfind(" ", 0, position), text.rfind("\n", 0, position), text.rfind("\t", 0, position)) + 1


def _symbol_list(bracket: str) -> tuple[str, ...]:
    """The names in ``Store.save, load, +3 more``; nothing when the bracket is not a list of names."""
    names = []
    for item in (part.strip() for part in bracket.split(",")):
        if _MORE.fullmatch(item):
            continue
        if not _SYMBOL.fullmatch(item):
            return ()  # "[skip ci]", "[1]", "[x] done": not symbols
        names.append(item)
    return tuple(names)


@dataclass(frozen=True, slots=True)
class _PathIndex:
    """A set of repository paths with the directories that hold them and the files by base name."""

    files: frozenset[str]
    directories: frozenset[str]
    by_name: dict[str, tuple[str, ...]]

    @classmethod
    def of(cls, paths: Iterable[str]) -> _PathIndex:
        files = frozenset(paths)
        directories: set[str] = set()
        by_name: dict[str, list[str]] = {}
        for path in files:
            pure = PurePosixPath(path)
            by_name.setdefault(pure.name, []).append(path)
            directories.update(parent.as_posix() for parent in pure.parents if parent.as_posix() != ".")
        return cls(files, frozenset(directories), {name: tuple(sorted(found)) for name, found in by_name.items()})

    def knows(self, path: str) -> bool:
        """True when ``path`` is one of the files or one of their directories."""
        return path in self.files or path in self.directories


@dataclass(frozen=True, slots=True)
class _History:
    """The commit times (seconds since the epoch, ascending) of every path the history read touched."""

    commit_times: dict[str, list[int]]
    index: _PathIndex

    @classmethod
    def parse(cls, log: str) -> _History:
        """Parse ``git log -z --name-only --format=%x01%ct`` output."""
        times: dict[str, list[int]] = {}
        for entry in log.split("\x01")[1:]:
            stamp, *paths = entry.split("\x00")
            for path in paths:
                path = path.lstrip("\n")
                if path:
                    times.setdefault(path, []).append(int(stamp))
        for found in times.values():
            found.sort()
        return cls(times, _PathIndex.of(times))

    def commits_after(self, path: str, moment: int) -> int:
        """How many commits touched ``path`` after ``moment`` (seconds since the epoch)."""
        found = self.commit_times.get(path, [])
        return len(found) - bisect_right(found, moment)


@dataclass(frozen=True, slots=True)
class _Definitions:
    """What a file defines: ``ast`` names (qualified and short) for Python, every word otherwise."""

    method: str  # "ast", "word" or "none" (unreadable, binary, too large: cannot tell)
    names: frozenset[str] = frozenset()
    short_names: frozenset[str] = frozenset()

    def defines(self, symbol: str) -> bool:
        """False only when the file clearly no longer defines ``symbol``."""
        short = re.split(r"\.|::", symbol)[-1]
        if self.method == "ast":
            return symbol in self.names or ("." not in symbol and symbol in self.short_names)
        return self.method == "none" or short in self.names


@dataclass(frozen=True, slots=True)
class _Verdict:
    """What a reference's code says regardless of the memory's age: stale evidence, or the file whose
    churn is to be counted (None for a directory, an ambiguous name or a path git never knew)."""

    evidence: StaleEvidence | None = None
    file: str | None = None


class StaleChecker:
    """Stale-by-code evidence for the memories of one repository work tree (see the module docstring).

    ``since`` bounds the history read (the oldest memory's creation is enough); None reads all of it.
    """

    def __init__(
        self, root: Path, *, churn_commits: int = DEFAULT_CHURN_COMMITS, since: datetime | None = None
    ) -> None:
        if churn_commits < 1:
            raise MnemeError(ERR_VALIDATION_FAILED, f"churn commits must be at least 1, not {churn_commits}")
        self.root = _work_tree_root(root)
        self.churn_commits = churn_commits
        self._since = since
        listing = _git(self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        self._tree = _PathIndex.of(path for path in listing.split("\x00") if path)
        self._verdicts: dict[CodeRef, _Verdict] = {}
        self._definitions: dict[str, _Definitions] = {}

    @cached_property
    def _history(self) -> _History:
        arguments = ["log", "-z", "--no-renames", "--name-only", "--format=%x01%ct"]
        if self._since is not None:
            arguments.append(f"--since=@{_epoch(self._since)}")
        try:
            return _History.parse(_git(self.root, *arguments))
        except MnemeError:
            try:
                _git(self.root, "rev-parse", "--verify", "--quiet", "HEAD")
            except MnemeError:  # a repository without a commit yet has no history to read
                return _History.parse("")
            raise

    def evidence(self, text: str, created_at: datetime) -> list[StaleEvidence]:
        """Evidence that the code ``text`` names has gone or changed since ``created_at``, best first."""
        found = []
        for ref in code_refs(text):
            verdict = self._verdicts.get(ref)
            if verdict is None:
                verdict = self._verdicts[ref] = self._verdict(ref)
            item = verdict.evidence
            if item is None and verdict.file is not None:
                item = self._churn(ref, verdict.file, _epoch(created_at))
            if item is not None:
                found.append(item)
        return sorted(found, key=lambda item: -item.score)

    def _verdict(self, ref: CodeRef) -> _Verdict:
        path = ref.path.rstrip("/")
        if "/" not in ref.path:
            return self._bare_name_verdict(ref)
        if not (self._tree.knows(path) or self._history.index.knows(path)):
            return _Verdict()
        if not os.path.lexists(self.root / path):
            return _Verdict(self._missing(ref, f"{path} no longer exists in the work tree", path))
        if ref.path.endswith("/") or (self.root / path).is_dir():
            return _Verdict()
        return self._file_verdict(ref, path)

    def _bare_name_verdict(self, ref: CodeRef) -> _Verdict:
        name = ref.path
        if os.path.lexists(self.root / name):
            return self._file_verdict(ref, name) if (self.root / name).is_file() else _Verdict()
        current = self._tree.by_name.get(name, ())
        if len(current) == 1:
            return self._file_verdict(ref, current[0])
        if current:
            return _Verdict()  # several files carry that name: which one the memory means is unknown
        history = self._history.index.by_name.get(name, ())
        if not history:
            return _Verdict()
        was = ", ".join(history[:3]) + (f" and {len(history) - 3} more" if len(history) > 3 else "")
        return _Verdict(self._missing(ref, f"no file named {name} is left in the work tree (it was {was})", history[0]))

    def _missing(self, ref: CodeRef, detail: str, path: str) -> StaleEvidence:
        last = self._history.commit_times.get(path)
        if last:
            detail += f"; last touched by a commit on {datetime.fromtimestamp(last[-1], UTC):%Y-%m-%d}"
        return StaleEvidence(ref, "missing_path", detail, MISSING_PATH_SCORE)

    def _file_verdict(self, ref: CodeRef, path: str) -> _Verdict:
        if not ref.symbols:
            return _Verdict(file=path)
        definitions = self._definitions.get(path)
        if definitions is None:
            definitions = self._definitions[path] = _read_definitions(self.root / path)
        missing = [symbol for symbol in ref.symbols if not definitions.defines(symbol)]
        if not missing:
            return _Verdict(file=path)
        how = "parsed with ast" if definitions.method == "ast" else "no word of that name is left in it"
        named = ", ".join(missing)
        detail = f"{named} {'is' if len(missing) == 1 else 'are'} no longer defined in {path} ({how})"
        score = MISSING_SYMBOL_SCORE * (0.75 + 0.25 * len(missing) / len(ref.symbols))
        return _Verdict(StaleEvidence(ref, "missing_symbol", detail, score), file=path)

    def _churn(self, ref: CodeRef, path: str, created: int) -> StaleEvidence | None:
        count = self._history.commits_after(path, created)
        if count < self.churn_commits:
            return None
        beyond = min(1.0, (count - self.churn_commits) / self.churn_commits)
        detail = (
            f"{path} changed in {count} commits since the memory was created (the threshold is {self.churn_commits})"
        )
        return StaleEvidence(ref, "churned", detail, CHURN_SCORE_LOW + (CHURN_SCORE_HIGH - CHURN_SCORE_LOW) * beyond)


def _read_definitions(path: Path) -> _Definitions:
    """The definitions of one file; ``none`` when it cannot be read as text (then nothing is judged)."""
    try:
        data = read_file(path, MAX_FILE_BYTES, "cited source", "cited source size")
    except MnemeError:
        return _Definitions("none")
    if b"\x00" in data[:8192]:
        return _Definitions("none")
    text = data.decode("utf-8", errors="replace")
    if path.suffix in (".py", ".pyi"):
        try:
            names = frozenset(python_symbols(text)) | _python_bound_names(text)
        except (SyntaxError, ValueError, RecursionError):
            pass
        else:
            return _Definitions("ast", names, frozenset(name.rsplit(".", 1)[-1] for name in names))
    return _Definitions("word", frozenset(_WORD.findall(text)))


def _python_bound_names(source: str) -> frozenset[str]:
    """Names Python source assigns or imports anywhere (``MAX = 3``, ``from x import save``)."""
    bound: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return frozenset(bound)


def _epoch(moment: datetime) -> int:
    """Seconds since the epoch; a naive datetime is UTC (as the store keeps them)."""
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp())


def _work_tree_root(root: Path) -> Path:
    """The top of the git work tree holding ``root``; ERR_VALIDATION_FAILED outside one."""
    if not root.is_dir():
        raise MnemeError(ERR_VALIDATION_FAILED, f"repository root {root} is not a folder")
    try:
        top = _git(root, "rev-parse", "--show-toplevel").strip()
    except MnemeError:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{root} is not inside a git work tree") from None
    if not top:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{root} is not inside a git work tree (a bare repository?)")
    return Path(top)


def _git(root: Path, *arguments: str) -> str:
    """The output of a local git read in ``root`` (never the network); ERR_IO when git fails."""
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", *arguments],
            cwd=root,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise MnemeError(ERR_IO, f"git {arguments[0]} in {root} took longer than {GIT_TIMEOUT:.0f} s") from None
    except OSError as exc:
        raise MnemeError(ERR_IO, f"cannot run git in {root}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise MnemeError(ERR_IO, f"git {arguments[0]} failed in {root}: {reason[-1] if reason else done.returncode}")
    return str(done.stdout.decode("utf-8", errors="replace"))
