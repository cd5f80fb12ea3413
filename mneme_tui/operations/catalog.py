"""Every declared operation, in the order the docs list them."""

from __future__ import annotations

from mneme_tui.operations.curation import CURATION_OPERATIONS
from mneme_tui.operations.declaration import Operation
from mneme_tui.operations.learning import LEARNING_OPERATIONS
from mneme_tui.operations.memory import MEMORY_OPERATIONS
from mneme_tui.operations.purge import PURGE


def all_operations() -> tuple[Operation, ...]:
    """The memory operations, purge, curation, the learning and the Legion operations (the Legion ones load the
    Legion schemas)."""
    from mneme_tui.operations.legion import LEGION_OPERATIONS

    return (*MEMORY_OPERATIONS, PURGE, *CURATION_OPERATIONS, *LEARNING_OPERATIONS, *LEGION_OPERATIONS)
