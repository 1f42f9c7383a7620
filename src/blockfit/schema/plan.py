"""What `blockfit plan` writes (plan.json) and `build` and `lab` read."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.cost import COPIES, Cost, Redundancy, absent
from blockfit.schema.empty import empty_list
from blockfit.schema.history import DerivedTargets
from blockfit.schema.layout import Attachment, Instance, Layout, Manager
from blockfit.schema.migration import CurrentLayout, Migration
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
    instance_vcpus: float | None = Field(default=None, description="vCPUs of the instance named (on OCI its OCPUs "
                                                                   "in vCPUs); None: plan picks the smallest count")
    instance_ocpus: float | None = Field(default=None, exclude_if=absent,
                                         description="OCI only: the OCPUs named (OCI's unit); never written on other "
                                                     "clouds")
    levels: list[str] | None = None
    allow_hdd: bool = Field(default=False, description="consider HDD volume types (st1, sc1) without naming them")
    interface: Literal["scsi", "nvme"] | None = Field(default=None, description="disk interface (Azure); None = "
                                                      "the size's default")
    ebs_weighting: str | None = Field(default=None, description="AWS EBS bandwidth weighting; None = default")
    max_volumes: int | None = None
    manager: Manager = "lvm"
    read_pct: float = Field(default=100.0, ge=0.0, le=100.0, description="share of I/Os that are reads, percent")
    attachment: Attachment | None = Field(default=None, description="volume attachment type; None = the default")
    paths: int | None = Field(default=None, gt=0, description="paths per volume the host can use; None = plan says "
                                                              "how many the layout needs")
    queue_depth: int | None = Field(default=None, gt=0, description="iSCSI node.session.queue_depth the host runs; "
                                                                    "None = what blockfit build sets (128)")
    history: DerivedTargets | None = Field(default=None, description="where --from derived the targets")
    outstanding: int | None = Field(default=None, gt=0, description="total outstanding I/Os the workload keeps in "
                                    "flight: the target IOPS must be reached with that many (None: any number)")
    outstanding_from: Literal["option", "history"] | None = Field(
        default=None, description="--outstanding, or the history's own I/Os in flight (history.outstanding)")
    memory_gb: float | None = Field(default=None, gt=0, description="memory to price the compute at; None = the "
                                                                     "shape's minimum")
    vcpus_min: float | None = Field(default=None, gt=0, description="search vCPU counts from this (--cpus MIN-MAX "
                                                                     "where the cloud sells vCPUs); None on OCI")
    vcpus_max: float | None = Field(default=None, gt=0, description="search vCPU counts up to this; None on OCI")
    vcpus_floor: float | None = Field(default=None, gt=0, description="at least this many vCPUs on every shape, on "
                                      "OCI each shape's OCPUs counted in vCPUs (the history's host CPUs); None: "
                                      "no floor")
    ocpus_min: float | None = Field(default=None, gt=0, exclude_if=absent,
                                    description="OCI only: search OCPU counts from this (--cpus MIN-MAX)")
    ocpus_max: float | None = Field(default=None, gt=0, exclude_if=absent,
                                    description="OCI only: search OCPU counts up to this")
    redundancy: Redundancy = Field(default="none", description="ASM normal/high, mdadm raid10: writes x2/x3, "
                                                               "capacity /2 or /3")

    @property
    def read_share(self) -> float:
        """The read share as a fraction (0-1), for arithmetic."""
        return self.read_pct / 100

    @property
    def instance_count(self) -> float | None:
        """The count named, in the unit the cloud sells compute in (OCPUs on OCI, else vCPUs), as SHAPE:N has it."""
        return self.instance_ocpus if self.instance_ocpus is not None else self.instance_vcpus

    @property
    def count_min(self) -> float | None:
        """The search's lower bound in the cloud's selling unit (--cpus MIN-MAX)."""
        return self.ocpus_min if self.ocpus_min is not None else self.vcpus_min

    @property
    def count_max(self) -> float | None:
        return self.ocpus_max if self.ocpus_max is not None else self.vcpus_max

    @property
    def needed_gb(self) -> float:
        """Raw capacity to buy: usable capacity x growth x the redundancy's copies."""
        return self.capacity_gb * (1 + self.growth_pct / 100) * COPIES[self.redundancy]


