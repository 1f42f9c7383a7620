"""Mirroring's price in I/O: each logical write is written `copies` times (ASM normal 2, high 3; mdadm RAID10 2),
against every per-volume cap and the instance's network cap alike; reads are read once. Usable capacity is the raw
capacity / copies.

A cap of C physical I/Os (or MB/s) therefore carries C / (r + (1 - r) x copies) logical ones, r the read share.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from blockfit.schema.cost import COPIES

L = TypeVar("L")


def copies(redundancy: str) -> int:
    return COPIES[redundancy]


def amplification(redundancy: str, read_fraction: float) -> float:
    """Physical I/Os per logical I/O: 1 for no mirroring or a read-only load."""
    return read_fraction + (1 - read_fraction) * copies(redundancy)


def describe(redundancy: str, read_fraction: float) -> str | None:
    """'writes x 2 at normal redundancy (30 % writes: 1.30 volume I/Os per I/O)', or None when nothing changes."""
    amp = amplification(redundancy, read_fraction)
    if amp == 1:
        return None
    what = "RAID10" if redundancy == "raid10" else f"{redundancy} redundancy"
    return (f"writes x {copies(redundancy)} at {what} ({100 * (1 - read_fraction):.0f} % writes: "
            f"{amp:.2f} volume I/Os per I/O)")


def binding_sentence(redundancy: str, read_fraction: float, limit: Any) -> str | None:
    """Which side the mirrored writes exhaust, in the binding limit's own unit (predict's physical Limit):
    "writes x 2 at normal redundancy exhaust the instance's 1,440 MB/s"."""
    if amplification(redundancy, read_fraction) == 1:
        return None
    what = "RAID10" if redundancy == "raid10" else f"{redundancy} redundancy"
    side = "the instance's" if limit.name.startswith("instance") else "the volumes'"
    figure = f"{limit.mbps:,.0f} MB/s" if limit.mbps is not None else f"{limit.ops:,.0f} IOPS"
    return f"writes x {copies(redundancy)} at {what} exhaust {side} {figure}"


def logical_limits(limits: list[L], redundancy: str, read_fraction: float) -> list[L]:
    """Every cap divided by the amplification, its description saying so (limits: predict's Limit rows)."""
    amp = amplification(redundancy, read_fraction)
    if amp == 1:
        return limits
    note = describe(redundancy, read_fraction)
    out = []
    for lim in limits:
        row: Any = lim
        out.append(dataclasses.replace(row, ops=None if row.ops is None else row.ops / amp,
                                       mbps=None if row.mbps is None else row.mbps / amp,
                                       description=f"{row.description}; {note}"))
    return out
