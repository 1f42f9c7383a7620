"""The interfaces of the kinds table: every volume family (validate a volume, its caps, its cost) and every cloud
(naming, compute units, attachments, provisioning).

Adding a volume family is one new module in this package registering a VolumeKind in KINDS; a cloud is a Cloud
entry in CLOUDS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

from blockfit.catalog.models import Catalog, Direction, Shape, VolumeType
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


class Cloud(Protocol):
    """What depends on the cloud besides its volume families: names, compute units, attachments, provisioning.
    Callers look the entry up once by the catalog's cloud (`cloud_of`) and never compare a cloud's name."""

    name: str
    compute_unit: str          # what the cloud sells compute in: "OCPU" (OCI) or "vCPU"
    instance_example: str      # shapes shown in "expected SHAPE[:COUNT], e.g. ..."
    import_howto: str          # how to bring a missing instance into a catalog
    price_list: str            # what `catalog import` reads to price the cloud's shapes
    price_import_hint: str     # said beside "no compute price" (empty: no price list to import)
    default_direction: Direction   # an instance MB/s cap a catalog version does not qualify
    machine_types: bool        # names like n2-standard-16 fix series, family and vCPUs (GCP)
    iscsi_attachments: bool    # attachment types with iSCSI paths and sessions are modelled (OCI)
    level_type: str | None     # the type a level name that is no type key selects (OCI: block, by VPU/GB)
    attach_emitter: str | None     # the build step that checks the attachments (emit's table names it)
    provision_emitter: str | None  # the build step that creates and attaches the volumes
    provisioners: tuple[str, ...]  # --provision tools this cloud's provisioning step writes for
    instance_burst: str | None     # how its instances burst (model/burst.py's mechanism), None: they do not
    steady: str | None             # what of this cloud never bursts, said when nothing of a layout does

    def family(self, shape: Shape) -> str:
        """The family a size belongs to (its catalog series, else what its name says)."""
        ...

    def compute_count(self, shape: Shape) -> float | None:
        """A fixed shape's compute in the cloud's own unit."""
        ...

    def check_vcpu_search(self, count: float) -> None:
        """A search from a vCPU count (--cpus N) is refused where compute is sold in another unit."""
        ...

    def count_fields(self, shape: str, count: float | None) -> dict[str, float | None]:
        """A count of SHAPE in the cloud's own unit (SHAPE:N) as the result JSON names it: `vcpus` on every cloud,
        and the count as the cloud presents it beside it where that unit is not the vCPU (OCI: `ocpus`)."""
        ...

    def range_fields(self, lo: float | None, hi: float | None) -> dict[str, float | None]:
        """A search range in the cloud's own unit (--cpus MIN-MAX) as Requirements names it."""
        ...

    def level_vpu(self, vt: VolumeType, text: str) -> int:
        """A level name of `level_type` as its VPU/GB (only called when level_type is set)."""
        ...

    def volume_for_level(self, cat: Catalog, key: str, text: str) -> Volume | None:
        """The volume a layout level names (`key`: the level after aliases), None when it names none."""
        ...

    def device_error(self, devices: list[str]) -> str | None:
        """Why these --devices cannot carry provisioned attachments (None: they can)."""
        ...

    def device_note(self, devices: list[str]) -> str | None:
        """Advice on the device paths a build is given (None: nothing to say)."""
        ...

    def sized_by_count(self, shape: Shape) -> bool:
        """The shape's compute is a count the user chooses (SHAPE:N, OCI's flexible shapes): its caps follow it,
        and more of it is advice a plan can give."""
        ...


class DefaultCloud:
    """The behaviour most clouds share: vCPUs, families by series, no levels beyond type keys, any device path."""

    compute_unit = "vCPU"
    price_import_hint = " (import a price list: blockfit catalog import)"
    default_direction: Direction = "combined"
    machine_types = False
    iscsi_attachments = False
    level_type: str | None = None
    attach_emitter: str | None = None
    provision_emitter: str | None = None
    provisioners: tuple[str, ...] = ()
    instance_burst: str | None = None
    steady: str | None = None

    def family(self, shape: Shape) -> str:
        return shape.series or shape.name

    def compute_count(self, shape: Shape) -> float | None:
        return shape.vcpus

    def sized_by_count(self, shape: Shape) -> bool:
        return False

    def check_vcpu_search(self, count: float) -> None:
        return None

    def count_fields(self, shape: str, count: float | None) -> dict[str, float | None]:
        return {"vcpus": count}

    def range_fields(self, lo: float | None, hi: float | None) -> dict[str, float | None]:
        return {"vcpus_min": lo, "vcpus_max": hi}

    def level_vpu(self, vt: VolumeType, text: str) -> int:
        raise InputError(f"level {text!r}: this cloud has no performance levels by name")

    def volume_for_level(self, cat: Catalog, key: str, text: str) -> Volume | None:
        return Volume(cloud=cat.cloud, type=key, size_gb=1) if key in cat.volume_types else None

    def device_error(self, devices: list[str]) -> str | None:
        return None

    def device_note(self, devices: list[str]) -> str | None:
        return None
