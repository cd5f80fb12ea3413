"""Memory kinds, lifecycle statuses and the per-kind decay rates of spec §3.1 and §4.2."""

from __future__ import annotations

from mneme_tui.errors import ERR_VALIDATION_FAILED, MnemeError

ADVISORY_KINDS: tuple[str, ...] = ("reflection", "axiom", "decision", "fact", "preference", "architecture")
"""Kinds a person or agent may save from the command line (spec 5.1)."""

STATUTORY_KINDS: tuple[str, ...] = ("pitfall", "pattern", "release", "task", "commit", "review", "legacy_spec")
"""Kinds minted strictly by verified task sync (spec 3.1): a ``pattern`` is a verified pattern."""

IMPORTED_KINDS: tuple[str, ...] = ("outcome", "practice", "error")
"""Knowledge imported from Legion markdown (OUTCOMES.md, PATTERNS.md, ERRORS.md): recalled and shown, but
never verified by a task sync, so never a statutory kind (not in the spec; chosen, see the README)."""

ALL_KINDS: tuple[str, ...] = ADVISORY_KINDS + STATUTORY_KINDS + IMPORTED_KINDS

ACTIVE, SUPERSEDED, TOMBSTONED = "active", "superseded", "tombstoned"
STATUSES: tuple[str, ...] = (ACTIVE, SUPERSEDED, TOMBSTONED)

DECAY_LAMBDA: dict[str, float] = {
    # spec §4.2
    "axiom": 0.005,
    "pattern": 0.006,
    "pitfall": 0.008,
    "reflection": 0.02,
    "release": 0.05,
    "task": 0.05,
    "commit": 0.05,
    # not in the spec; chosen and documented in the README
    "architecture": 0.005,
    "decision": 0.01,
    "fact": 0.01,
    "preference": 0.01,
    "legacy_spec": 0.02,
    "review": 0.05,
    # imported Legion knowledge: unverified, so it fades faster than verified patterns and pitfalls
    "outcome": 0.05,
    "practice": 0.02,
    "error": 0.02,
}
"""Ebbinghaus decay rate λ per kind: decay = exp(-λ · age_days)."""


def validate_kind(kind: str, *, allow_statutory: bool) -> str:
    """Return ``kind`` if it is known (``allow_statutory``) or advisory, else raise ERR_VALIDATION_FAILED."""
    if kind in STATUTORY_KINDS and not allow_statutory:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"kind {kind!r} is statutory: it is minted only by verified task sync "
            f"(advisory kinds: {', '.join(ADVISORY_KINDS)})",
        )
    if kind in IMPORTED_KINDS and not allow_statutory:
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"kind {kind!r} is imported: it is written only by the Legion import "
            f"(advisory kinds: {', '.join(ADVISORY_KINDS)})",
        )
    if kind not in ALL_KINDS:
        allowed = ADVISORY_KINDS if not allow_statutory else ALL_KINDS
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown kind {kind!r} (valid kinds: {', '.join(allowed)})")
    return kind


def validate_status(status: str, *, allow_all: bool = False) -> str:
    """Return ``status`` if it is a lifecycle status (or ``all`` when allowed), else ERR_VALIDATION_FAILED."""
    valid = STATUSES + (("all",) if allow_all else ())
    if status not in valid:
        raise MnemeError(ERR_VALIDATION_FAILED, f"unknown status {status!r} (valid: {', '.join(valid)})")
    return status
