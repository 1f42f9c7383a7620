"""What `blockfit model` predicts for a layout on an instance."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from blockfit.schema.citation import Citation
from blockfit.schema.cost import Cost
from blockfit.schema.empty import empty_list
from blockfit.schema.layout import Instance, Layout, Workload
from blockfit.schema.result import ResultEnvelope


class Limit(BaseModel):
    """One limit, expressed at both I/O sizes so the binding one can be named, with its headroom."""

    name: str = Field(description="volume_iops_per_gb | volume_iops_cap | volume_mbps_per_gb | volume_mbps_cap | "
                                  "instance_iops | instance_mbps | iscsi_path (the paths' per-path ceilings x paths) | "
                                  "session_depth (iSCSI session queue depth x sessions) | host_queue_depth | "
                                  "outstanding_ios | ...")
    description: str
    iops: float = Field(description="I/Os per second this limit allows at the workload's small I/O size")
    mbps: float = Field(description="MB/s this limit allows at the workload's large I/O size")
    iops_headroom_pct: float = Field(description="how far above max_iops this limit sits (0 = binding)")
    mbps_headroom_pct: float
    sources: list[Citation] = Field(default_factory=empty_list, description="where the figures behind this limit "
                                                                            "come from (a Little's-law row rests on "
                                                                            "several)")


class CurvePoint(BaseModel):
    """One point of the predicted latency-versus-load curve (mean value analysis)."""

    outstanding: int
    iops: float
    mbps: float
    latency_ms: float


BurstMechanism = Literal["aws_instance", "aws_gp2", "aws_hdd", "azure_disk", "azure_vm"]


class BurstBucket(BaseModel):
    """One credit bucket of a layout: the limit it lifts, from what to what, how long a full one lasts and how it
    refills. Figures are the layout's (every member's bucket together); an IOPS bucket has the *_iops pair, a MB/s
    bucket the *_mbps pair."""

    mechanism: BurstMechanism
    limit: str = Field(description="the Limit row (name) this bucket lifts while it holds credits")
    sustained_iops: float | None = Field(default=None, description="the limit's sustained IOPS (the baseline)")
    burst_iops: float | None = Field(default=None, description="the limit's IOPS while credits last")
    sustained_mbps: float | None = Field(default=None, description="the limit's sustained MB/s")
    burst_mbps: float | None = Field(default=None, description="the limit's MB/s while credits last")
    spent_by: Literal["credits", "time"] = Field(description="credits: every I/O (MB) above the sustained rate "
                                                           "spends one; time: every second above it spends one "
                                                           "second of the budget, whatever the rate")
    full_s: float = Field(description="seconds a full bucket lasts at the burst figure (credits: full bucket / "
                                      "(burst - sustained))")
    refill: str = Field(description="how the credits come back, in words")
    refill_s: float | None = Field(default=None, description="spent by time: an empty budget is full again after "
                                                            "this long, seconds")
    iops_draw: float = Field(description="the bucket's rate asked by one I/O per second of the workload's small I/O")
    mbps_draw: float = Field(description="the bucket's rate asked by one MB/s of the workload's large I/O")
    source: Citation

    @property
    def sustained(self) -> float:
        """The sustained figure in the bucket's own rate (IOPS or MB/s)."""
        return self.sustained_iops if self.sustained_iops is not None else self.sustained_mbps or 0.0

    @property
    def burst(self) -> float:
        return self.burst_iops if self.burst_iops is not None else self.burst_mbps or 0.0

    @property
    def credits(self) -> float:
        """A full bucket: I/Os or MB; spent by time, seconds."""
        return self.full_s if self.spent_by == "time" else self.full_s * (self.burst - self.sustained)


class Burst(BaseModel):
    """What the layout delivers while its credit buckets last (every bursting cap at its burst figure), and for
    how long from full credits: the shortest-lived bucket the burst drains."""

    max_iops: float = Field(description="IOPS at small_io while the buckets hold credits")
    max_mbps: float = Field(description="MB/s at large_io while the buckets hold credits")
    iops_limited_by: str
    mbps_limited_by: str
    iops_duration_s: float | None = Field(description="seconds max_iops lasts from full buckets; None: it drains "
                                                      "none")
    mbps_duration_s: float | None = Field(description="seconds max_mbps lasts from full buckets; None: it drains "
                                                      "none")
    buckets: list[BurstBucket]


