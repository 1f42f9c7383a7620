"""GCP: a Cloud Billing Catalog API response for Compute Engine (`GET .../services/6F81-5844-456A/skus`), its
`skus[]` with on-demand prices per region, and `gcloud compute machine-types list --format=json` (the series' sizes,
memory and volume counts: gcp_machines.py). GCP publishes no per-VM disk limits in machine-readable form, so neither
file gives an IOPS or throughput cap. The prices: a series' vCPU and memory rates (the shipped catalog prices a GCP
machine type as vCPUs x the vCPU rate + GB x the memory rate) and Persistent Disk and Hyperdisk per-GiB, per-IOPS and
per-MB/s rates.

A SKU is read when its `category.usageType` is OnDemand, its `description` names one of the meters below and its
`serviceRegions` hold the chosen region. The price is the last tier of `pricingInfo[-1].pricingExpression.tieredRates`
(units + nanos / 10^9 USD); the free first tier some storage SKUs carry is the baseline the catalog already states.
A Hyperdisk type is priced only when all of its meters are in the file: a capacity-only price would understate it.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from blockfit.catalog.importers.common import Contribution, Format, ImportProblem, InputFile, iso_date, one_region
from blockfit.catalog.importers.gcp_machines import MACHINE_TYPES, is_machine_types, read_machine_types
from blockfit.catalog.models import Catalog
from blockfit.schema.cost import HOURS_PER_MONTH

SKUS = Format("billing-skus", "Cloud Billing Catalog API skus (Compute Engine)",
              "https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list", prices=True)

# "N2 Instance Core running in Americas", "N2D AMD Instance Ram running in Americas", "C4A Arm Instance Core ..."
_COMPUTE = re.compile(r"^(?P<series>[A-Z]\d+[A-Z]?)(?: AMD| Arm| Memory-optimized)? Instance (?P<part>Core|Ram) "
                      r"running in ")
# meter → (volume type, catalog field)
_STORAGE = {"Balanced PD Capacity": ("pd-balanced", "price_per_gb"),
            "SSD backed PD Capacity": ("pd-ssd", "price_per_gb"),
            "Hyperdisk Balanced Capacity": ("hyperdisk-balanced", "price_per_gb"),
            "Hyperdisk Balanced IOPS": ("hyperdisk-balanced", "price_per_iops"),
            "Hyperdisk Balanced Throughput": ("hyperdisk-balanced", "price_per_tput"),
            "Hyperdisk Extreme Capacity": ("hyperdisk-extreme", "price_per_gb"),
            "Hyperdisk Extreme IOPS": ("hyperdisk-extreme", "price_per_iops")}
_NEEDS = {"hyperdisk-balanced": {"price_per_gb", "price_per_iops", "price_per_tput"},
          "hyperdisk-extreme": {"price_per_gb", "price_per_iops"}}
_HOURLY_UNITS = {"Core": ("h",), "Ram": ("GiBy.h",)}


class GcpImporter:
    CLOUD: str = "gcp"
    FORMATS: tuple[Format, ...] = (SKUS, MACHINE_TYPES)

    def detect(self, data: Any) -> Format | None:
        if is_machine_types(data):
            return MACHINE_TYPES
        skus = data.get("skus") if isinstance(data, dict) else None
        if isinstance(skus, list) and (not skus or (isinstance(skus[0], dict) and "skuId" in skus[0]
                                                    and "pricingInfo" in skus[0])):
            return SKUS
        return None

    def file_date(self, fmt: Format, data: Any) -> date | None:
        """The newest `effectiveTime` of the file's prices (a machine-types list carries no date of its own)."""
        if fmt is MACHINE_TYPES:
            return None
        times = [iso_date(p.get("effectiveTime")) for s in data.get("skus") or [] if isinstance(s, dict)
                 for p in s.get("pricingInfo") or [] if isinstance(p, dict)]
        return max((t for t in times if t is not None), default=None)

    def covers_capset(self, capset: dict[str, Any], shape: dict[str, Any]) -> bool:
        return False   # prices only

    def read(self, files: list[InputFile], base: Catalog, region: str | None) -> Contribution:
        c = Contribution()
        for f in files:
            if f.format is MACHINE_TYPES:
                read_machine_types(f, base, c)
        for f in files:
            if f.format is SKUS:
                _skus(f, base, c, region)
        return c


