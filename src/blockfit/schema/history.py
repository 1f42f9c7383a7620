"""Targets derived from measured workload history (`blockfit plan --from FILE`), with their origin."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

HistoryFormat = Literal["iostat", "sadf", "diagnose", "csv", "prometheus"]


class DerivedTargets(BaseModel):
    """What `--from` read and how it turned samples into targets, so the user can check the target's origin."""

    source: str = Field(description="the history file")
    format: HistoryFormat
    devices: list[str] = Field(description="devices summed per sample (empty for a CSV: one series)")
    samples: int = Field(description="samples the percentile was taken over")
    skipped: list[str] = Field(default_factory=list, description="what was left out, and why")
    percentile: float
    headroom_pct: float
    iops: float = Field(description="the percentile of total IOPS (reads + writes) per sample, before headroom")
    mbps: float = Field(description="the percentile of total MB/s (10^6 B/s) per sample, before headroom")
    read_iops: float | None = Field(default=None, description="the percentile of read IOPS alone (None: unknown)")
    write_iops: float | None = Field(default=None, description="the percentile of write IOPS alone")
    read_pct: float = Field(description="reads' share of all I/Os over the whole file (of bytes where the format "
                                        "has no read/write split of I/Os), in percent")
    read_pct_from: Literal["ios", "bytes"] = "ios"
    target_iops: float = Field(description="iops x (1 + headroom)")
    target_mbps: float = Field(description="mbps x (1 + headroom)")
