"""Typed catalog entries. Every figure is traceable: an entry names its default source id, and
`sources` can override that per field; each source carries its URL and the date its figures held."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from blockfit.schema.citation import Citation
from blockfit.schema.clouds import CloudName
from blockfit.schema.empty import empty_list

# Bounds every figure keeps, so a catalog that loads never makes the model divide by zero or by a subnormal: a file
# from `catalog import` or a hand-edited --catalog PATH is someone else's data. NaN and inf are refused everywhere.
TINY = 1e-6


def _zero_or_normal(value: float) -> float:
    if 0 < value < TINY:
        raise ValueError(f"expected 0 or at least {TINY:g}")
    return value


def _numbers_in_range(value: Any) -> Any:
    """Tier tables (dicts of figures): each number finite, not negative, 0 or at least TINY."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, dict | list):
            _numbers_in_range(item)
        elif isinstance(item, int | float) and not isinstance(item, bool):
            if not math.isfinite(item) or item < 0:
                raise ValueError(f"expected finite figures of at least 0, got {item!r}")
            _zero_or_normal(item)
    return value


Rate = Annotated[float, Field(ge=TINY, allow_inf_nan=False)]
"""A cap, rate, size or bandwidth: something the model divides by or scales a cap with."""
NonNeg = Annotated[float, Field(ge=0, allow_inf_nan=False), AfterValidator(_zero_or_normal)]
"""A figure that may be zero (an included allowance, a time, a price), never negative or subnormal."""
Ocpus = Annotated[float, Field(ge=1, allow_inf_nan=False)]
"""An OCPU (vCPU) count of a shape: at least one."""
Iops = Annotated[float, Field(ge=1, allow_inf_nan=False)]
"""An IOPS cap: at least 1 (the model rounds caps to 0.1 and divides by them)."""
Mbps = Annotated[float, Field(ge=1, allow_inf_nan=False)]
"""A MB/s cap: at least 1."""
Gbps = Annotated[float, Field(ge=0.1, allow_inf_nan=False)]
"""Network bandwidth, Gbps (per OCPU or in all): at least 0.1, so the caps it scales stay at least 1."""
PerGbps = Annotated[float, Field(ge=10, allow_inf_nan=False)]
"""IOPS or MB/s per Gbps of network (OCI's VM rule)."""
Whole = Annotated[int, Field(ge=1)]
Tiers = Annotated[list[dict[str, Any]], AfterValidator(_numbers_in_range)]


class Source(BaseModel):
    id: str
    url: str
    date: date
    copy_read: str | None = Field(default=None, alias="copy")
    note: str | None = None

    model_config = ConfigDict(populate_by_name=True)


class Sourced(BaseModel):
    """A catalog entry whose figures carry sources: `source` for all, `sources` per field."""

    source: str
    sources: dict[str, str] = Field(default_factory=dict)
    note: str | None = None

    model_config = ConfigDict(extra="forbid")

    def source_of(self, field: str) -> str:
        return self.sources.get(field, self.source)


class OciLevel(Sourced):
    """One OCI performance level (VPUs per GB) as OCI's table publishes it."""

    vpu: Annotated[int, Field(ge=0)]
    name: str
    iops_per_gb: Annotated[float, Field(ge=0.1, allow_inf_nan=False)]
    max_iops: Iops
    kbps_per_gb: Annotated[float, Field(ge=100, allow_inf_nan=False)]
    max_mbps: Mbps


class LatencyFigure(Sourced):
    """The unloaded time of one I/O for shapes of some families over one attachment type (OCI): a fixed part
    (network round trip, target, media) plus the transfer of the I/O's bytes over one path."""

    families: list[str] = Field(description="shape families it holds for (Shape.family), '*' for any")
    attachment: str | None = Field(default=None, description="iscsi | paravirtualized; None = any")
    base_ms: NonNeg
    path_mbps: Mbps | None = Field(default=None, description="bytes one path moves per second for one I/O, MB/s "
                                                              "(per-I/O transfer time = I/O size / this)")
    host_ms: NonNeg = Field(default=0.0, description="time each I/O spends in the host outside the device "
                                                   "(submission, completion, reaping), ms; 0 where not separated")


