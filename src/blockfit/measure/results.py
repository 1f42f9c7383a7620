"""Read fio's JSON (local ``jobs`` or client/server ``client_stats``) into per-job figures and histograms."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from blockfit.measure.histogram import LatencyHistogram

AGGREGATE_JOBNAMES = {"All clients"}


@dataclass
class JobStats:
    """One fio job (reads and writes together) as reported by one host."""

    name: str
    hostname: str | None
    iops: float
    bw_bytes: float
    iops_mean: float
    iops_stddev: float
    runtime_ms: float
    histogram: LatencyHistogram


def job_entries(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-job entries, without fio's own "All clients" aggregate (which carries no bins)."""
    entries = data.get("client_stats") or data.get("jobs") or []
    return [e for e in entries if e.get("jobname") not in AGGREGATE_JOBNAMES]


def job_stats(data: dict[str, Any]) -> list[JobStats]:
    out = []
    for entry in job_entries(data):
        hist = LatencyHistogram()
        iops = bw = mean = var = runtime = 0.0
        for direction in ("read", "write"):
            d = entry.get(direction) or {}
            if not d.get("total_ios") and not d.get("io_bytes"):
                continue
            hist.add(LatencyHistogram.from_fio(d.get("lat_ns") or {}))
            iops += float(d.get("iops", 0.0))
            bw += float(d.get("bw_bytes", 0.0))
            mean += float(d.get("iops_mean", 0.0))
            var += float(d.get("iops_stddev", 0.0)) ** 2
            runtime = max(runtime, float(d.get("runtime", 0.0)))
        out.append(JobStats(name=str(entry.get("jobname")), hostname=entry.get("hostname"), iops=iops, bw_bytes=bw,
                            iops_mean=mean, iops_stddev=math.sqrt(var), runtime_ms=runtime, histogram=hist))
    return out
