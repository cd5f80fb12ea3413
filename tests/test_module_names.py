"""Module names say what a module is: no two modules of the package share a file name unless they are the same
concept at two layers (docs/architecture.md, "Names"), and every such pair is listed here with its reason."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import mneme_tui

PACKAGE = Path(mneme_tui.__file__).parent

PACKAGE_FILES = {"__init__.py", "__main__.py"}
"""Python's own names: every package has one."""

SAME_CONCEPT_AT_TWO_LAYERS = {
    "context.py": {"tui/context.py", "mcp/context.py"},  # what one surface works on: store, repo, Legion folder
    "curation.py": {"operations/curation.py", "memory/persistence/curation.py"},  # declarations; their tables
    "graduation.py": {"tui/screens/graduation.py", "memory/learning/graduation.py"},  # the mode; the candidates
    "memories.py": {"tui/screens/memories.py", "memory/persistence/memories.py"},  # the mode; the table
    "prune.py": {"tui/screens/prune.py", "legion/skill/prune.py"},  # the mode; the plan and its application
    "purge.py": {"operations/purge.py", "memory/purge.py"},  # the declaration; the one deletion
    "review.py": {"tui/screens/review.py", "memory/curation/review.py"},  # the mode; the decisions
}


def module_files_by_name() -> dict[str, set[str]]:
    """Every module file of the package, grouped by file name (paths relative to the package)."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        found[path.name].add(path.relative_to(PACKAGE).as_posix())
    return found


def test_no_two_modules_share_a_name_unless_listed_with_a_reason():
    shared = {
        name: paths for name, paths in module_files_by_name().items() if len(paths) > 1 and name not in PACKAGE_FILES
    }
    assert shared == SAME_CONCEPT_AT_TWO_LAYERS


def test_the_allowed_pairs_are_explained_in_the_architecture_page():
    page = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [path for paths in SAME_CONCEPT_AT_TWO_LAYERS.values() for path in paths if f"`{path}`" not in page]
    assert missing == []
