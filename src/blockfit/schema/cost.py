"""Money and mirroring: what a layout on an instance costs a month, and the redundancy a layout writes with."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.citation import Citation
from blockfit.schema.empty import empty_list

Redundancy = Literal["none", "normal", "high", "raid10"]
# Copies of every block: ASM normal = 2-way mirror, high = 3-way; mdadm RAID10 (near=2) = 2.
COPIES: dict[str, int] = {"none": 1, "normal": 2, "high": 3, "raid10": 2}
HOURS_PER_MONTH = 730.0


def absent(value: object) -> bool:
    """OCI's own unit is written only where a result has it: other clouds' JSON carries no `ocpus` at all."""
    return value is None


class CostItem(BaseModel):
    """One storage line item (all members together): 8 x 576 GB of Balanced storage, VPUs, provisioned IOPS."""

    item: str
    quantity: float
    unit: str
    unit_price: float | None = Field(description="US dollars per unit a month; None = not in the catalog")
    monthly: float | None
    source: Citation | None = None


class ComputeCost(BaseModel):
    """The instance's monthly on-demand price (730 h) and how it was reached; monthly None = unknown."""

    shape: str
    vcpus: float | None = Field(default=None, description="vCPUs billed (every cloud); None for a fixed shape")
    ocpus: float | None = Field(default=None, exclude_if=absent,
                                description="OCI only: the OCPUs billed (OCI prices per OCPU); never written on "
                                            "other clouds")
    memory_gb: float | None = Field(default=None, description="memory billed (flexible shapes)")
    per_hour: float | None = None
    monthly: float | None = None
    region: str | None = None
    source: Citation | None = None
    note: str | None = None


class Cost(BaseModel):
    """What a layout on an instance costs a month (730 h): storage + compute = total; a part None = unknown,
    and then the total is unknown too. The one cost shape of every result."""

    storage: float | None
    compute: float | None
    total: float | None
    hours_per_month: float = HOURS_PER_MONTH
    region: str | None = Field(default=None, description="the price region of every figure here")
    items: list[CostItem] = Field(default_factory=empty_list, description="storage line items")
    compute_detail: ComputeCost | None = None
