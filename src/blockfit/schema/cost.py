"""Money and mirroring: the compute side of a month's cost, and the redundancy a layout writes with."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Redundancy = Literal["none", "normal", "high", "raid10"]
# Copies of every block: ASM normal = 2-way mirror, high = 3-way; mdadm RAID10 (near=2) = 2.
COPIES: dict[str, int] = {"none": 1, "normal": 2, "high": 3, "raid10": 2}


class ComputeCost(BaseModel):
    """The instance's monthly on-demand price (730 h) and how it was reached; monthly None = unknown."""

    shape: str
    ocpus: float | None = None
    memory_gb: float | None = Field(default=None, description="memory billed (flexible shapes)")
    per_hour: float | None = None
    monthly: float | None = None
    region: str | None = None
    source: str | None = None
    note: str | None = None


class CostBreakdown(BaseModel):
    """Storage + compute per month; total None when the compute price is unknown."""

    storage: float | None
    compute: float | None
    total: float | None
    hours_per_month: float = 730.0
    compute_detail: ComputeCost | None = None
