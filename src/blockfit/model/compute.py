"""What the instance costs a month, so plan can weigh more OCPUs (a higher network cap) against their price.

A month is 730 hours (8,760 h a year / 12). Flexible shapes cost OCPUs x the OCPU-hour price plus memory x the
GB-hour price; memory is what the user gives (--memory), raised to the shape's minimum per OCPU, or that
minimum when none is given. Fixed shapes cost their hourly price. No catalog figure: the cost is unknown (None).
"""

from __future__ import annotations

from blockfit.catalog import Catalog
from blockfit.errors import ValueProblem
from blockfit.model.instance import count_fields, machine_type
from blockfit.model.kinds.clouds import cloud_of
from blockfit.schema.cost import HOURS_PER_MONTH, ComputeCost


def compute_cost(cat: Catalog, shape: str, ocpus: float | None, memory_gb: float | None = None) -> ComputeCost:
    """The monthly compute cost of `shape` at `ocpus` (the cloud's own unit: OCPUs on OCI, else vCPUs; None for a
    fixed shape); `monthly` None = unknown. A GCP
    predefined machine type (n2-standard-16) is priced per vCPU and GB at the memory its name fixes, or at the hourly
    price of its own entry where Google prices it apart from its series (m4-ultramem-224)."""
    mt = machine_type(cat, shape)
    if mt is not None:
        check_memory_option(cat, shape, ocpus, memory_gb)
        # a machine type Google prices apart from its series (m4-ultramem-224) has an entry of its own
        price = cat.compute_prices.get(f"{mt.shape.name}-{mt.family}-{mt.vcpus}") or \
            cat.compute_prices.get(mt.shape.name)
        ocpus, memory_gb = float(mt.vcpus), mt.memory_gb
    else:
        price = cat.compute_prices.get(shape)
    unit = cloud_of(cat.cloud).compute_unit
    units = count_fields(cat, shape, ocpus)   # vcpus, and OCI's ocpus beside them
    if price is None:
        return ComputeCost(shape=shape, **units, note=f"no compute price for {shape} in the {cat.cloud} catalog "
                                                          f"{cat.version}: compute cost unknown")
    cite = cat.cite(price, "per_hour" if price.per_hour is not None else "per_ocpu_hour")
    if price.per_hour is not None:
        return ComputeCost(shape=shape, **units, per_hour=price.per_hour,
                           monthly=round(price.per_hour * HOURS_PER_MONTH, 2), region=price.region, source=cite)
    if price.per_ocpu_hour is None or price.per_gb_hour is None or ocpus is None:
        return ComputeCost(shape=shape, **units, region=price.region, source=cite,
                           note=f"{shape}: the catalog prices it per {unit} and memory; no {unit} count given")
    if mt is None:
        check_memory(cat, shape, ocpus, memory_gb)
    memory = memory_gb if mt is not None else memory_for(cat, shape, ocpus, memory_gb)
    if memory is None:
        return ComputeCost(shape=shape, **units, region=price.region, source=cite,
                           note=f"{shape}: no minimum memory in the catalog; give --memory to price the compute")
    per_hour = ocpus * price.per_ocpu_hour + memory * price.per_gb_hour
    return ComputeCost(shape=shape, **units, memory_gb=memory, per_hour=round(per_hour, 6),
                       monthly=round(per_hour * HOURS_PER_MONTH, 2), region=price.region, source=cite)


def check_memory_option(cat: Catalog, shape: str, ocpus: float | None, memory_gb: float | None) -> None:
    """The memory a user names for SHAPE at OCPUS: what a machine type's name fixes, at most what the shape sells
    per OCPU (vCPU)."""
    mt = machine_type(cat, shape)
    if mt is not None:
        if memory_gb is not None and abs(memory_gb - mt.memory_gb) > 1e-9:
            raise ValueProblem(f"{memory_gb:g} GB: {shape} comes with {mt.memory_gb:g} GB (its name fixes the "
                               "memory); drop it or name the series with a vCPU count")
    elif ocpus is not None:
        check_memory(cat, shape, ocpus, memory_gb)


def check_memory(cat: Catalog, shape: str, ocpus: float, memory_gb: float | None) -> None:
    """Memory beyond what the shape sells per OCPU (vCPU) is an input error, naming the bound and its source."""
    price = cat.compute_prices.get(shape)
    if memory_gb is None or price is None or price.memory_max_gb_per_ocpu is None:
        return
    top = price.memory_max_gb_per_ocpu * ocpus
    if memory_gb > top + 1e-9:
        unit = cloud_of(cat.cloud).compute_unit
        raise ValueProblem(f"{memory_gb:,.6g} GB: {shape} with {ocpus:g} {unit}s takes at most {top:,.6g} GB "
                           f"({price.memory_max_gb_per_ocpu:g} GB per {unit}; "
                           f"{cat.cite(price, 'memory_max_gb_per_ocpu')})")


def memory_for(cat: Catalog, shape: str, ocpus: float, memory_gb: float | None) -> float | None:
    """The memory billed: the user's figure raised to the shape's minimum, or that minimum."""
    price = cat.compute_prices.get(shape)
    floor = None if price is None or price.memory_min_gb_per_ocpu is None else ocpus * price.memory_min_gb_per_ocpu
    if memory_gb is None:
        return floor
    return memory_gb if floor is None else max(memory_gb, floor)


def monthly(cat: Catalog, shape: str, ocpus: float | None, memory_gb: float | None = None) -> float | None:
    return compute_cost(cat, shape, ocpus, memory_gb).monthly
