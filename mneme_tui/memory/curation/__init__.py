"""Curation: the store proposes (duplicates, conflicts, stale-by-code, cold), a person or an agent decides, and
every decision is audited and undoable. ``proposals.open_proposals`` lists, ``review.decide`` decides; core
only (no Textual, Rich or MCP)."""
