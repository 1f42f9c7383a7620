"""Targets derived from measured workload history (`blockfit plan --from FILE ...`), with where they came from.

A DBA must be able to check every target against their own numbers: which files, what each one is (format,
devices or instances, sampling interval, samples, time span), which percentile of how many intervals, the
peak factor and why, the headroom, and the interval that held the peak.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.empty import empty_list

HistoryFormat = Literal[
    "iostat", "sadf", "diagnose", "csv",
    "awr", "awr-global", "statspack", "oracle-spool", "statspack-spool",
    "sqlserver", "cloudwatch", "oci-monitoring", "azure-monitor", "pg-recording", "prometheus",
]
MemberKind = Literal["device", "instance", "file", "volume", "disk", "series"]


class HistorySource(BaseModel):
    """One `--from` file (or URL) and what it held."""

    path: str = Field(description="the file (or URL) as given")
    format: HistoryFormat
    member_kind: MemberKind = Field(description="what its members are: devices, database instances, files, ...")
    members: list[str] = Field(description="the members summed per interval (empty: one unnamed series)")
    interval_s: float = Field(description="the sampling interval: the median interval length, in seconds")
    samples: int = Field(description="intervals read from this source (after skips)")
    start: str | None = Field(default=None, description="start of the first interval, ISO 8601 (None: no clock)")
    end: str | None = Field(default=None, description="end of the last interval, ISO 8601")
    database: str | None = Field(default=None, description="the database it describes (Oracle: name and DBID)")


class PeakWindow(BaseModel):
    """The interval that held the highest total of a figure (the one the peak and high percentiles rest on)."""

    label: str = Field(description="snapshot ids (AWR, Statspack) or the interval's start time")
    start: str | None = None
    end: str | None = None
    iops: float
    mbps: float


class HistoryPoint(BaseModel):
    """One interval of the summed series, as the report draws it."""

    t: float = Field(description="seconds since the start of the first interval")
    duration_s: float
    label: str
    read_iops: float
    write_iops: float
    read_mbps: float
    write_mbps: float
    peak_iops: float | None = Field(default=None, description="a finer maximum inside the interval, if the source "
                                                              "has one (AWR MAXVAL, CloudWatch Maximum)")
    peak_mbps: float | None = None


PercentileName = Literal["peak", "p99.9", "p99", "p95", "median", "custom"]


class DerivedTargets(BaseModel):
    """What `--from` read and how it turned intervals into targets, so the user can check the target's origin."""

    sources: list[HistorySource]
    samples: int = Field(description="intervals the percentile was taken over (all sources summed per interval)")
    interval_s: float = Field(description="the coarsest source's sampling interval, in seconds")
    percentile: float = Field(description="0 < p <= 100; 100 is the peak interval")
    percentile_name: PercentileName = Field(description="peak, p99.9, p99, p95, median (as DBAs say it) or custom")
    peak_factor: float = Field(description="multiplies the percentile: the burst inside an interval that the "
                                           "interval's average cannot show")
    peak_factor_source: str = Field(description="why this peak factor (the user's, the source's finer maximum, "
                                                "or the documented default)")
    headroom_pct: float
    iops: float = Field(description="the percentile of total IOPS (reads + writes) per interval, x the peak factor")
    mbps: float = Field(description="the percentile of total MB/s (10^6 B/s) per interval, x the peak factor")
    read_iops: float | None = Field(default=None, description="the percentile of read IOPS alone (None: unknown)")
    write_iops: float | None = Field(default=None, description="the percentile of write IOPS alone")
    read_pct: float = Field(description="reads' share of all I/Os over the whole history (of bytes where the "
                                        "format has no read/write split of I/Os), in percent")
    read_pct_from: Literal["ios", "bytes"] = "ios"
    target_iops: float = Field(description="iops x (1 + headroom)")
    target_mbps: float = Field(description="mbps x (1 + headroom)")
    peak_iops_window: PeakWindow | None = Field(default=None, description="the interval with the most IOPS")
    peak_mbps_window: PeakWindow | None = Field(default=None, description="the interval with the most MB/s")
    skipped: list[str] = Field(default_factory=empty_list, description="what was left out, and why")
    notes: list[str] = Field(default_factory=empty_list, description="mappings and reconciliations the readers made")
    warnings: list[str] = Field(default_factory=empty_list, description="what the plan cannot see from this history")
    series: list[HistoryPoint] = Field(default_factory=empty_list, description="the summed series (at most 2,000 "
                                                                               "points; longer ones are binned by max)")
    outstanding: float | None = Field(default=None, description="the percentile of the I/Os the chosen members "
                                      "kept in flight together per interval (the sum of their mean queues: iostat "
                                      "aqu-sz); None: the history does not say")
    outstanding_from: str | None = Field(default=None, description="what the in-flight figure was read from")
    host_cpus: int | None = Field(default=None, description="CPUs (hardware threads: vCPUs) of the largest host the "
                                  "history ran on; None: the history does not say")
    host_memory_gb: float | None = Field(default=None, description="memory of that host, GB (2^30 bytes); None: "
                                         "the history does not say")
    host_from: str | None = Field(default=None, description="what the host's CPUs and memory were read from")
