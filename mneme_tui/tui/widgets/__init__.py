"""Reusable widgets: header and mode bar, chip bars, paged tables, score bars, charts, memory detail."""
