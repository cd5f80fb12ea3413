"""Provenances for memories that tests mint directly (``Store.mint`` requires one)."""

from mneme_tui.memory.records import SAVE, TASK_SYNC, Provenance

SYNCED = Provenance(TASK_SYNC, "test")
"""A memory as verified task sync writes it: any kind, statutory ones included."""
SAVED = Provenance(SAVE, "test")
"""A memory a person saved: advisory kinds only."""
