"""One scale factor for every cap, so the emulated plan stays well below what TCG itself can do.

Measured on these machines (4k random reads under TCG): about 10k IOPS on one disk, 8.8k through
device-mapper, 5.8k through XFS. A cloud stripe does hundreds of thousands, so the lab runs the plan
scaled down by one factor applied to *every* IOPS and MB/s cap (volumes and instance alike). Ratios
survive scaling: the stripe's speed-up, and which limit binds at which I/O size.
"""

from __future__ import annotations

import math

from blockfit.errors import InputError

# Totals the guest is asked to reach: well under TCG's ceiling so the emulator never becomes the limit.
IOPS_BUDGET = 2500.0
MBPS_BUDGET = 60.0
# Below this a cap is too coarse to measure in a 10 s run.
MIN_MEMBER_IOPS = 20.0


def choose_scale(max_iops: list[float], max_mbps: list[float], iops_budget: float = IOPS_BUDGET,
                 mbps_budget: float = MBPS_BUDGET) -> float:
    """The largest 'round' factor ≤ 1 that keeps every predicted total within the budgets.

    Rounded down to two significant digits so it reads well in reports (0.017, not 0.0177777).
    """
    candidates = [1.0]
    candidates += [iops_budget / v for v in max_iops if v > 0]
    candidates += [mbps_budget / v for v in max_mbps if v > 0]
    raw = min(candidates)
    if raw >= 1.0:
        return 1.0
    magnitude = 10 ** (math.floor(math.log10(raw)) - 1)
    return math.floor(raw / magnitude) * magnitude


def parse_scale(text: str) -> float | None:
    """'auto' → None (choose), else a factor in (0, 1]."""
    if text.strip().lower() == "auto":
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"--scale {text!r}: expected 'auto' or a factor in (0, 1], e.g. 0.02") from None
    if not 0 < value <= 1:
        raise InputError(f"--scale {text!r}: expected a factor in (0, 1], e.g. 0.02")
    return value