# Requirements updates: the instance's count left for plan to pick; no search range of counts
OPEN_COUNT: dict[str, None] = {"instance_vcpus": None, "instance_ocpus": None}
NO_RANGE: dict[str, None] = {"vcpus_min": None, "vcpus_max": None, "ocpus_min": None, "ocpus_max": None}

PathGrouping = Literal["multibus", "failover"]
PathSelector = Literal["service-time 0", "round-robin 0", "queue-length 0"]


class MultipathPolicy(BaseModel):
    """How dm-multipath must use each volume's paths for the candidate's prediction to hold (multipath.conf(5)).

    The model multiplies one path's ceilings and session depth by the paths that carry I/O; that holds only
    when every path sits in one path group (multibus) and the selector keeps them all busy."""

    path_grouping_policy: PathGrouping = Field(description="multibus: every path in one group, all carry I/O; "
                                                           "failover: one path per group, one carries I/O")
    path_selector: PathSelector = Field(description="which path of the group takes the next I/O")


class BurstDrop(BaseModel):
    """Where a candidate's credits ran out while the history asked for more than its sustained rate."""

    t: float = Field(description="seconds since the start of the history")
    at: str | None = Field(default=None, description="the time it happened, ISO 8601 (None: the history has no "
                                                    "clock)")
    label: str = Field(description="the interval it happened in (its start time or snapshot ids)")
    bucket: str = Field(description="the bucket that ran out: its mechanism and the limit it lifted")
    asked_iops: float = Field(description="IOPS the history asked for then")
    asked_mbps: float
    delivered_iops: float = Field(description="IOPS the candidate delivers from then until demand falls")
    delivered_mbps: float


class BurstStretch(BaseModel):
    """A stretch of the history above the candidate's sustained rate, and how much of its burst it spent."""

    t: float = Field(description="seconds since the start of the history")
    label: str
    duration_s: float
    peak_iops: float
    peak_mbps: float
    budget_used_pct: float = Field(description="share of the fullest-spent bucket this stretch used (100: ran out)")
    bucket: str


class BurstReplay(BaseModel):
    """The recorded demand run through the candidate's credit buckets, starting full (docs/burst.md)."""

    meets_targets: bool = Field(description="demand above the sustained rate never outlasted the credits")
    summary: str = Field(description="the worst stretch and what it used, or where the credits ran out")
    intervals: int = Field(description="intervals replayed")
    stretches: int = Field(description="stretches of demand above the sustained rate")
    worst: BurstStretch | None = Field(default=None, description="the stretch that used the most of a bucket")
    drops: list[BurstDrop] = Field(default_factory=empty_list, description="where credits ran out (at most 20)")


class Candidate(BaseModel):
    """One layout on one instance the plan offers. Its figures, binding limits and cost are the model's own
    prediction of it (`prediction`), so `blockfit model` on the same layout, instance and workload agrees."""

    layout: str = Field(description="layout in spec grammar")
    instance: str = Field(description="instance spec SHAPE[:COUNT]")
    stripe_reason: str = Field(description="why this stripe unit (layout_detail.stripe_size, bytes)")
    meets_targets: bool = Field(description="the prediction meets every target of the requirements")
    session_queue_depth: int | None = Field(
        default=None, gt=0, description="iSCSI node.session.queue_depth the prediction assumes on every session "
                                        "(build sets it on the host); None = no iSCSI session")
    multipath: MultipathPolicy | None = Field(
        default=None, description="dm-multipath policy the prediction assumes for each volume's paths (build writes "
                                  "it for these volumes only); None = one path carries the I/O")
    prediction: Prediction
    burst_replay: BurstReplay | None = Field(default=None, description="plan --from: the history run through this "
                                             "candidate's credit buckets (None: nothing bursts, or no history)")

    @property
    def price_known(self) -> bool:
        """Is the storage priced? Candidates whose storage has no price are a group of their own, after the priced
        ones, never ranked among them (JSON: cost.storage is null)."""
        return self.cost.storage is not None

    @property
    def cap_known(self) -> bool:
        """Are the instance's IOPS and MB/s caps for this volume type known? Candidates resting on an unknown cap (not
        applied, so the figures may be impossible) are a group of their own, after the known ones (JSON:
        prediction.instance_iops_cap or instance_mbps_cap is null)."""
        return self.prediction.instance_iops_cap is not None and self.prediction.instance_mbps_cap is not None

    @property
    def layout_detail(self) -> Layout:
        return self.prediction.layout_detail

    @property
    def instance_detail(self) -> Instance:
        return self.prediction.instance_detail

    @property
    def max_iops(self) -> float:
        return self.prediction.max_iops

    @property
    def max_mbps(self) -> float:
        return self.prediction.max_mbps

    @property
    def cost(self) -> Cost:
        return self.prediction.cost

    @property
    def ranked_cost(self) -> float:
        """What plan ranks by: storage + compute (compute 0 when its price is unknown; no storage price: last)."""
        storage = self.cost.storage if self.cost.storage is not None else float("inf")
        return storage + (self.cost.compute or 0.0)

    def limited_by(self, req: Requirements) -> str:
        """The binding limit of the figure the targets ask for: IOPS unless only MB/s is asked."""
        p = self.prediction
        return p.iops_limited_by if req.target_iops is not None or req.target_mbps is None else p.mbps_limited_by