class LoadedLatency(BaseModel):
    """One point of a volume's latency curve: at `depth` outstanding I/Os on one volume each I/O takes `factor` x
    its queue-depth-1 time (reads and writes alike), before any wait at a cap."""

    depth: Annotated[int, Field(ge=2)]
    factor: Annotated[float, Field(ge=1, allow_inf_nan=False)]

    model_config = ConfigDict(extra="forbid")


class VolumeLatency(Sourced):
    """The time one I/O takes on one volume of a type at queue depth 1, per direction, and how it grows with the
    I/Os outstanding on that volume (`loaded`, piecewise linear in depth, flat beyond its last point; none: flat).
    The waits at the volume's and the instance's caps come on top (model/queueing.py)."""

    read_ms: Rate
    write_ms: Rate
    loaded: list[LoadedLatency] = Field(default_factory=empty_list)

    @model_validator(mode="after")
    def _curve(self) -> VolumeLatency:
        """Depths increase, factors never fall, and a deeper queue never gives fewer I/Os per second (time per I/O
        grows at most in proportion to depth): the queueing model's throughput then grows with the I/Os offered."""
        points = [(1, 1.0)] + [(p.depth, p.factor) for p in self.loaded]
        for (d0, f0), (d1, f1) in zip(points, points[1:], strict=False):
            if d1 <= d0 or f1 < f0 or f1 / d1 > f0 / d0:
                raise ValueError(f"loaded latency: expected depths rising with factors that do not fall and "
                                 f"factor / depth that does not rise, got ({d0}, {f0:g}) then ({d1}, {f1:g})")
        return self

    def mix_ms(self, read_share: float) -> float:
        """The mean queue-depth-1 time of a read/write mix."""
        return read_share * self.read_ms + (1 - read_share) * self.write_ms

    def growth(self) -> tuple[tuple[float, float], ...]:
        """The curve's points as (depth, factor), from depth 1."""
        return ((1.0, 1.0), *((float(p.depth), p.factor) for p in self.loaded))


