"""Typed catalog entries. Every figure is traceable: an entry names its default source id, and
`sources` can override that per field; each source carries its URL and the date its figures held."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from blockfit.schema.citation import Citation


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

    vpu: int
    name: str
    iops_per_gb: float
    max_iops: float
    kbps_per_gb: float
    max_mbps: float


class LatencyFigure(Sourced):
    """The unloaded time of one I/O for shapes of some families over one attachment type (OCI): a fixed part
    (network round trip, target, media) plus the transfer of the I/O's bytes over one path."""

    families: list[str] = Field(description="shape families it holds for (Shape.family), '*' for any")
    attachment: str | None = Field(default=None, description="iscsi | paravirtualized; None = any")
    base_ms: float
    path_mbps: float | None = Field(default=None, description="bytes one path moves per second for one I/O, MB/s "
                                                              "(per-I/O transfer time = I/O size / this)")
    host_ms: float = Field(default=0.0, description="time each I/O spends in the host outside the device "
                                                   "(submission, completion, reaping), ms; 0 where not separated")


class VolumeType(Sourced):
    """One volume type. `kind` selects the performance/cost rules in blockfit.model.volume_kinds;
    each kind documents which of the optional fields it reads."""

    name: str
    kind: Literal["oci_vpu", "aws_gp3", "aws_gp2", "aws_piops", "aws_hdd",
                  "azure_tiered", "azure_provisioned", "gcp_pd", "gcp_hyperdisk"]
    description: str
    min_gb: float
    max_gb: float
    size_step_gb: float = 1
    throughput_unit: Literal["MB/s", "MiB/s"] = "MB/s"
    io_accounting_kib: int | None = None
    kbps_unit_bytes: int = 1000                 # bytes in the "KB" of kbps_per_gb (OCI: 1,024, see catalog)
    base_latency_ms: float
    latencies: list[LatencyFigure] = Field(default_factory=list)   # by shape family and attachment (OCI)
    levels_from: str | None = None              # copy the levels of another type (OCI boot volumes)
    min_vpu: int = 0                            # levels below this VPU/GB are not sold for this type
    max_iops_cap: float | None = None           # a cap over every level's max IOPS (OCI UHP boot: 50,000)
    attachments: list[str] = Field(default_factory=list)           # allowed attachment types; [] = any
    max_paths: int | None = None                # paths one attachment can have (OCI boot volumes: 1, no multipath)
    max_members: int | None = None              # volumes of this type one instance has (OCI boot volume: 1)
    ssd: bool = True
    pv_max_iops: float | None = None
    # attachments (oci_vpu): iSCSI paths and sessions
    iscsi_session_depth: int | None = None      # I/Os one iSCSI session runs at once (node.session.queue_depth)
    path_max_iops: float | None = None          # one iSCSI path's IOPS ceiling
    path_max_mbps: float | None = None          # one iSCSI path's throughput ceiling, MB/s
    default_attachment: str | None = None       # attachment type when none is given
    default_paths: dict[str, int] = Field(default_factory=dict)   # paths carrying I/O per attachment type
    # provisioned performance (aws_gp3, aws_piops, azure_provisioned, gcp_hyperdisk)
    iops_included: float | None = None
    iops_min: float | None = None
    iops_max: float | None = None
    iops_per_gb: float | None = None
    iops_per_gb_max: float | None = None
    iops_free_gb: float | None = None
    tput_included: float | None = None
    tput_min: float | None = None
    tput_max: float | None = None
    tput_per_gb: float | None = None
    tput_per_iops: float | None = None
    tput_per_iops_max: float | None = None
    tput_provisionable: bool = False
    tput_burst_per_gb: float | None = None      # burst throughput per GiB while credits last (aws_hdd), type's unit
    tput_burst_max: float | None = None
    # tiers (aws_piops io1 throughput steps, azure_tiered sizes)
    tiers: list[dict[str, Any]] = Field(default_factory=list)
    levels: list[OciLevel] = Field(default_factory=list)
    # prices (USD per month)
    price_per_gb: float | None = None
    price_per_vpu_gb: float | None = None
    price_per_iops: float | None = None
    price_iops_tiers: list[dict[str, float]] = Field(default_factory=list)
    price_tiers: list[dict[str, Any]] = Field(default_factory=list)   # per-disk price by size tier (azure_tiered)
    price_per_tput: float | None = None
    price_region: str | None = None


Direction = Literal["each", "combined"]


class InstanceRule(Sourced):
    """OCI's VM rule: IOPS and block-volume throughput scale with network bandwidth."""

    iops_per_gbps: float
    iops_max: float
    mbps_per_gbps: float
    mbps_max: float
    direction: Direction | None = Field(default=None, description="the MB/s cap holds for each direction (a "
                                        "full-duplex network) or for reads and writes combined; None: see Shape")


