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
    compute = compute_cost(cat, instance.shape, instance.ocpus, memory_gb)
    total = None if storage is None or compute.monthly is None else round(storage + compute.monthly, 2)
    return Cost(storage=storage, compute=compute.monthly, total=total, region=compute.region or price_region(cat),
                items=items, compute_detail=compute)


def price_region(cat: Catalog) -> str | None:
    """The region the catalog's prices hold in (the compute prices name it; one region per catalog)."""
    regions = {p.region for p in cat.compute_prices.values() if p.region}
    return next(iter(regions)) if len(regions) == 1 else None


def _times(item: CostItem, members: int) -> CostItem:
    monthly = None if item.monthly is None else round(item.monthly * members, 2)
    return item.model_copy(update={"quantity": item.quantity * members, "monthly": monthly})