def _usd(sku: dict[str, Any], where: str) -> tuple[float, str]:
    """The on-demand unit price (the last tier) and its usage unit."""
    info = sku.get("pricingInfo")
    if not isinstance(info, list) or not info or not isinstance(info[-1], dict):
        raise ImportProblem(f"{where}: missing pricingInfo")
    expr = info[-1].get("pricingExpression") or {}
    tiers = expr.get("tieredRates")
    unit = expr.get("usageUnit")
    if not isinstance(tiers, list) or not tiers or not isinstance(unit, str):
        raise ImportProblem(f"{where}: missing pricingExpression.tieredRates or usageUnit")
    price = tiers[-1].get("unitPrice") if isinstance(tiers[-1], dict) else None
    if not isinstance(price, dict) or price.get("currencyCode") != "USD":
        raise ImportProblem(f"{where}: unitPrice is not in USD; expected the API's USD prices (currencyCode=USD)")
    try:
        usd = int(price.get("units") or 0) + int(price.get("nanos") or 0) / 1e9
    except (TypeError, ValueError):
        raise ImportProblem(f"{where}: unitPrice units/nanos are not numbers") from None
    if usd < 0:
        raise ImportProblem(f"{where}: a negative price ({usd:g})")
    return usd, unit


def _sku_price(sku: dict[str, Any], where: str, base: Catalog,
               known: set[str]) -> tuple[tuple[str, str], float] | None:
    """((series, Core|Ram) or (volume type, field), USD per hour or month) of one on-demand SKU blockfit prices;
    None for any other SKU."""
    desc = str(sku.get("description", ""))
    if (sku.get("category") or {}).get("usageType") != "OnDemand":
        return None
    m = _COMPUTE.match(desc)
    meter = next((k for k in _STORAGE if desc.startswith(k + " in ")), None)
    if m is None and meter is None:
        return None
    where += f" ({desc})"
    usd, unit = _usd(sku, where)
    if m is not None:
        series, part = m["series"].lower(), m["part"]
        if series not in known:   # a series of the base catalog or of a machine-types file beside this one
            return None
        if unit not in _HOURLY_UNITS[part]:
            raise ImportProblem(f"{where}: usageUnit {unit!r}; expected {' or '.join(_HOURLY_UNITS[part])}")
        return (series, part), usd
    vtype, fieldname = _STORAGE[str(meter)]
    if vtype not in base.volume_types:
        return None
    if unit.endswith(".h") or unit == "h":
        usd *= HOURS_PER_MONTH
    elif not (unit.endswith(".mo") or unit == "mo"):
        raise ImportProblem(f"{where}: usageUnit {unit!r}; expected a monthly or hourly unit")
    return (vtype, fieldname), usd


def _skus(f: InputFile, base: Catalog, c: Contribution, region: str | None) -> None:
    skus = f.data.get("skus") or []
    if not skus:
        raise ImportProblem(f"{f.shown}: skus is an empty list; expected the Compute Engine SKUs")
    found: dict[str, dict[tuple[str, str], float]] = {}      # region → (series|type, part|field) → USD
    known = set(base.shapes) | set(c.shapes)
    for i, sku in enumerate(skus):
        where = f"{f.shown}: skus[{i}]"
        if not isinstance(sku, dict):
            raise ImportProblem(f"{where}: expected an object")
        priced = _sku_price(sku, where, base, known)
        if priced is None:
            continue
        key, usd = priced
        for r in sku.get("serviceRegions") or []:
            found.setdefault(str(r), {})[key] = usd
    chosen = one_region(found, region, f.shown, "list the SKUs of one region")
    if chosen is None:
        raise ImportProblem(f"{f.shown}: no on-demand price of a series or volume type blockfit knows")
    _write_prices(f, c, chosen, found[chosen])


def _write_prices(f: InputFile, c: Contribution, chosen: str, got: dict[tuple[str, str], float]) -> None:
    """A series' Core and Ram rates, a volume type's meters (only when all it needs are in the file)."""
    for series in sorted({k[0] for k in got if k[1] in _HOURLY_UNITS}):
        core, ram = got.get((series, "Core")), got.get((series, "Ram"))
        if core is None or ram is None:
            c.skipped.append(f"{f.shown}: {series}: only its {'Core' if ram is None else 'Ram'} price is in the "
                             f"file for {chosen}; not priced")
            continue
        c.price(series, f.source_id, per_ocpu_hour=round(core, 9), per_gb_hour=round(ram, 9), per_hour=None,
                region=chosen)
    for vtype in sorted({k[0] for k in got if k[1] not in _HOURLY_UNITS}):
        fields = {k[1]: round(v, 9) for k, v in got.items() if k[0] == vtype}
        missing = _NEEDS.get(vtype, set()) - set(fields)
        if missing:
            c.skipped.append(f"{f.shown}: {vtype}: no {', '.join(sorted(missing))} price for {chosen}; a partial "
                             "price would understate it, so none is written")
            continue
        c.volume(vtype, f.source_id, price_region=chosen, **fields)


PROVIDER = GcpImporter()