class VolumeType(Sourced):
    """One volume type. `kind` selects the performance/cost rules in blockfit.model.volume_kinds;
    each kind documents which of the optional fields it reads."""

    name: str
    kind: Literal["oci_vpu", "aws_gp3", "aws_gp2", "aws_piops", "aws_hdd",
                  "azure_tiered", "azure_provisioned", "gcp_pd", "gcp_hyperdisk"]
    description: str
    min_gb: Annotated[float, Field(ge=1, allow_inf_nan=False)]
    max_gb: Rate
    size_step_gb: Rate = 1
    throughput_unit: Literal["MB/s", "MiB/s"] = "MB/s"
    io_accounting_kib: Whole | None = None
    kbps_unit_bytes: Whole = 1000               # bytes in the "KB" of kbps_per_gb (OCI: 1,024, see catalog)
    base_latency_ms: NonNeg
    latencies: list[LatencyFigure] = Field(default_factory=empty_list)   # by shape family and attachment (OCI)
    latency: VolumeLatency | None = None        # per direction and under load; None: base_latency_ms for both, flat
    levels_from: str | None = None              # copy the levels of another type (OCI boot volumes)
    min_vpu: Annotated[int, Field(ge=0)] = 0    # levels below this VPU/GB are not sold for this type
    max_iops_cap: Iops | None = None            # a cap over every level's max IOPS (OCI UHP boot: 50,000)
    attachments: list[str] = Field(default_factory=empty_list)     # allowed attachment types; [] = any
    max_paths: Whole | None = None              # paths one attachment can have (OCI boot volumes: 1, no multipath)
    max_members: Whole | None = None            # volumes of this type one instance has (OCI boot volume: 1)
    ssd: bool = True
    vm_caps_as: str | None = Field(default=None, description="the volume type whose instance cap sets hold for this "
                                   "one (Azure Standard SSD/HDD: the size pages' Premium SSD caps)")
    host_caching_max_gb: Rate | None = Field(default=None, description="Azure: the largest disk of this type "
                                             "that takes host caching; None = the type takes none")
    pv_max_iops: Iops | None = None
    # attachments (oci_vpu): iSCSI paths and sessions
    iscsi_session_depth: Whole | None = None    # I/Os one iSCSI session runs at once (node.session.queue_depth)
    path_max_iops: Iops | None = None           # one iSCSI path's IOPS ceiling
    path_max_mbps: Mbps | None = None           # one iSCSI path's throughput ceiling, MB/s
    default_attachment: str | None = None       # attachment type when none is given
    default_paths: dict[str, Whole] = Field(default_factory=dict)   # paths carrying I/O per attachment type
    # provisioned performance (aws_gp3, aws_piops, azure_provisioned, gcp_hyperdisk)
    iops_included: NonNeg | None = None
    iops_min: NonNeg | None = None
    iops_max: Iops | None = None
    iops_per_gb: Rate | None = None
    iops_per_gb_max: Rate | None = None
    iops_free_gb: NonNeg | None = None
    tput_included: NonNeg | None = None
    tput_min: NonNeg | None = None
    tput_max: Mbps | None = None
    tput_per_gb: Rate | None = None
    tput_per_iops: Rate | None = None
    tput_per_iops_max: Rate | None = None
    tput_provisionable: bool = False
    tput_burst_per_gb: Rate | None = None       # burst throughput per GiB while credits last (aws_hdd), type's unit
    tput_burst_max: Mbps | None = None
    # credit bursting (model/burst.py): gp2's I/O credits, st1/sc1's throughput credits, Azure's 30-minute bucket
    burst_iops: Iops | None = None              # IOPS while I/O credits last (gp2: 3,000)
    burst_credits: Rate | None = None           # I/O credits a full bucket holds (gp2: 5.4 million)
    burst_credits_per_gb: Rate | None = None    # throughput credits per GiB of size, the type's unit x s (st1/sc1)
    burst_bucket_s: Rate | None = None          # a full bucket lasts this long at the burst rate (Azure P1-P20)
    # tiers (aws_piops io1 throughput steps, azure_tiered sizes)
    tiers: Tiers = Field(default_factory=empty_list)
    levels: list[OciLevel] = Field(default_factory=empty_list)
    # prices (USD per month)
    price_per_gb: NonNeg | None = None
    price_per_vpu_gb: NonNeg | None = None
    price_per_iops: NonNeg | None = None
    price_iops_tiers: Tiers = Field(default_factory=empty_list)
    price_tiers: Tiers = Field(default_factory=empty_list)   # per-disk price by size tier (azure_tiered)
    price_per_tput: NonNeg | None = None
    price_region: str | None = None

    @model_validator(mode="after")
    def _size_range(self) -> VolumeType:
        if self.min_gb > self.max_gb:
            raise ValueError(f"min_gb {self.min_gb:g} is above max_gb {self.max_gb:g}")
        return self


Direction = Literal["each", "combined"]


class InstanceRule(Sourced):
    """OCI's VM rule: IOPS and block-volume throughput scale with network bandwidth."""

    iops_per_gbps: PerGbps
    iops_max: Iops
    mbps_per_gbps: PerGbps
    mbps_max: Mbps
    direction: Direction | None = Field(default=None, description="the MB/s cap holds for each direction (a "
                                        "full-duplex network) or for reads and writes combined; None: see Shape")


class CapSet(Sourced):
    """Instance caps that hold only for some volume types, one disk interface or one bandwidth weighting: Azure
    publishes one pair per disk family (Premium SSD vs Premium SSD v2 / Ultra) and interface (SCSI vs NVMe),
    AWS 8th-generation types one per EBS bandwidth weighting (default, ebs-1), GCP one for Persistent Disk and
    one for Hyperdisk. The first CapSet whose selectors all match is used; selectors left empty match anything."""

    volume_types: list[str] = Field(default_factory=empty_list, description="volume type keys; [] = every type")
    interface: Literal["scsi", "nvme"] | None = None
    weighting: str | None = Field(default=None, description="AWS bandwidth weighting: default | ebs-1 | vpc-1")
    iops: Iops | None = None
    mbps: Mbps | None = None
    iops_burst: Iops | None = None
    mbps_burst: Mbps | None = None


