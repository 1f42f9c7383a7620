"""Recommend a stripe size (LVM -I, mdadm --chunk, ASM allocation unit) with the reason for it."""

from __future__ import annotations

from blockfit.model.stripe import LVM_MAX, MAX_STRIPE, MIN_STRIPE, check_stripe
from blockfit.schema.layout import Manager
from blockfit.units import MIB, fmt_io_size

ASM_AUS = [MIB * 2**k for k in range(7)]   # 1, 2, 4, ... 64 MB


def _pow2_at_least(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def recommend_stripe(members: int, manager: Manager, small_io: int, large_io: int) -> tuple[int, str]:
    """(bytes, reason). Stripe >= the large I/O so one multiblock read lands on one member (no split
    I/Os, one queue slot each); small random I/Os then spread evenly over all members."""
    if manager == "asm":
        au = next((a for a in ASM_AUS if a >= large_io), ASM_AUS[-1])
        au = max(au, 4 * MIB) if members > 1 else au
        return au, (f"ASM AU {fmt_io_size(au)}: a power of two from 1 to 64 MB; at least the {fmt_io_size(large_io)} "
                    "large I/O so scans are not split, and 4 MB as Oracle advises for large data files (the Part 2/3 "
                    "seed striped 7-9 LUNs this way).")
    if members == 1:
        return 0, "single volume: no striping."
    stripe = min(max(_pow2_at_least(large_io), MIN_STRIPE), LVM_MAX)
    what = "LVM -I" if manager == "lvm" else "mdadm --chunk"
    reason = (f"{what} {fmt_io_size(stripe)}: at least the {fmt_io_size(large_io)} large I/O so a multiblock read "
              f"lands on one member; {fmt_io_size(small_io)} random I/Os then spread evenly over the {members} "
              f"members; a power of two, a multiple of 4 KiB blocks, so mkfs su/sw align")
    if stripe == LVM_MAX:
        reason += "; 4 MiB is LVM's default extent size and the Part 3 seed's proven choice"
    return stripe, reason + "."



__all__ = ["ASM_AUS", "MAX_STRIPE", "check_stripe", "recommend_stripe"]   # the bounds live in model.stripe
