"""emit/asm.py: the allocation unit ASM is given for the plan's stripe."""

from __future__ import annotations

from blockfit.emit.asm import au_size_mb
from blockfit.units import KIB, MIB


def test_asm_au_size():
    assert au_size_mb(4 * MIB)[0] == 4
    assert au_size_mb(64 * MIB)[0] == 64
    assert au_size_mb(256 * KIB)[0] == 1  # below ASM's minimum: 1 MB
    assert au_size_mb(128 * MIB)[0] == 64  # above the maximum: 64 MB
    mb, why = au_size_mb(256 * KIB)
    assert "not a valid ASM AU" in why
