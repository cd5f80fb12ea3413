"""The Legion memory skill's operations on one project's memory folder: record, recall, briefing, scoring,
prune, compaction."""
