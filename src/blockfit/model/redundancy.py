"""Mirroring's price in I/O: each logical write is written `copies` times (ASM normal 2, high 3; mdadm RAID10 2),
against every per-volume cap and the instance's network cap alike; reads are read once. Usable capacity is the raw
capacity / copies.

A cap on reads and writes together (volume IOPS and MB/s, instance IOPS, iSCSI paths) of C carries
C / (r + (1 - r) x copies) logical I/Os, r the read share. The instance network is full duplex, each direction
capped: C / max(r, (1 - r) x copies); a cap on both directions together (Azure, GCP, AWS) C / (r + (1 - r) x
copies): limits.instance_caps_list divides the instance MB/s row itself, by its direction.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from blockfit.schema.cost import COPIES

L = TypeVar("L")
DIRECTIONAL = "instance_mbps"   # divided by limits.instance_caps_list (by its direction), not here


def copies(redundancy: str) -> int:
    return COPIES[redundancy]


def amplification(redundancy: str, read_share: float) -> float:
    """Physical I/Os per logical I/O: 1 for no mirroring or a read-only load."""
    return read_share + (1 - read_share) * copies(redundancy)


def describe(redundancy: str, read_share: float) -> str | None:
    """'writes x 2 at normal redundancy (30 % writes: 1.30 volume I/Os per I/O)', or None when nothing changes."""
    amp = amplification(redundancy, read_share)
    if amp == 1:
        return None
    what = "RAID10" if redundancy == "raid10" else f"{redundancy} redundancy"
    return (f"writes x {copies(redundancy)} at {what} ({100 * (1 - read_share):.0f} % writes: "
            f"{amp:.2f} volume I/Os per I/O)")


def binding_sentence(redundancy: str, read_share: float, limit: Any, instance_mbps: float | None) -> str | None:
    """Which side the mirrored writes exhaust, in the binding limit's own unit (predict's logical Limit):
    "writes x 2 at normal redundancy exhaust the instance's 1,440 MB/s"."""
    amp = amplification(redundancy, read_share)
    if amp == 1:
        return None
    what = "RAID10" if redundancy == "raid10" else f"{redundancy} redundancy"
    if limit.name == DIRECTIONAL and instance_mbps is not None:
        figure = f"{instance_mbps:,.0f} MB/s"
    elif limit.mbps is not None:
        figure = f"{limit.mbps * amp:,.0f} MB/s"
    else:
        figure = f"{limit.ops * amp:,.0f} IOPS"
    side = "the instance's" if limit.name.startswith("instance") else "the volumes'"
    return f"writes x {copies(redundancy)} at {what} exhaust {side} {figure}"


def logical_limits(limits: list[L], redundancy: str, read_share: float) -> list[L]:
    """Every cap divided by the amplification, its description saying so (limits: the caps of model/limits.py). The
    instance network is full duplex: limits.instance_caps_list already splits it by direction, copies included."""
    amp = amplification(redundancy, read_share)
    if amp == 1:
        return limits
    note = describe(redundancy, read_share)
    out = []
    for lim in limits:
        row: Any = lim
        if row.name == DIRECTIONAL:
            out.append(lim)
            continue
        out.append(dataclasses.replace(row, ops=None if row.ops is None else row.ops / amp,
                                       mbps=None if row.mbps is None else row.mbps / amp,
                                       description=f"{row.description}; {note}"))
    return out
