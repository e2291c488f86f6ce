"""Fills the free blocks of CPython's small-object allocator in the zygote, just before it forks.

A warm interpreter's allocator pools are mostly full, with free blocks scattered over thousands of
pages. A child's new objects would go into those holes, and writing one copies its whole page (a
copy-on-write fault) for a few dozen bytes. With the holes taken by padding objects the zygote
keeps, a child's objects go into empty pools instead, packed densely onto few pages.
"""

from __future__ import annotations

import os
import re
import sys

_ROW = re.compile(rb"^\s*\d+\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s*$", re.M)  # class, size, pools, in use, free
_INT_SIZE = sys.getsizeof(10**9)  # an int object too big for the small-int cache
_BYTES_HEADER = sys.getsizeof(b"")  # a bytes object's size without its data


def free_blocks() -> dict[int, int]:
    """{block size: free blocks in partly used pools}, from `sys._debugmallocstats` (CPython
    prints about 3 KB to the C stderr, well within a pipe's buffer); {} where that is unavailable
    or its format unknown."""
    stats = getattr(sys, "_debugmallocstats", None)
    if stats is None:
        return {}
    r, w = os.pipe()
    saved = os.dup(2)
    try:
        os.dup2(w, 2)
        os.close(w)
        stats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    return {int(size): int(free) for size, free in _ROW.findall(b"".join(chunks))}


def fill(rounds: int = 3) -> list:
    """Take the allocator's free blocks with padding objects; keep the returned list alive.

    Each round allocates, for every block size, as many objects of that size as there are free
    blocks (bytes objects sized to the block, ints for 32-byte blocks); the list holding them and
    the reading of the statistics leave a few holes again, so a few rounds are made."""
    padding: list = []
    for _ in range(rounds):
        holes = free_blocks()
        for size, count in holes.items():
            if not count:
                continue
            if size == 32 and _INT_SIZE <= 32:
                padding.extend(10**9 + i for i in range(count))
            elif size - _BYTES_HEADER >= 2:  # shorter bytes objects are shared singletons
                padding.extend(b"\x01" * (size - _BYTES_HEADER) for _ in range(count))
    return padding
