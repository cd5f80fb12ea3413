"""The closed sets of curation: proposal kinds, actions and decisions (nothing heavy: the CLI's parser and the
MCP tools' enums read them)."""

from __future__ import annotations

KINDS = ("duplicate", "conflict", "stale", "cold")
"""Every proposal kind, in the order a review lists ties."""
ACTIONS = ("merge", "supersede", "recheck", "dismiss")
"""What accepting a proposal does: merge (the others superseded by the one kept), supersede (the newest
supersedes the older), recheck (stale: accepting dismisses), dismiss."""
DECISIONS = ("accept", "reject")
UNDO, UNDONE = "undo", "undone"
"""``undo`` reverses the last decision on a proposal; its decision is then recorded as ``undone``."""
