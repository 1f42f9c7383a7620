"""One scale factor for every cap, so the emulated plan stays well below what TCG itself can do.

Measured on these machines (4k random reads under TCG): about 10k IOPS on one disk, 8.8k through
device-mapper, 5.8k through XFS. A cloud stripe does hundreds of thousands, so the lab runs the plan
scaled down by one factor applied to *every* IOPS and MB/s cap (volumes and instance alike). Ratios
survive scaling: the stripe's speed-up, and which limit binds at which I/O size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blockfit.errors import ValueProblem
from blockfit.lab.disks import Throttle
from blockfit.schema import Prediction
from blockfit.units import MB

# Totals the guest is asked to reach: well under TCG's ceiling so the emulator never becomes the limit.
IOPS_BUDGET = 2500.0
MBPS_BUDGET = 60.0


@dataclass(frozen=True)
class Scale:
    """The factors on IOPS caps and on MB/s caps: one and the same for `lab`, two for `lab --bench`."""

    iops: float
    mbps: float

    @classmethod
    def one(cls, factor: float) -> Scale:
        return cls(iops=factor, mbps=factor)


def member_throttle(pred: Prediction, scale: Scale, name: str) -> Throttle:
    """One member volume's cap: the model's per-member IOPS and MB/s x scale, with the cloud's I/O accounting size."""
    return Throttle(name=name, iops=max(1, round(pred.member_iops * scale.iops)),
                    bps=max(4096, round(pred.member_mbps * MB * scale.mbps)), iops_size=pred.member_io_accounting_bytes)


def path_throttle(pred: Prediction, scale: Scale, name: str) -> Throttle:
    """One path's cap: the model's per-path ceiling x scale (no cap where the model knows none)."""
    return Throttle(name=name,
                    iops=max(1, round(pred.path_iops_cap * scale.iops)) if pred.path_iops_cap else None,
                    bps=max(4096, round(pred.path_mbps_cap * MB * scale.mbps)) if pred.path_mbps_cap else None,
                    iops_size=pred.member_io_accounting_bytes)


def instance_throttle(pred: Prediction, scale: Scale) -> Throttle | None:
    """The instance's cap, shared by every disk of the guest; None when the model knows no instance cap."""
    iops = round(pred.instance_iops_cap * scale.iops) if pred.instance_iops_cap else None
    bps = round(pred.instance_mbps_cap * MB * scale.mbps) if pred.instance_mbps_cap else None
    return Throttle(name="instance", iops=iops, bps=bps) if (iops or bps) else None


def round_down(raw: float) -> float:
    """RAW rounded down to two significant digits (0.017, not 0.0177777), at most 1."""
    if raw >= 1.0:
        return 1.0
    magnitude = 10 ** (math.floor(math.log10(raw)) - 1)
    return math.floor(raw / magnitude) * magnitude


def choose_scale(max_iops: list[float], max_mbps: list[float], iops_budget: float = IOPS_BUDGET,
                 mbps_budget: float = MBPS_BUDGET) -> float:
    """The largest 'round' factor ≤ 1 that keeps every predicted total within the budgets.

    Rounded down to two significant digits so it reads well in reports (0.017, not 0.0177777).
    """
    candidates = [1.0]
    candidates += [iops_budget / v for v in max_iops if v > 0]
    candidates += [mbps_budget / v for v in max_mbps if v > 0]
    return round_down(min(candidates))


def parse_scale(text: str) -> float | None:
    """'auto' → None (choose), else a factor in (0, 1]."""
    if text.strip().lower() == "auto":
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueProblem(f"{text!r}: expected 'auto' or a factor in (0, 1], e.g. 0.02") from None
    if not 0 < value <= 1:
        raise ValueProblem(f"{text!r}: expected a factor in (0, 1], e.g. 0.02")
    return value