class InstanceBurst(Sourced):
    """How an instance's burst caps (Shape.iops_burst / mbps_burst) are spent: `seconds` of the burst from a full
    bucket, and how the bucket refills. AWS publishes no bucket size, only "30 minutes at least once every 24
    hours" (time: every second above the baseline spends one second, whatever the rate); Azure's VM credits are
    unused IOPS and MB/s below the cap, a full bucket lasting 30 minutes at the burst rate (credits)."""

    seconds: Rate
    spent_by: Literal["time", "credits"]
    refill_s: Rate | None = Field(default=None, description="time: an empty budget is full again after this long")


class MachineFamily(BaseModel):
    """A GCP predefined machine family of one series (standard, highmem, highcpu): memory per vCPU and sizes."""

    gb_per_vcpu: Rate
    vcpus: list[Whole]
    memory_gb: dict[int, Rate] = Field(default_factory=dict, description="sizes whose memory is not "
                                        "gb_per_vcpu x vCPUs (n2-highmem-128: 864 GB)")

    def memory_of(self, vcpus: int) -> float:
        return self.memory_gb.get(vcpus, self.gb_per_vcpu * vcpus)

    model_config = ConfigDict(extra="forbid")


class Shape(Sourced):
    """A compute shape / instance type with its block-storage limits.

    kind "flex": OCPU-scaled network (OCI VM rule); "fixed": published caps; "vcpu_tiers": caps by vCPU
    count per volume type (GCP).

    `iops`/`mbps` (and the burst pair) are the caps for every volume type on the default interface and
    weighting; `caps` holds the pairs that differ by volume type, interface or weighting. A figure that was not
    found is None and named in `unknown` (blockfit warns and does not apply it), never guessed.
    """

    name: str
    kind: Literal["flex", "fixed", "vcpu_tiers"]
    ocpus_min: Ocpus | None = None
    ocpus_max: Ocpus | None = None
    ocpus: Ocpus | None = None
    ocpu_counts: list[Whole] = Field(default_factory=empty_list, description="flex shapes sold only at these OCPU "
                                                                           "counts (OCI DenseIO Flex); [] = any in the "
                                                                           "range")
    gbps_per_ocpu: Gbps | None = None
    gbps_max: Gbps | None = None
    gbps: Gbps | None = None
    iops: Iops | None = None
    mbps: Mbps | None = None
    iops_burst: Iops | None = None
    mbps_burst: Mbps | None = None
    iops_cached: Iops | None = Field(default=None, description="Azure: the VM's cached limit (host caching "
                                     "ReadOnly/ReadWrite), beside the uncached iops")
    mbps_cached: Mbps | None = Field(default=None, description="Azure: the VM's cached MB/s limit")
    cache_gb: Rate | None = Field(default=None, description="Azure: the host cache's size, GiB")
    attach_max: Whole | None = None
    attach_pv_max: Whole | None = None
    uhp_min_ocpus: NonNeg | None = None   # VM OCPUs needed for multipath-enabled (UHP) attachments
    uhp: bool | None = None               # fixed shapes: multipath-enabled attachments supported
    family: str | None = None             # processor family / generation (E3, E4, E5, ...): picks base latency
    tiers: Tiers = Field(default_factory=empty_list)
    tier_sources: dict[str, str] = Field(default_factory=dict, description="GCP: the source of one volume type's "
                                         "per-VM caps in tiers where it is not the tiers' own (C4D's Hyperdisk "
                                         "Balanced rows beside its volume counts); checked when the catalog loads")
    vcpus: Whole | None = Field(default=None, description="vCPUs of a fixed size (OCI: see ocpus)")
    memory_gb: Rate | None = Field(default=None, description="memory of a fixed size, GiB")
    series: str | None = Field(default=None, description="the family a size belongs to (r7i, Ebdsv5, ...), for "
                                                         "search")
    direction: Direction | None = Field(default=None, description="whether the MB/s cap holds for each direction "
                                        "(each) or for reads and writes together (combined)")
    volume_types: list[str] = Field(default_factory=empty_list, description="volume types it can attach; [] = any")
    interfaces: list[Literal["scsi", "nvme"]] = Field(default_factory=empty_list, description="disk interfaces it "
                                                      "offers, the default first; [] = not a choice")
    weightings: list[str] = Field(default_factory=empty_list, description="AWS EBS bandwidth weightings it offers, "
                                                                          "the default first")
    caps: list[CapSet] = Field(default_factory=empty_list)
    machine_families: dict[str, MachineFamily] = Field(default_factory=dict, description="GCP: predefined "
                                                       "families of this series (n2-standard-16 = standard, 16)")
    unknown: list[str] = Field(default_factory=empty_list, description="figures not found in the sources read")
    current: bool = Field(default=True, description="a current-generation size (AWS CurrentGeneration); plan's "
                                                    "search of every family ('--instance any') leaves others out")

    @model_validator(mode="after")
    def _ocpu_range(self) -> Shape:
        if self.ocpus_min is not None and self.ocpus_max is not None and self.ocpus_min > self.ocpus_max:
            raise ValueError(f"ocpus_min {self.ocpus_min:g} is above ocpus_max {self.ocpus_max:g}")
        return self


