"""What `blockfit plan` writes (plan.json) and `build` and `lab` read."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.cost import COPIES, CostBreakdown, Redundancy
from blockfit.schema.history import DerivedTargets
from blockfit.schema.layout import Attachment, Layout, Manager
from blockfit.schema.prediction import Prediction
from blockfit.schema.result import ResultEnvelope


class Requirements(BaseModel):
    cloud: str
    capacity_gb: float
    growth_pct: float = 0.0
    target_iops: float | None = None
    target_mbps: float | None = None
    max_latency_ms: float | None = None
    small_io: int = 8192
    large_io: int = 1024 * 1024
    instance_shape: str
    instance_ocpus: float | None = Field(default=None, description="None: plan picks the smallest count")
    levels: list[str] | None = None
    allow_hdd: bool = Field(default=False, description="consider HDD volume types (st1, sc1) without naming them")
    interface: Literal["scsi", "nvme"] | None = Field(default=None, description="disk interface (Azure); None = "
                                                      "the size's default")
    ebs_weighting: str | None = Field(default=None, description="AWS EBS bandwidth weighting; None = default")
    max_volumes: int | None = None
    manager: Manager = "lvm"
    read_fraction: float = Field(default=1.0, ge=0.0, le=1.0, description="share of I/Os that are reads")
    attachment: Attachment | None = Field(default=None, description="volume attachment type; None = the default")
    paths: int | None = Field(default=None, gt=0, description="paths per volume the host can use; None = plan says "
                                                              "how many the layout needs")
    history: DerivedTargets | None = Field(default=None, description="where --from derived the targets")
    memory_gb: float | None = Field(default=None, gt=0, description="memory to price the compute at; None = the "
                                                                     "shape's minimum")
    ocpus_min: float | None = Field(default=None, gt=0, description="search OCPU counts from this (--ocpus MIN-MAX)")
    ocpus_max: float | None = Field(default=None, gt=0, description="search OCPU counts up to this")
    redundancy: Redundancy = Field(default="none", description="ASM normal/high, mdadm raid10: writes x2/x3, "
                                                               "capacity /2 or /3")

    @property
    def needed_gb(self) -> float:
        """Raw capacity to buy: usable capacity x growth x the redundancy's copies."""
        return self.capacity_gb * (1 + self.growth_pct / 100) * COPIES[self.redundancy]


class Candidate(BaseModel):
    layout: str = Field(description="layout in spec grammar")
    layout_detail: Layout
    instance: str = Field(description="instance spec SHAPE[:OCPUS]")
    max_iops: float
    max_mbps: float
    cost_per_month: float
    stripe_size: str = Field(description="recommended stripe size, fio spelling (e.g. 4m)")
    stripe_size_bytes: int
    stripe_reason: str
    limited_by: str = Field(description="what caps the target-relevant figure")
    min_ocpus: float | None = None
    cost: CostBreakdown | None = Field(default=None, description="storage + compute per month (730 h); plan ranks "
                                                                 "by cost_per_month = storage + known compute")
    meets_targets: bool = True
    attachment: str | None = Field(default=None, description="attachment type each volume must use (OCI)")
    paths: int | None = Field(default=None, description="iSCSI paths per volume the attachment must carry I/O on "
                                                        "(UHP: multipath with this many paths)")
    prediction: Prediction


class ShapeOffer(BaseModel):
    """The cheapest plan of one searched shape: what its total came to."""

    instance: str = Field(description="instance spec SHAPE[:OCPUS] of that shape's cheapest plan")
    layout: str
    storage: float | None = Field(description="US dollars a month; None: a volume type without a price")
    compute: float | None
    total: float = Field(description="what plan ranks by: storage + compute, US dollars a month (730 h)")


class InstanceSearch(BaseModel):
    """`plan --instance FAMILY|any`: which shapes were searched and how the cheapest was found."""

    query: str = Field(description="'any' or the family named with --instance (r7i, Ebdsv5, ...)")
    families: list[str] | None = Field(default=None, description="--family: the families searched")
    min_memory_gb: float | None = Field(default=None, description="--min-memory: GB (2^30 bytes) at least")
    min_vcpus: int | None = Field(default=None, description="--min-vcpus: vCPUs at least")
    shapes: int = Field(description="shapes that passed the filters and were candidates")
    planned: int = Field(description="shapes whose cheapest plan was searched; the others could not beat the best "
                                     "on compute price (a lower bound of their total) alone")
    left_out: list[str] = Field(default_factory=list, description="why shapes were not searched, with counts")
    cheapest: list[ShapeOffer] = Field(default_factory=list, description="the cheapest shapes, best first; the "
                                                                         "plan's candidates are on the first")


class Plan(ResultEnvelope):

    kind: Literal["plan"] = "plan"
    blockfit_version: str
    created: datetime
    cloud: str
    catalog_version: str
    requirements: Requirements
    candidates: list[Candidate] = Field(description="cheapest first, all meeting the targets")
    pareto: list[Candidate] = Field(default_factory=list, description="cost vs IOPS vs MB/s frontier")
    notes: list[str] = Field(default_factory=list)
    instance_search: InstanceSearch | None = Field(default=None, description="--instance FAMILY|any: the shapes "
                                                   "searched; None when one shape was named")
