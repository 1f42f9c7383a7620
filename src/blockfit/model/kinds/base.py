"""The interface every volume family implements: validate a volume, its performance caps, its cost.

Adding a volume family is one new module in this package registering a VolumeKind in KINDS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

from blockfit.catalog.models import Catalog, VolumeType
from blockfit.errors import InputError
from blockfit.schema import Citation, CostItem, Volume

MIB_PER_S_IN_MB_PER_S = 1.048576


@dataclass
class MemberPerf:
    """One member's caps. `iops` counts accounting ops (I/Os above accounting_bytes count several)."""

    iops: float
    iops_rule: str          # what sets it: "per-GB scaling", "per-volume cap", "provisioned", ...
    iops_field: str         # catalog field that cites its source
    mbps: float             # MB/s = 10^6 B/s
    mbps_rule: str
    mbps_field: str
    accounting_bytes: int | None = None
    merges_sequential: bool = False   # sequential I/Os smaller than accounting_bytes merge into one (AWS st1/sc1)
    iops_name: str = "volume_iops"
    mbps_name: str = "volume_mbps"
    warnings: list[str] = field(default_factory=list)


class VolumeKind(Protocol):
    def level_names(self, vt: VolumeType) -> list[str]:
        """Spellings accepted after @ in a layout spec for this type (besides the type key)."""
        ...

    def normalize(self, cat: Catalog, vt: VolumeType, vol: Volume) -> Volume:
        """Check the volume against the type's rules (InputError) and fill defaults (e.g. included IOPS)."""
        ...

    def level_spec(self, vt: VolumeType, vol: Volume) -> str:
        """The LEVEL[:IOPS[:MBPS]] part of the spec for this volume."""
        ...

    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf: ...

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]: ...


def fmt_tput(value: float) -> str:
    """A derived throughput in words, at most one decimal: st1's 0.0390625 MiB/s per GiB x 12,788 GiB printed as
    "499.531 MiB/s". Only the words are rounded; the arithmetic keeps the exact figure."""
    text = f"{value:,.1f}"
    return text[:-2] if text.endswith(".0") else text


def to_mbps(value: float, vt: VolumeType) -> float:
    """A throughput in the type's published unit converted to MB/s (10^6 B/s)."""
    return value * MIB_PER_S_IN_MB_PER_S if vt.throughput_unit == "MiB/s" else value


def check_size(vt: VolumeType, vol: Volume, type_key: str) -> None:
    if not vt.min_gb <= vol.size_gb <= vt.max_gb:
        raise InputError(
            f"size {vol.size_gb:g} GB for {type_key}: expected {vt.min_gb:g} to {vt.max_gb:g} GB")


def reject_provisioning(vol: Volume, type_key: str) -> None:
    if vol.provisioned_iops is not None or vol.provisioned_throughput is not None:
        raise InputError(f"layout level {type_key}: this type takes no provisioned IOPS or throughput (drop ':N')")


def priced(item: str, quantity: float, unit: str, price: float | None, source: Citation | None) -> CostItem:
    monthly = None if price is None else round(quantity * price, 6)
    return CostItem(item=item, quantity=quantity, unit=unit, unit_price=price, monthly=monthly, source=source)


def ceil_div(a: float, b: float) -> int:
    return int(math.ceil(a / b - 1e-9))


class FixedPerformance:
    """Base for types whose performance follows from the size alone (no provisioned figures)."""

    def level_names(self, vt: VolumeType) -> list[str]:
        return []

    def normalize(self, cat: Catalog, vt: VolumeType, vol: Volume) -> Volume:
        check_size(vt, vol, vol.type)
        reject_provisioning(vol, vol.type)
        return vol

    def level_spec(self, vt: VolumeType, vol: Volume) -> str:
        return vol.type