class ComputePrice(Sourced):
    """On-demand compute price of one shape (USD per hour; cost.py turns it into a month of 730 h).

    Flexible shapes (OCI flex, GCP per-vCPU families): `per_ocpu_hour` (per vCPU for GCP) plus `per_gb_hour` of
    memory, memory at least `memory_min_gb_per_ocpu` per OCPU; fixed shapes: `per_hour` for the instance.
    """

    shape: str
    per_ocpu_hour: NonNeg | None = None
    per_gb_hour: NonNeg | None = None
    memory_min_gb_per_ocpu: Rate | None = None
    memory_default_gb_per_ocpu: Rate | None = None
    memory_max_gb_per_ocpu: Rate | None = None
    per_hour: NonNeg | None = None
    region: str


class Catalog(BaseModel):
    """One dated version of one cloud's limits and prices."""

    cloud: CloudName
    version: date
    title: str
    size_unit: str
    aliases: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=empty_list)
    sources: dict[str, Source]
    volume_types: dict[str, VolumeType]
    instance_rule: InstanceRule | None = None
    instance_burst: InstanceBurst | None = None
    shapes: dict[str, Shape]
    compute_prices: dict[str, ComputePrice] = Field(default_factory=dict)
    based_on: date | None = Field(default=None, description="an imported catalog: the shipped version it starts from")
    path: str = ""
    _citations: dict[str, Citation] = PrivateAttr(default_factory=dict)

    _derived: dict[Any, Any] = PrivateAttr(default_factory=dict)

    def source(self, source_id: str) -> Source:
        return self.sources[source_id]

    def derived(self, key: Any, make: Callable[[], Any]) -> Any:
        """A value computed from this catalog once and kept with it (a loaded catalog is not changed): plan's priced
        sizes per volume option, member caps and prices, which every shape plan searches shares."""
        mine = (id(self), key)   # a shallow model_copy shares the dict: its own entries
        if mine not in self._derived:
            self._derived[mine] = make()
        return self._derived[mine]

    def cite(self, entry: Sourced, field: str) -> Citation:
        """The source of one figure of one entry: id, public URL (None where blockfit assumed it), date. Made once
        per source: plan's search cites on its hot path."""
        return self.cite_source(entry.source_of(field))

    def cite_source(self, sid: str) -> Citation:
        """The citation of one source id (made once, see cite)."""
        found = self._citations.get(sid)
        if found is None:
            s = self.sources[sid]
            found = self._citations[sid] = Citation(id=s.id, url=None if s.url == "none" else s.url,
                                                    date=s.date.isoformat())
        return found


def tier_caps(tier: dict[str, Any]) -> bool:
    """Does a vCPU tier carry per-VM caps by volume type (GCP N2: pd-ssd = {iops, mbps}), not only volume counts
    (the Hyperdisk-only series, whose per-VM limits were not found)?"""
    return any(isinstance(v, dict) for v in tier.values())