class Prediction(ResultEnvelope):

    kind: Literal["model"] = "model"
    cloud: str
    catalog_version: str
    layout: str = Field(description="the layout in spec grammar, e.g. 9x500G@balanced")
    layout_detail: Layout
    instance: str = Field(description="the instance in spec grammar, e.g. VM.Standard.E3.Flex:12")
    instance_detail: Instance
    workload: Workload
    max_iops: float = Field(description="the lowest limit's IOPS at small_io: what the layout delivers")
    iops_limited_by: str = Field(description="name of the limit holding max_iops")
    max_mbps: float = Field(description="the lowest limit's MB/s at large_io")
    mbps_limited_by: str = Field(description="name of the limit holding max_mbps")
    limits: list[Limit]
    member_iops: float = Field(description="one member's IOPS cap (ops/s, size x level, capped)")
    member_mbps: float = Field(description="one member's throughput cap in MB/s (10^6 B/s)")
    member_io_accounting_bytes: int | None = Field(
        default=None, description="I/Os larger than this count as several ops against IOPS caps (AWS SSD: 256 KiB)")
    instance_iops_cap: float | None = Field(default=None, description="instance IOPS cap (ops/s); None = none known")
    instance_mbps_cap: float | None = Field(default=None, description="instance block-storage throughput cap, MB/s")
    attachment: str | None = Field(default=None, description="iscsi | paravirtualized (OCI); None where not modelled")
    paths: int | None = Field(default=None, description="paths per volume carrying I/O (after the attachment default)")
    path_iops_cap: float | None = Field(default=None, description="one iSCSI path's IOPS ceiling (ops/s); None = none")
    path_mbps_cap: float | None = Field(default=None, description="one iSCSI path's throughput ceiling, MB/s")
    session_depth: int | None = Field(
        default=None, description="I/Os one iSCSI session (path) runs at once (node.session.queue_depth); None = none")
    paths_needed: int | None = Field(
        default=None, description="iSCSI paths per volume whose ceilings reach one volume's caps (UHP: several)")
    cost: Cost = Field(description="storage + compute per month (730 h), with the storage line items")
    latency_bound_ms: float | None = None
    max_iops_at_latency: float | None = None
    latency_ms_at_max_iops: float | None = None
    base_latency_ms: float
    curve: list[CurvePoint]
    warnings: list[str]
    notes: list[str] = Field(default_factory=empty_list, description="what the figures assume, said once")
    burst: Burst | None = Field(default=None, description="the burst beside the sustained max_iops / max_mbps; "
                                                          "None: nothing in the layout bursts (no_burst_reason)")
    no_burst_reason: str | None = Field(default=None, description="why there is no burst (None when there is one)")
    redundancy: str = Field(default="none", description="none | normal | high (ASM) | raid10 (mdadm)")
    write_amplification: float = Field(default=1.0, description="volume I/Os per logical I/O: reads + writes x copies")
    usable_gb: float | None = Field(default=None, description="capacity after mirroring (raw / copies)")
    redundancy_note: str | None = Field(default=None, description="which side the mirrored writes exhaust")

    def limit_description(self, name: str) -> str | None:
        """The words of the limits row NAME (what `model` prints for it); None where the table has no such row."""
        return next((row.description for row in self.limits if row.name == name), None)

    def latency_floor_ms(self) -> float | None:
        """What one I/O alone takes, when that is already above the latency bound (no load then meets it)."""
        if self.latency_bound_ms is None or not self.curve or self.curve[0].latency_ms <= self.latency_bound_ms:
            return None
        return self.curve[0].latency_ms

    @model_validator(mode="after")
    def _binding_limits_are_rows(self) -> Prediction:
        """The binding limits name rows of the table: a file that says otherwise is refused when read, not
        rendered half (the report reads each binding limit's description from its row)."""
        names = {row.name for row in self.limits}
        if not names:   # a prediction made by hand for a build or a test carries no table to check against
            return self
        for field in ("iops_limited_by", "mbps_limited_by"):
            name = getattr(self, field)
            if name not in names:
                raise ValueError(f"{field} {name!r} is not one of the limits ({', '.join(sorted(names))})")
        return self
