"""What `blockfit diagnose` concludes: Findings, each with evidence and a recommended change.

Kinds (documented set):
- flush_storm: cache flushes at a large fraction of writes and flush time a large share of write time
  (write barriers / fsync per write on a cache-backed device — the Claremont case).
- queue_depth_bound: in-flight I/O pinned at a limit while the device keeps up (Little's law: IOPS =
  in-flight / latency; more outstanding I/O would give more IOPS) — the iSCSI queue depth 32 case.
- member_cap: a device's IOPS or MB/s flat at a known cap (catalog, cgroup throttle) or a plateau.
- stripe_imbalance: one stripe member carrying far more than its share (a hot member).
- stripe_slow_member: one stripe member far slower (or far busier) than its siblings at its share of the I/O.
- instance_cap: the sum across volumes flat at the instance's block-storage limit.
- small_io_on_throughput_bound: IOPS at the cap with small requests while MB/s is far below its cap.
- misaligned_geometry: partition start or filesystem stripe unit not aligned to the stripe size.
- scheduler_readahead: a scheduler or read-ahead choice that fights the workload.
- multipath_one_path: a dm-multipath device with several paths whose I/O goes over one of them (failover
  grouping, failed paths): a volume whose rate scales with paths (OCI UHP over iSCSI) gets one path's worth.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.empty import empty_list
from blockfit.schema.result import ResultEnvelope

FindingKind = Literal[
    "flush_storm",
    "queue_depth_bound",
    "member_cap",
    "stripe_imbalance",
    "stripe_slow_member",
    "instance_cap",
    "small_io_on_throughput_bound",
    "misaligned_geometry",
    "scheduler_readahead",
    "multipath_one_path",
]
Severity = Literal["critical", "warning", "info"]
Metric = Literal["iops", "mbps"]


class Finding(BaseModel):
    kind: FindingKind
    device: str = Field(description="kernel device name the finding is about (loop3, dm-2, sdb)")
    severity: Severity
    metric: Metric | None = Field(default=None, description="the rate the finding is about (a cap held, a share), "
                                  "if it is about one: read this, never the summary")
    summary: str
    evidence: list[str] = Field(description="the measurements and settings that support the finding, in words")
    measurements: dict[str, float] = Field(default_factory=dict, description="the same evidence as numbers")
    recommendation: str


class DeviceSummary(BaseModel):
    """Medians over the intervals in which the device was active."""

    device: str
    role: str = Field(description="top | member | path (of a multipath map) | partition | device")
    parent: str | None = None
    active_intervals: int
    iops: float
    read_iops: float
    write_iops: float
    mbps: float
    avg_request_kb: float
    r_await_ms: float
    w_await_ms: float
    aqu_sz: float
    util_pct: float
    flushes_per_s: float | None = None
    flush_await_ms: float | None = None
    discards_per_s: float | None = None
    service_ms: float = Field(description="pt-diskstats stime: busy time per I/O (untrustworthy for parallel devices)")
    queue_ms: float = Field(description="pt-diskstats qtime: await minus stime")


class Diagnosis(ResultEnvelope):
    kind: Literal["diagnose"] = "diagnose"
    source: str = Field(description="'live' or 'replay:<file>'")
    interval_s: float
    duration_s: float
    samples: int
    devices: list[DeviceSummary]
    findings: list[Finding]
    caveats: list[str] = Field(default_factory=empty_list)
