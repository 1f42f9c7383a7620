"""What a layout on an instance costs a month (730 h): the storage line items of every member plus the compute.

Storage comes from the volume kinds' line items (one member's, times the members); compute from
model/compute.py. A part the catalog cannot price is unknown (None), and so is the total: nothing is summed
over a gap. The region named is the one the catalog prices in.
"""

from __future__ import annotations

from blockfit.catalog import Catalog
from blockfit.catalog.models import VolumeType
from blockfit.model.compute import compute_cost
from blockfit.model.kinds import KINDS
from blockfit.schema import Cost, CostItem, Instance, Layout


def storage_items(cat: Catalog, vt: VolumeType, layout: Layout) -> list[CostItem]:
    """The line items of all members together (one member's quantities and monthly figures x members)."""
    return [_times(item, layout.members) for item in KINDS[vt.kind].cost(cat, vt, layout.volume)]


def layout_cost(cat: Catalog, vt: VolumeType, layout: Layout, instance: Instance,
                memory_gb: float | None = None) -> Cost:
    """Storage + compute per month; a part the catalog lacks makes that part and the total None."""
    items = storage_items(cat, vt, layout)
    storage = None if any(c.monthly is None for c in items) else round(sum(c.monthly or 0.0 for c in items), 2)
    compute = compute_cost(cat, instance.shape, instance.count, memory_gb)
    total = None if storage is None or compute.monthly is None else round(storage + compute.monthly, 2)
    return Cost(storage=storage, compute=compute.monthly, total=total,
                region=cost_region(vt if storage is not None else None, compute.region, cat),
                items=items, compute_detail=compute)


def region_name(region: str | None) -> str | None:
    """A catalog's region as a reader reads it: 'eastus (as the copy's ... match East US)' -> 'eastus'."""
    return region.split(" (", 1)[0].strip() or None if region else None


def _two_regions(vt: VolumeType | None, compute_region: str | None) -> tuple[str, str] | None:
    """(storage region, compute region) when the catalog prices the two in different regions; None otherwise."""
    storage, compute = region_name(vt.price_region if vt else None), region_name(compute_region)
    return (storage, compute) if storage and compute and storage != compute else None


def cost_region(vt: VolumeType | None, compute_region: str | None, cat: Catalog) -> str | None:
    """The one region a cost's figures hold in. Storage priced in one region and compute in another (the catalog
    has no prices of one region for both) is said, both named, never passed off as one."""
    if two := _two_regions(vt, compute_region):
        return f"{two[0]} (storage), {two[1]} (compute)"
    return region_name(vt.price_region if vt else None) or region_name(compute_region) or price_region(cat)


def region_warnings(vt: VolumeType, compute_region: str | None, storage_known: bool) -> list[str]:
    """A warning when a result's total adds prices of two regions."""
    two = _two_regions(vt, compute_region) if storage_known else None
    if two is None:
        return []
    return [f"Prices of two regions: the catalog prices {vt.name} storage in {two[0]} and the compute in {two[1]} "
            "(it has no prices of one region for both); the total adds them."]


def price_region(cat: Catalog) -> str | None:
    """The region the catalog's prices hold in (the compute prices name it; one region per catalog)."""
    regions = {region_name(p.region) for p in cat.compute_prices.values() if p.region}
    return next(iter(regions)) if len(regions) == 1 else None


def _times(item: CostItem, members: int) -> CostItem:
    monthly = None if item.monthly is None else round(item.monthly * members, 2)
    return item.model_copy(update={"quantity": item.quantity * members, "monthly": monthly})
