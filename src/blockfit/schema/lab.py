"""What `blockfit lab` reports: predicted versus measured, for the stripe and for the single volume.

All rates here are *scaled* (the lab runs every cap multiplied by ``scale``); divide by ``scale`` for
the cloud figures. MB/s is 10^6 bytes/s.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.bench import BenchResult
from blockfit.schema.cost import absent
from blockfit.schema.empty import empty_list
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
    paths: int | None = Field(default=None, description="guest devices (emulated paths) per volume; None: one, no "
                                                        "multipath")
    path_iops: int | None = Field(default=None, description="each path's own cap (ops/s)")
    path_bps: int | None = Field(default=None, description="each path's own cap, bytes/s")


class LabFigures(BaseModel):
    layout: str = Field(description="layout in spec grammar")
    members: int
    predicted_iops: float = Field(description="model's max IOPS x scale, over the limits the lab emulates")
    measured_iops: float
    predicted_mbps: float = Field(description="model's max MB/s x scale, over the limits the lab emulates")
    measured_mbps: float
    iops_spread: float | None = Field(default=None, description="relative standard error of the measured IOPS (the "
                                      "median of sub-window rates: 1.25 x 1.4826 MAD / sqrt(n) / median, at least the "
                                      "counting error); None: one window, no spread")
    mbps_spread: float | None = Field(default=None, description="relative standard error of the measured MB/s, "
                                                                "likewise")
    iops_windows: int = Field(default=1, description="sub-windows the measured IOPS is the median of")
    mbps_windows: int = Field(default=1, description="sub-windows the measured MB/s is the median of")
    emulator_iops: float | None = Field(default=None, description="the emulator's own IOPS in the same guest: the "
                                        "same device, I/O size and depth with the caps lifted, measured just before")
    emulator_mbps: float | None = Field(default=None, description="the emulator's own MB/s, likewise")
    limited_by: LabLimits = Field(description="the limit the measurement sits on (nearest emulated limit)")
    predicted_limited_by: LabLimits = Field(description="the limit the model names among those the lab emulates")
    model_iops: float | None = Field(default=None, description="the model's max IOPS x scale when a limit the lab "
                                                                "does not emulate binds (session depth: latency)")
    model_mbps: float | None = None
    model_limited_by: LabLimits | None = Field(default=None, description="that limit, as the model names it")
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
    vcpus: float | None = Field(default=None, description="vCPUs of the instance (on OCI its OCPUs in vCPUs); None: "
                                                          "a size whose name fixes them")
    ocpus: float | None = Field(default=None, exclude_if=absent, description="OCI only: the instance's OCPUs")
    manager: str
    fs: str
    small_io: int
    large_io: int
    iodepth: int
    runtime_s: float
    direction: Literal["read", "write"] = Field(
        default="read", description="what fio measured, stripe and single volume alike: read = random reads at both "
                                    "sizes; write = random writes at small_io (IOPS) and sequential writes at "
                                    "large_io (MB/s), against the model at read share 0 (--redundancy raid10)")
    redundancy: str = Field(default="none", description="none, or raid10: the stripe was an mdadm RAID10 (near-2)")
    single: LabFigures | None
    steps: list[LabStep] = Field(default_factory=empty_list)
    kernel: str
    guest_seconds: float
    console_log: str | None = Field(default=None, description="kept only when the run failed or --keep")


class LabBenchLayout(BaseModel):
    """One of the layouts a lab bench compares, as built in the guest."""

    label: str = Field(description="the label the bench reports it under")
    layout: str = Field(description="layout in spec grammar")
    members: int
    manager: str = Field(description="lvm | mdadm | none (a single volume)")
    fs: str
    mount: str = Field(description="mount point in the guest")
    predicted_iops: float = Field(description="model's max IOPS x scale")
    predicted_mbps: float = Field(description="model's max MB/s x mbps_scale")
    caps: LabCaps
    stripe_size: int | None = Field(default=None, description="stripe unit in bytes (LVM -I / mdadm --chunk); None "
                                                              "for a single volume")
    member_balance: dict[str, float] = Field(
        default_factory=dict,
        description="per measure: least / most busy member (I/Os completed over its runs); 1.0 is perfectly even")


class LabBenchRatio(BaseModel):
    """For one measure: how much faster the model says the other layout is, and what the database measured."""

    measure: str
    basis: Literal["iops", "mbps"] = Field(description="which predicted rate the measure leans on")
    predicted_ratio: float = Field(description="other / baseline, from the model's max IOPS or MB/s")
    measured_ratio: float | None = Field(description="other / baseline speed, from the bench (None: no verdict)")
    device_ratio: float | None = Field(default=None, description="other / baseline rate the members delivered on "
                                       "the basis, from the bench's device counters (Comparison.device_ratio)")
    baseline_cap_use: float | None = Field(default=None, description="fraction of its caps the baseline's members "
                                           "delivered (Comparison.baseline_cap_use)")
    other_cap_use: float | None = Field(default=None, description="fraction of its caps the other layout's "
                                        "members delivered (Comparison.other_cap_use)")
    ci_low: float | None = None
    ci_high: float | None = None
    verdict: str
    text: str
    io_bound_runs: str = Field(description="runs whose evidence says a device cap or flush latency held them, "
                                           "of all measured runs, e.g. '10/10'")


class LabBenchResult(ResultEnvelope):
    """`blockfit lab --bench`: two layouts built in one guest, a PostgreSQL bench on each, next to the model."""

    kind: Literal["lab-bench"] = "lab-bench"

    scale: float = Field(description="factor on every IOPS cap")
    mbps_scale: float = Field(description="factor on every MB/s cap (larger: DSS scans must finish)")
    cloud: str
    instance: str
    vcpus: float | None = Field(default=None, description="vCPUs of the instance (on OCI its OCPUs in vCPUs); None: "
                                                          "a size whose name fixes them")
    ocpus: float | None = Field(default=None, exclude_if=absent, description="OCI only: the instance's OCPUs")
    versus: str = Field(description="what differs between the layouts: single | lvm | mdadm | xfs | ext4")
    baseline: LabBenchLayout
    other: LabBenchLayout
    ratios: list[LabBenchRatio]
    bench: BenchResult
    cap_changes: list[str] = Field(default_factory=empty_list, description="the guest's lift/apply requests, answered")
    steps: list[LabStep] = Field(default_factory=empty_list)
    kernel: str
    guest_seconds: float
    console_log: str | None = None
