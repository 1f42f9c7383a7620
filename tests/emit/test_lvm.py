"""emit/lvm.py: the extent size that holds the plan's stripe."""

from __future__ import annotations

from blockfit.emit.lvm import extent_bytes
from blockfit.units import MIB


def test_extent_size_covers_large_stripes():
    assert extent_bytes(1 * MIB) == 4 * MIB
    assert extent_bytes(16 * MIB) == 16 * MIB
