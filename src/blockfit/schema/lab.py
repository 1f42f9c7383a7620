"""What `blockfit lab` reports: predicted versus measured, for the stripe and for the single volume.

All rates here are *scaled* (the lab runs every cap multiplied by ``scale``); divide by ``scale`` for
the cloud figures. MB/s is 10^6 bytes/s.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.result import ResultEnvelope


class LabLimits(BaseModel):
    """Which limit binds: for IOPS (at the small I/O size) and for MB/s (at the large I/O size)."""

    iops: str
    mbps: str


class LabCaps(BaseModel):
    """The throttles the guest's disks actually ran with (already scaled)."""

    member_iops: int | None
    member_bps: int | None = Field(description="bytes/s")
    member_iops_size: int | None = None
    instance_iops: int | None = None
    instance_bps: int | None = Field(default=None, description="bytes/s")


class LabFigures(BaseModel):
    layout: str = Field(description="layout in spec grammar")
    members: int
    predicted_iops: float = Field(description="model's max IOPS x scale")
    measured_iops: float
    predicted_mbps: float = Field(description="model's max MB/s x scale")
    measured_mbps: float
    iops_spread: float = Field(default=0.0, description="relative standard error of the measured IOPS (median of "
                                                        "one-second rates: 1.25 sd / sqrt(n) / median)")
    mbps_spread: float = Field(default=0.0, description="relative standard error of the measured MB/s, likewise")
    limited_by: LabLimits = Field(description="the limit the measurement sits on (nearest emulated limit)")
    predicted_limited_by: LabLimits = Field(description="the limit the model names")
    iops_ratio: float = Field(description="measured / predicted IOPS")
    mbps_ratio: float = Field(description="measured / predicted MB/s")
    caps: LabCaps


class LabStep(BaseModel):
    """One thing done in the guest (build script, check), with its outcome."""

    name: str
    ok: bool
    detail: str = ""


class LabResult(LabFigures, ResultEnvelope):
    """The stripe's figures at top level; the single-volume alternative under ``single``."""

    kind: Literal["lab"] = "lab"

    scale: float
    cloud: str
    instance: str
    manager: str
    fs: str
    small_io: int
    large_io: int
    iodepth: int
    runtime_s: float
    single: LabFigures | None
    steps: list[LabStep] = Field(default_factory=list)
    kernel: str
    guest_seconds: float
    console_log: str | None = Field(default=None, description="kept only when the run failed or --keep")
