"""The malloc tuning every `mneme` process applies: blocks up to 32 MB come from the heap, not from new pages.

Each check runs in a new Python, whose allocator starts at glibc's defaults (the test process's own state
is whatever the tests before it left)."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from mneme_tui.memory.heap_reuse import MMAP_THRESHOLD

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="mallopt and mallinfo2 are glibc's"
)

MAPPED_AFTER = """
import ctypes, sys

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
{setup}
block = ctypes.create_string_buffer({size})  # one block, allocated with malloc and kept
print(libc.mallinfo2().hblkhd)  # bytes of blocks served by mmap
"""


def _mapped_bytes(setup: str, size: int) -> int:
    script = MAPPED_AFTER.format(setup=setup, size=size)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return int(out.splitlines()[-1])


def test_a_block_below_the_threshold_comes_from_the_heap_once_tuned():
    size = 8 << 20  # the per-row sums of a recall at 1M memories
    assert _mapped_bytes("", size) >= size  # glibc's default: a new mapping (its threshold starts at 128 KB)
    tuned = "from mneme_tui.memory.heap_reuse import keep_freed_memory\nassert keep_freed_memory()"
    assert _mapped_bytes(tuned, size) < size  # from the heap, whose freed pages the next call reuses


def test_a_block_above_the_threshold_is_still_mapped():
    tuned = "from mneme_tui.memory.heap_reuse import keep_freed_memory\nassert keep_freed_memory()"
    assert _mapped_bytes(tuned, MMAP_THRESHOLD + (1 << 20)) > MMAP_THRESHOLD  # and goes back to the kernel freed


def test_the_command_line_applies_it_before_anything_else():
    ran_main = "from mneme_tui.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass"
    assert _mapped_bytes(ran_main, 8 << 20) < 8 << 20
