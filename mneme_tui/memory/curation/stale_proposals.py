"""The stale kind: memories whose code (paths, symbols, directory scopes) is gone from the repository's git
work tree or was reworked since, judged by ``stale.StaleChecker``. Suggested action: re-check, then dismiss
(accept) or keep (reject)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from mneme_tui.memory.curation.catalogue import Catalogue
from mneme_tui.memory.curation.finders import Found
from mneme_tui.memory.curation.stale import StaleChecker

_EPOCH = datetime(1970, 1, 1)
AGE_REASONS = frozenset({"churned"})
"""Evidence that comes from time passing (changes since the memory was written): never held against a pin."""


def stale(catalogue: Catalogue, scope: np.ndarray, root: Path, pinned: set[int]) -> list[Found]:
    """Active memories in ``scope`` that name code in ``root`` which is missing or churned."""
    rows = catalogue.rows
    candidates = [p for p in np.flatnonzero(scope & rows.active).tolist() if catalogue.anchors(p)]
    if not candidates:
        return []
    oldest = min(float(rows.created_days[p]) for p in candidates)
    checker = StaleChecker(root, since=_EPOCH + timedelta(days=oldest))
    found = []
    for position in candidates:
        memory_id = int(rows.ids[position])
        created = _EPOCH + timedelta(days=float(rows.created_days[position]))
        evidence = [
            item
            for item in checker.evidence(str(rows.texts[position]), created)
            if memory_id not in pinned or item.reason not in AGE_REASONS
        ]
        if evidence:
            details = "; ".join(item.detail for item in evidence)
            found.append(
                Found(
                    "stale",
                    (position,),
                    None,
                    "recheck",
                    round(0.8 * evidence[0].score, 3),
                    f"#{memory_id} names code that changed: {details}; re-check it, then dismiss "
                    "(accept) or keep (reject)",
                )
            )
    return found
