"""What `blockfit model` predicts for a layout on an instance."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.layout import Layout, Workload
from blockfit.schema.result import ResultEnvelope


class LimitRow(BaseModel):
    """One limit, expressed at both I/O sizes so the binding one can be named, with its headroom."""

    name: str = Field(description="volume_iops_per_gb | volume_iops_cap | volume_mbps_per_gb | volume_mbps_cap | "
                                  "instance_iops | instance_mbps | iscsi_path (the paths' per-path ceilings x paths) | "
                                  "session_depth (iSCSI session queue depth x sessions) | host_queue_depth | "
                                  "outstanding_ios | ...")
    description: str
    iops_at_small_io: float
    mbps_at_large_io: float
    iops_headroom_pct: float = Field(description="how far above max_iops this limit sits (0 = binding)")
    mbps_headroom_pct: float
    source: str | None = None


class CostItem(BaseModel):
    item: str
    quantity: float
    unit: str
    unit_price: float | None
    monthly: float | None
    source: str | None = None


class CurvePoint(BaseModel):
    """One point of the predicted latency-versus-load curve (mean value analysis)."""

    outstanding: int
    iops: float
    mbps: float
    latency_ms: float


class Prediction(ResultEnvelope):

    kind: Literal["model"] = "model"
    cloud: str
    catalog_version: str
    layout: str = Field(description="the layout in spec grammar, e.g. 9x500G@balanced")
    layout_detail: Layout
    instance: str
    workload: Workload
    max_iops: float
    iops_limited_by: str
    max_mbps: float
    mbps_limited_by: str
    limits: list[LimitRow]
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
    cost_per_month: float | None
    cost: list[CostItem]
    latency_bound_ms: float | None = None
    max_iops_at_latency: float | None = None
    latency_ms_at_max_iops: float | None = None
    base_latency_ms: float
    curve: list[CurvePoint]
    warnings: list[str]
