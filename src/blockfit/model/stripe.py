"""The stripe sizes LVM and mdadm can build, and the bound on any stripe size a plan file carries: one place for the
plan's advice (`plan.stripe`), the lab, a plan read back (`documents`) and the build (`emit.context`)."""

from __future__ import annotations

from blockfit.errors import InputError
from blockfit.units import GIB, KIB, MIB

LVM_MAX = 4 * MIB          # must not exceed the physical extent size (LVM default 4 MiB)
MIN_STRIPE = 64 * KIB
MAX_STRIPE = GIB   # the command line's bound on any I/O or stripe size (cli/params.py MAX_IO_SIZE)


def buildable_stripe(size: int) -> bool:
    """Can the build scripts stripe with it (LVM -I, mdadm --chunk: a power of two)? The range is the planner's:
    at least 64 KiB, at most LVM's 4 MiB extent."""
    return MIN_STRIPE <= size <= LVM_MAX and not size & (size - 1)


def check_stripe(size: int | None, members: int, what: str) -> int | None:
    """A stripe size a plan file carries, bounded as --stripe-size is on the command line: none (0 for a single
    volume) or 512 bytes to 1 GiB. A file could hold 2^64, which a script's 64-bit arithmetic turns into 0k.
    Whether the build or the lab can stripe with it (a power of two, at least 4 KiB) they check themselves."""
    if size is None or (size == 0 and members == 1):
        return size
    if not 512 <= size <= MAX_STRIPE:
        shown = f"{size}" if abs(size) < 10**12 else f"a {len(str(abs(size)))}-digit number"
        raise InputError(f"{what} {shown}: expected a stripe size from 512 bytes to 1 GiB ({MAX_STRIPE} bytes)")
    return size
