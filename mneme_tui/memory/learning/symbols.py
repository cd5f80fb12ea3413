"""The definitions in a file's post-fix state, for ``Refactored <file> [<symbols>]`` (spec TC-MEM-11).

Python files are parsed with ``ast``: classes and functions, methods as ``Class.method``, nested classes
as ``Outer.Inner`` (functions nested in functions are left out). Other languages get a documented
best-effort line scan (``_SCANNERS``): declarations that start a line, such as ``func (s *Store) Save(``
in Go, ``fn``/``struct``/``trait`` in Rust, ``function``/``class``/``const x = (…) =>`` in JS/TS.
A file that is missing, unreadable, not a regular file, larger than MAX_FILE_BYTES (the cited source size
limit; it is not read at all), binary or of an unknown type gives no symbols and a note; this module never
raises for a file's content.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from mneme_tui.errors import MnemeError
from mneme_tui.validation import read_file

MAX_FILE_BYTES = 2_000_000
MAX_SYMBOLS = 40

_IDENT = r"[A-Za-z_$][\w$]*"
_JS = (
    rf"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*({_IDENT})",
    rf"^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+({_IDENT})",
    rf"^\s*(?:export\s+)?(?:interface|type|enum)\s+({_IDENT})",
    rf"^\s*(?:export\s+)?(?:const|let|var)\s+({_IDENT})\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function|\([^)]*\)\s*(?::[^=]+)?=>|{_IDENT}\s*=>)",
)
_SCANNERS: dict[str, tuple[str, ...]] = {
    "go": (r"^func\s+\(\s*\w+\s+\*?(\w+)(?:\[[^\]]*\])?\s*\)\s*(\w+)", r"^func\s+(\w+)", r"^type\s+(\w+)"),
    "rust": (r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|mod|type)\s+(\w+)",),
    "js": _JS,
    "java": (
        r"^\s*(?:(?:public|private|protected|static|final|abstract|sealed|data|open|internal)\s+)*"
        r"(?:class|interface|enum|record|object|fun)\s+(\w+)",
    ),
    "ruby": (r"^\s*(?:class|module)\s+([\w:]+)", r"^\s*def\s+(?:self\.)?(\w+[?!=]?)"),
    "shell": (r"^\s*function\s+([\w-]+)", r"^\s*([\w-]+)\s*\(\)\s*\{"),
    "c": (
        r"^\s*(?:typedef\s+)?(?:struct|class|enum|union|namespace)\s+(\w+)\s*[{:]",
        r"^(?!\s)(?:[\w:<>*&,]+\s+)+\**(\w+)\s*\([^;]*$",
    ),
    "php": (
        r"^\s*(?:abstract\s+|final\s+)?(?:class|interface|trait)\s+(\w+)",
        r"^\s*(?:(?:public|private|protected|static)\s+)*function\s+(\w+)",
    ),
}
_LANGUAGES: dict[str, str] = {
    ".go": "go",
    ".rs": "rust",
    ".js": "js",
    ".jsx": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".ts": "js",
    ".tsx": "js",
    ".java": "java",
    ".kt": "java",
    ".kts": "java",
    ".scala": "java",
    ".cs": "java",
    ".rb": "ruby",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".c": "c",
    ".h": "c",
    ".cc": "c",
    ".cpp": "c",
    ".cxx": "c",
    ".hpp": "c",
    ".hh": "c",
    ".php": "php",
}
_C_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "else"}


@dataclass(frozen=True, slots=True)
class SymbolScan:
    """The definitions found in one file, how they were found, and a note when something was off."""

    path: str
    symbols: tuple[str, ...]
    method: str  # "ast", "scan:<language>" or "none"
    note: str = ""

    def label(self) -> str:
        """``[A, B.c]`` as used in pitfall content (at most MAX_SYMBOLS names, then ``+N more``)."""
        shown = list(self.symbols[:MAX_SYMBOLS])
        if len(self.symbols) > MAX_SYMBOLS:
            shown.append(f"+{len(self.symbols) - MAX_SYMBOLS} more")
        return "[" + ", ".join(shown) + "]"


def scan_file(root: Path, path: str) -> SymbolScan:
    """The definitions in ``root / path`` (a repository-relative path); never raises for file content."""
    target = root / path
    try:
        resolved = target.resolve()
        if not resolved.is_relative_to(root.resolve()):
            return SymbolScan(path, (), "none", f"{path} resolves outside the repository root; no symbols")
        if not resolved.is_file():
            return SymbolScan(path, (), "none", f"{path} was not found under {root}; no symbols")
        data = read_file(resolved, MAX_FILE_BYTES, "cited source", "cited source size")
    except OSError as exc:
        return SymbolScan(path, (), "none", f"{path} could not be read ({exc.strerror or exc}); no symbols")
    except MnemeError as exc:  # not a regular file, or past the size limit
        return SymbolScan(path, (), "none", f"{exc.message}; no symbols")
    if b"\x00" in data[:8192]:
        return SymbolScan(path, (), "none", f"{path} is a binary file; no symbols")
    text = data.decode("utf-8", errors="replace")
    suffix = Path(path).suffix.lower()
    if suffix in (".py", ".pyi"):
        try:
            return SymbolScan(path, python_symbols(text), "ast")
        except (SyntaxError, ValueError, RecursionError) as exc:
            found = scan_text(text, "python")
            note = f"{path} did not parse as Python ({exc.__class__.__name__}); scanned lines instead"
            return SymbolScan(path, found, "scan:python", note)
    language = _LANGUAGES.get(suffix)
    if language is None:
        return SymbolScan(path, (), "none", f"no symbol scanner for {suffix or 'files without an extension'} ({path})")
    return SymbolScan(path, scan_text(text, language), f"scan:{language}")


def python_symbols(source: str) -> tuple[str, ...]:
    """Classes, functions and methods defined in Python source, in source order (qualified names)."""
    tree = ast.parse(source)
    found: list[str] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append(prefix + node.name)
            elif isinstance(node, ast.ClassDef):
                found.append(prefix + node.name)
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.If, ast.Try)) and not prefix:
                visit(node.body + node.orelse + getattr(node, "finalbody", []), prefix)

    visit(tree.body, "")
    return tuple(dict.fromkeys(found))


def scan_text(text: str, language: str) -> tuple[str, ...]:
    """Best-effort line scan for declarations of ``language`` (a key of ``_SCANNERS`` or ``python``)."""
    if language == "python":
        patterns: tuple[str, ...] = (r"^\s*(?:async\s+)?def\s+(\w+)", r"^\s*class\s+(\w+)")
    else:
        patterns = _SCANNERS[language]
    compiled = [re.compile(pattern) for pattern in patterns]
    found: list[str] = []
    for line in text.splitlines():
        for pattern in compiled:
            match = pattern.match(line)
            if match:
                name = ".".join(group for group in match.groups() if group)
                if name not in _C_KEYWORDS:
                    found.append(name)
                break
    return tuple(dict.fromkeys(found))