class CapSet(Sourced):
    """Instance caps that hold only for some volume types, one disk interface or one bandwidth weighting: Azure
    publishes one pair per disk family (Premium SSD vs Premium SSD v2 / Ultra) and interface (SCSI vs NVMe),
    AWS 8th-generation types one per EBS bandwidth weighting (default, ebs-1), GCP one for Persistent Disk and
    one for Hyperdisk. The first CapSet whose selectors all match is used; selectors left empty match anything."""

    volume_types: list[str] = Field(default_factory=list, description="volume type keys; [] = every type")
    interface: Literal["scsi", "nvme"] | None = None
    weighting: str | None = Field(default=None, description="AWS bandwidth weighting: default | ebs-1 | vpc-1")
    iops: float | None = None
    mbps: float | None = None
    iops_burst: float | None = None
    mbps_burst: float | None = None


class MachineFamily(BaseModel):
    """A GCP predefined machine family of one series (standard, highmem, highcpu): memory per vCPU and sizes."""

    gb_per_vcpu: float
    vcpus: list[int]
    memory_gb: dict[int, float] = Field(default_factory=dict, description="sizes whose memory is not "
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
    ocpus_min: float | None = None
    ocpus_max: float | None = None
    ocpus: float | None = None
    ocpu_counts: list[int] = Field(default_factory=list, description="flex shapes sold only at these OCPU counts "
                                                                     "(OCI DenseIO Flex); [] = any in the range")
    gbps_per_ocpu: float | None = None
    gbps_max: float | None = None
    gbps: float | None = None
    iops: float | None = None
    mbps: float | None = None
    iops_burst: float | None = None
    mbps_burst: float | None = None
    attach_max: int | None = None
    attach_pv_max: int | None = None
    uhp_min_ocpus: float | None = None    # VM OCPUs needed for multipath-enabled (UHP) attachments
    uhp: bool | None = None               # fixed shapes: multipath-enabled attachments supported
    family: str | None = None             # processor family / generation (E3, E4, E5, ...): picks base latency
    tiers: list[dict[str, Any]] = Field(default_factory=list)
    vcpus: int | None = Field(default=None, description="vCPUs of a fixed size (OCI: see ocpus)")
    memory_gb: float | None = Field(default=None, description="memory of a fixed size, GiB")
    series: str | None = Field(default=None, description="the family a size belongs to (r7i, Ebdsv5, ...), for "
                                                         "search")
    direction: Direction | None = Field(default=None, description="whether the MB/s cap holds for each direction "
                                        "(each) or for reads and writes together (combined)")
    volume_types: list[str] = Field(default_factory=list, description="volume types it can attach; [] = any")
    interfaces: list[Literal["scsi", "nvme"]] = Field(default_factory=list, description="disk interfaces it "
                                                      "offers, the default first; [] = not a choice")
    weightings: list[str] = Field(default_factory=list, description="AWS EBS bandwidth weightings it offers, "
                                                                    "the default first")
    caps: list[CapSet] = Field(default_factory=list)
    machine_families: dict[str, MachineFamily] = Field(default_factory=dict, description="GCP: predefined "
                                                       "families of this series (n2-standard-16 = standard, 16)")
    unknown: list[str] = Field(default_factory=list, description="figures not found in the sources read")
    current: bool = Field(default=True, description="a current-generation size (AWS CurrentGeneration); plan's "
                                                    "search of every family ('--instance any') leaves others out")


class ComputePrice(Sourced):
    """On-demand compute price of one shape (USD per hour; cost.py turns it into a month of 730 h).

    Flexible shapes (OCI flex, GCP per-vCPU families): `per_ocpu_hour` (per vCPU for GCP) plus `per_gb_hour` of
    memory, memory at least `memory_min_gb_per_ocpu` per OCPU; fixed shapes: `per_hour` for the instance.
    """

    shape: str
    per_ocpu_hour: float | None = None
    per_gb_hour: float | None = None
    memory_min_gb_per_ocpu: float | None = None
    memory_default_gb_per_ocpu: float | None = None
    memory_max_gb_per_ocpu: float | None = None
    per_hour: float | None = None
    region: str


class Catalog(BaseModel):
    """One dated version of one cloud's limits and prices."""

    cloud: Literal["oci", "aws", "azure", "gcp"]
    version: date
    title: str
    size_unit: str
    aliases: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    sources: dict[str, Source]
    volume_types: dict[str, VolumeType]
    instance_rule: InstanceRule | None = None
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
        sid = entry.source_of(field)
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