class Infeasible(BaseModel):
    """Why no layout meets the targets on the requested instance, the best it reaches, and the cheapest other
    shapes (priced, at total cost) on which the targets are met."""

    reason: str = Field(description="the targets missed, in words")
    missed: list[str] = Field(default_factory=empty_list,
                              description="each target missed, with the best figure reached")
    best: Candidate | None = Field(default=None, description="the cheapest layout reaching the best performance "
                                                             "on the requested instance; None: nothing holds the "
                                                             "capacity")
    alternatives: list[Candidate] = Field(default_factory=empty_list, description="other shapes that meet the targets, "
                                                                                  "cheapest total first")


class ShapeOffer(BaseModel):
    """The cheapest plan of one searched shape: its layout and what it costs a month (storage + compute = total)."""

    instance: str = Field(description="instance spec SHAPE[:COUNT] of that shape's cheapest plan")
    layout: str = Field(description="layout in spec grammar")
    cost: Cost = Field(description="storage None: a volume type without a price (and the total unknown)")


class InstanceSearch(BaseModel):
    """`plan --instance FAMILY|any`: which shapes were searched and how the cheapest was found."""

    query: str = Field(description="'any' or the family named with --instance (r7i, Ebdsv5, ...)")
    families: list[str] | None = Field(default=None, description="--family: the families searched")
    min_memory_gb: float | None = Field(default=None, description="--memory in a search: GB (2^30 bytes) at least")
    min_vcpus: int | None = Field(default=None, description="--cpus in a search: vCPUs at least")
    shapes: int = Field(description="shapes that passed the filters and were candidates")
    planned: int = Field(description="shapes whose cheapest plan was searched; the others could not beat the best "
                                     "on compute price (a lower bound of their total) alone")
    left_out: list[str] = Field(default_factory=empty_list, description="why shapes were not searched, with counts")
    unpriced: list[str] = Field(default_factory=empty_list, description="shapes that passed the filters but were not "
                                                                        "ranked for want of a compute price (their "
                                                                        "total is unknown, not high): import a price "
                                                                        "list to rank them")
    cheapest: list[ShapeOffer] = Field(default_factory=empty_list, description="the cheapest shapes, best first; the "
                                                                               "plan's candidates are on the first")


class Plan(ResultEnvelope):

    kind: Literal["plan"] = "plan"
    blockfit_version: str
    created: datetime
    cloud: str
    catalog_version: str
    requirements: Requirements
    feasible: bool = Field(default=True, description="False: nothing meets the targets (see infeasible)")
    candidates: list[Candidate] = Field(description="cheapest total first, all meeting the targets")
    pareto: list[Candidate] = Field(default_factory=empty_list, description="total cost vs IOPS vs MB/s frontier")
    outlasted: list[Candidate] = Field(default_factory=empty_list, description="plan --from: cheaper layouts whose "
                                       "burst figures meet the targets but whose credits the history outlasts (their "
                                       "burst_replay says when, and what they deliver then), cheapest first")
    infeasible: Infeasible | None = None
    notes: list[str] = Field(default_factory=empty_list)
    instance_search: InstanceSearch | None = Field(default=None, description="--instance FAMILY|any: the shapes "
                                                   "searched; None when one shape was named")
    current: CurrentLayout | None = Field(default=None, description="plan --inventory: the layout the host has "
                                                                    "under the mount point, and its prediction")
    migrations: list[Migration] = Field(default_factory=empty_list, description="plan --inventory: each way to "
                                        "move onto the recommended layout, and how long it takes")
