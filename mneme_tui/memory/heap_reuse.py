"""Freed memory kept for the next query: glibc's malloc told to serve a recall's large arrays from its heap.

A warm recall at 1,000,000 memories makes arrays of 1–8 MB (the per-row sums, the rows found, their scores
and factors) and frees them. glibc serves such blocks with new pages from the kernel (``mmap``) until frees
have raised its threshold, and gives the top of its heap back once more than its trim threshold is free; so
each recall touched new pages again: about 420 page faults and 0.5–0.6 ms of kernel time a call, a fifth of
a ``bm25`` ``-A`` recall. Serving every block up to 32 MB from the heap and keeping up to 64 MB free at its
top lets each call reuse the pages of the one before. Blocks above 32 MB (a first index build's) still come
from ``mmap`` and go back to the kernel when freed.
"""

from __future__ import annotations

import ctypes

MMAP_THRESHOLD = 32 << 20
"""Blocks up to this size come from the heap (glibc's largest allowed value on 64-bit)."""
TRIM_THRESHOLD = 64 << 20
"""Free memory at the top of the heap beyond this is given back to the kernel."""
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def keep_freed_memory() -> bool:
    """Set glibc's malloc thresholds for this process (see the module); True when they were applied, False
    where the C library has no ``mallopt`` (musl, macOS), which changes nothing else."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
