"""The one error type every layer raises; the CLI turns it into a one-line message and exit 1."""

from __future__ import annotations

ERR_VALIDATION_FAILED = "ERR_VALIDATION_FAILED"
ERR_NOT_FOUND = "ERR_NOT_FOUND"
ERR_DATABASE = "ERR_DATABASE"
ERR_CONFIG = "ERR_CONFIG"
ERR_IO = "ERR_IO"
ERR_SECRET = "ERR_SECRET"
"""The text looks like it holds a secret (a key, token or password): nothing was written."""


class MnemeError(Exception):
    """An expected failure with a stable error code (e.g. ``ERR_VALIDATION_FAILED``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
