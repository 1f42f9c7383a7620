"""What `blockfit calibrate` measures: CALIBRATE_IO's triplet, defensibly, with the curve behind it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.empty import empty_list
from blockfit.schema.result import ResultEnvelope


class DeviceFacts(BaseModel):
    """A target's device as sysfs describes it (for a file: the device holding its filesystem)."""

    path: str
    kind: Literal["block", "file", "remote"]
    device: str | None = None
    major_minor: str | None = None
    size_bytes: int | None = None
    scheduler: str | None = None
    nr_requests: int | None = None
    queue_depth: int | None = Field(default=None, description="device queue depth (SCSI device/queue_depth)")
    rotational: bool | None = None
    write_cache: str | None = Field(default=None, description="'write back' or 'write through'")
    logical_block_size: int | None = None
    max_sectors_kb: int | None = None
    max_io_bytes: int | None = Field(default=None, description="largest I/O the device takes unsplit: "
                                                               "min(max_sectors_kb, max_segments x page size)")
    model: str | None = None
    members: list[str] = Field(default_factory=empty_list, description="dm/md member devices (sysfs slaves)")
    loop_backing_file: str | None = None
    loop_direct_io: bool | None = None
    filesystem: str | None = None


class MeasuredPoint(BaseModel):
    """One data point: a fixed total of outstanding I/Os held for a warm-up plus a measured interval."""

    phase: Literal["small", "large"]
    outstanding: int = Field(description="total outstanding I/Os across all jobs and hosts")
    io_size: int = Field(description="bytes per I/O")
    iops: float
    mbps: float = Field(description="MB/s, 10^6 bytes/s")
    p50_ms: float
    p95_ms: float
    p99_ms: float
    percentile_ms: float = Field(description="total latency at the chosen percentile (merged json+ bins)")
    avg_ms: float
    within_bound: bool | None = Field(default=None, description="small I/O: percentile_ms <= bound")
    steady: bool = Field(description="IOPS samples varied by at most the steady-state tolerance")
    iops_cv: float = Field(description="coefficient of variation of the interval IOPS samples")
    seconds: float = Field(description="measured seconds (after warm-up)")
    ios: int = Field(description="I/Os counted in the histogram")
    confirmed: bool = Field(default=False, description="a second window at a depth whose figure rested on one")
    gain: float | None = Field(default=None, description="doubling sweeps: relative gain over the best earlier "
                                                         "point of the sweep (None: first point, or a bisection)")
    flat: bool = Field(default=False, description="a doubling that gained less than the search's minimum gain; "
                                                  "the sweep goes on past it (rate limiters plateau, then gain)")
    member_share: dict[str, float] = Field(default_factory=dict, description="target → share of completed I/Os")
    host_iops: dict[str, float] = Field(default_factory=dict, description="host → IOPS (multi-host runs)")


class Measurement(ResultEnvelope):
    """The result of `blockfit calibrate`: max IOPS at a latency bound, max MB/s, and the evidence."""

    kind: Literal["calibrate"] = "calibrate"

    targets: list[str]
    hosts: list[str] = Field(default_factory=empty_list, description="fio --server hosts (empty: local)")
    max_iops: float = Field(description="highest small-I/O IOPS whose latency percentile met the bound")
    max_mbps: float = Field(description="highest large-I/O throughput, MB/s (10^6 B/s)")
    latency_ms: float = Field(description="latency at the chosen percentile at the max-IOPS point")
    avg_latency_ms: float = Field(description="average latency at the max-IOPS point (CALIBRATE_IO's measure)")
    outstanding_at_max_iops: int
    outstanding_at_max_mbps: int
    saturation_iops: float = Field(description="highest small-I/O IOPS seen at any depth, bound or not")
    bound_met: bool = Field(description="False: even one outstanding I/O exceeded the latency bound")
    max_latency_ms: float = Field(description="the latency bound")
    percentile: float
    small_io: int
    large_io: int
    write_pct: int = 0
    curve: list[MeasuredPoint] = Field(default_factory=empty_list)
    member_share_at_max_iops: dict[str, float] = Field(default_factory=dict)
    member_share_at_max_mbps: dict[str, float] = Field(default_factory=dict)
    host_iops_at_max_iops: dict[str, float] = Field(default_factory=dict)
    fio_version: str
    engine: str
    large_engine: str | None = Field(default=None, description="engine of the large-I/O phase when it differs "
                                                              "(libaio for I/Os the device splits; see calibrate.py)")
    direct: bool
    job_files: dict[str, str] = Field(default_factory=dict, description="job file text at the max-IOPS and "
                                                                         "max-MB/s points")
    kernel: str
    device_facts: list[DeviceFacts] = Field(default_factory=empty_list)
    duration_budget_s: float
    elapsed_s: float
    warnings: list[str] = Field(default_factory=empty_list)
    partial: bool = Field(default=False, description="interrupted or fio failed: the curve is incomplete")
    stopped_by: str | None = Field(default=None, description="why a partial run stopped")
