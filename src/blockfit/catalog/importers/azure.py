"""Azure: `az vm list-skus --output json` (Resource SKUs: uncached disk IOPS and throughput, data disk count, vCPUs,
memory per VM size) and an Azure Retail Prices API response (pay-as-you-go Linux hourly prices).

Resource SKU capabilities are free-form name/value strings. `UncachedDiskBytesPerSecond` is the size page's MBps
(10^6 B/s) times 2^20 (Standard_B1ls: 10 MBps on the page, 10485760 in the API; catalog-sources.md 4), so it is
divided by 2^20; a value under 2^20 is a figure in MBps, not bytes, and is refused as contradicting its unit.
Resource SKUs carry no burst, NVMe or Premium SSD v2 / Ultra caps: those stay as the size pages give them. A size
with a host cache (`CachedDiskBytes`) gets its cached limits from `CombinedTempDiskAndCachedIOPS` and
`...ReadBytesPerSecond` (bytes per second x 2^20 as above: Standard_D64s_v3 1073741824 = the page's 1,024 MBps).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from blockfit.catalog.importers.common import (
    Contribution,
    Format,
    ImportProblem,
    InputFile,
    cited,
    one_region,
    positive,
)
from blockfit.catalog.models import Catalog
from blockfit.catalog.names import azure_series

SKUS = Format("list-skus", "az vm list-skus",
              "https://learn.microsoft.com/rest/api/compute/resource-skus/list")
PRICES = Format("retail-prices", "Azure Retail Prices API response",
                "https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices", prices=True)
MIB = 1 << 20


class AzureImporter:
    CLOUD: str = "azure"
    FORMATS: tuple[Format, ...] = (SKUS, PRICES)

    def detect(self, data: Any) -> Format | None:
        rows = data.get("value") if isinstance(data, dict) and "value" in data else data
        if isinstance(rows, list) and (not rows or (isinstance(rows[0], dict) and "resourceType" in rows[0]
                                                    and "capabilities" in rows[0])):
            return SKUS if rows or isinstance(data, list) else None
        if isinstance(data, dict) and isinstance(data.get("Items"), list) and (
                "BillingCurrency" in data or "NextPageLink" in data or "Count" in data):
            return PRICES
        return None

    def file_date(self, fmt: Format, data: Any) -> date | None:
        return None   # neither response carries its own timestamp: the file's modification date is used

    def covers_capset(self, capset: dict[str, Any], shape: dict[str, Any]) -> bool:
        """Resource SKUs give the default interface's Premium SSD (v1) caps."""
        default = (shape.get("interfaces") or [None])[0]
        types = capset.get("volume_types") or []
        return capset.get("interface") in (None, default) and (not types or "premium-v1" in types) \
            and capset.get("weighting") is None

    def read(self, files: list[InputFile], base: Catalog, region: str | None) -> Contribution:
        c = Contribution()
        for f in files:
            if f.format is SKUS:
                _skus(f, base, c)
        known = set(base.shapes) | set(c.shapes)
        for f in files:
            if f.format is PRICES:
                _prices(f, c, known, region)
        return c


def _skus(f: InputFile, base: Catalog, c: Contribution) -> None:
    rows = (f.data.get("value") if isinstance(f.data, dict) else f.data) or []
    vms = [r for r in rows if isinstance(r, dict) and r.get("resourceType") == "virtualMachines"]
    if not vms:
        raise ImportProblem(f"{f.shown}: no virtualMachines SKUs (the list is empty or holds other resource types); "
                            "expected az vm list-skus output")
    seen: dict[str, tuple[float, ...]] = {}
    no_premium: list[str] = []
    for i, row in enumerate(vms):
        _sku(f, base, c, i, row, seen, no_premium)
    if no_premium:
        c.skipped.append(f"{f.shown}: {len(no_premium)} sizes without Premium SSD (PremiumIO False), e.g. "
                         f"{', '.join(no_premium[:4])}")


def _sku(f: InputFile, base: Catalog, c: Contribution, i: int, row: dict[str, Any],
         seen: dict[str, tuple[float, ...]], no_premium: list[str]) -> None:
    """One VM size's row: its caps into `c`, unless it has no Premium SSD or repeats a size already read."""
    name = row.get("name")
    where = f"{f.shown}: [{i}]"
    if not isinstance(name, str) or not name:
        raise ImportProblem(f"{where}: missing name")
    where += f" ({name})"
    caps: dict[str, Any] = {str(cap.get("name")): cap.get("value") for cap in row.get("capabilities") or []
                            if isinstance(cap, dict)}
    if not caps:
        raise ImportProblem(f"{where}: missing capabilities")
    if caps.get("PremiumIO") == "False":
        no_premium.append(name)
        return
    fields = _sku_fields(caps, where)
    figures = tuple(fields.values())
    if name in seen:   # list-skus without --location repeats a size per region with the same figures
        if seen[name] != figures:
            c.skipped.append(f"{where}: figures differ from an earlier row of the same size; the first kept")
        return
    seen[name] = figures
    fields["kind"] = "fixed"
    cite: dict[str, str] = {}
    if name not in base.shapes:
        _new_size_fields(base, name, fields, cite)
    c.shape(name, f.source_id, cite, **fields)


def _sku_fields(caps: dict[str, Any], where: str) -> dict[str, Any]:
    """A size's uncached caps, data disk count, vCPUs and memory; its cached limits where it has a host cache."""
    iops = _number(caps, "UncachedDiskIOPS", where)
    rate = _number(caps, "UncachedDiskBytesPerSecond", where)
    disks = _number(caps, "MaxDataDiskCount", where)
    vcpus = _number(caps, "vCPUs", where)
    memory = _number(caps, "MemoryGB", where)
    positive(iops, "UncachedDiskIOPS", where, most=10_000_000)
    _bytes_per_second(rate, "UncachedDiskBytesPerSecond", where)
    positive(disks, "MaxDataDiskCount", where, most=1024)
    positive(vcpus, "vCPUs", where, most=4096)
    positive(memory, "MemoryGB", where, most=65536, unit_hint="GiB, not MiB")
    fields: dict[str, Any] = {"iops": int(iops), "mbps": round(rate / MIB, 3), "attach_max": int(disks),
                              "vcpus": int(vcpus), "memory_gb": memory}
    return fields | _cached_fields(caps, where)


def _cached_fields(caps: dict[str, Any], where: str) -> dict[str, Any]:
    """The cached limits (iops_cached, mbps_cached, cache_gb) of a size with a host cache (CachedDiskBytes above 0).
    Without one, the CombinedTempDiskAndCached figures are the temp disk's alone, not a cache's: left out."""
    if not caps.get("CachedDiskBytes") or _number(caps, "CachedDiskBytes", where) <= 0:
        return {}
    cache = _number(caps, "CachedDiskBytes", where)
    iops = _number(caps, "CombinedTempDiskAndCachedIOPS", where)
    rate = _number(caps, "CombinedTempDiskAndCachedReadBytesPerSecond", where)
    positive(iops, "CombinedTempDiskAndCachedIOPS", where, most=10_000_000)
    _bytes_per_second(rate, "CombinedTempDiskAndCachedReadBytesPerSecond", where)
    return {"iops_cached": int(iops), "mbps_cached": round(rate / MIB, 3), "cache_gb": round(cache / (1 << 30), 3)}


def _bytes_per_second(rate: float, key: str, where: str) -> None:
    if rate < MIB:
        raise ImportProblem(f"{where}: {key} {rate:g} is under 1,048,576; the unit contradicts the field (bytes per "
                            "second, the size page's MBps x 1,048,576)")


def _new_size_fields(base: Catalog, name: str, fields: dict[str, Any], cite: dict[str, str]) -> None:
    """What a size the shipped catalog lacks takes beside the API's figures: its series, the caps' direction."""
    series = azure_series(name)
    if series:
        fields["series"] = series
    fields["direction"] = "combined"
    perf = cited(base, "AZ-VMPERF")
    if perf:
        cite["direction"] = perf
    fields["note"] = ("Imported from az vm list-skus: uncached Premium SSD caps of the default interface "
                      "(burst, NVMe and Premium SSD v2 / Ultra caps are not in the API; not modelled).")


def _number(caps: dict[str, Any], key: str, where: str) -> float:
    value = caps.get(key)
    if value is None:
        raise ImportProblem(f"{where}: missing capability {key}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ImportProblem(f"{where}: capability {key} = {value!r}: expected a number") from None
    return int(number) if number.is_integer() else number


def _prices(f: InputFile, c: Contribution, known: set[str], region: str | None) -> None:
    items = f.data["Items"]
    if not items:
        raise ImportProblem(f"{f.shown}: Items is an empty list; expected the Retail Prices API's VM prices")
    found: dict[str, dict[str, tuple[str, float]]] = {}    # region → size → (effectiveStartDate, USD per hour)
    for i, item in enumerate(items):
        where = f"{f.shown}: Items[{i}]"
        if not isinstance(item, dict):
            raise ImportProblem(f"{where}: expected an object")
        if not _linux_payg(item, known):
            continue
        usd = _hourly_usd(item, f"{where} ({item.get('armSkuName')})")
        name, when = item["armSkuName"], str(item.get("effectiveStartDate", ""))
        have = found.setdefault(item["armRegionName"], {}).get(name)
        if have is None or when > have[0]:
            found[item["armRegionName"]][name] = (when, usd)
    chosen = one_region(found, region, f.shown, "filter with armRegionName eq '...'")
    if chosen is None:
        raise ImportProblem(f"{f.shown}: no Linux pay-as-you-go VM price for a size blockfit knows or imports")
    for name, (_when, usd) in sorted(found[chosen].items()):
        c.price(name, f.source_id, per_hour=usd, region=chosen, per_ocpu_hour=None, per_gb_hour=None)


def _linux_payg(item: dict[str, Any], known: set[str]) -> bool:
    """A pay-as-you-go Linux VM price of a size blockfit knows or imports (no Windows, Spot or Low Priority)."""
    if item.get("serviceName") != "Virtual Machines" or item.get("type") != "Consumption":
        return False
    text = f"{item.get('productName', '')} {item.get('skuName', '')} {item.get('meterName', '')}"
    return item.get("armSkuName") in known and not any(w in text for w in ("Windows", "Spot", "Low Priority"))


def _hourly_usd(item: dict[str, Any], where: str) -> float:
    """The item's USD per hour, its fields and units checked."""
    for key in ("retailPrice", "unitOfMeasure", "armRegionName", "currencyCode"):
        if item.get(key) is None:
            raise ImportProblem(f"{where}: missing {key}")
    if item["currencyCode"] != "USD":
        raise ImportProblem(f"{where}: currencyCode {item['currencyCode']!r}; expected USD (blockfit "
                            "prices in US dollars: ask the API with currencyCode='USD')")
    if item["unitOfMeasure"] != "1 Hour":
        raise ImportProblem(f"{where}: unitOfMeasure {item['unitOfMeasure']!r}; the unit contradicts "
                            "an hourly VM price (expected '1 Hour')")
    usd = item["retailPrice"]
    if not isinstance(usd, int | float) or isinstance(usd, bool) or usd < 0:
        raise ImportProblem(f"{where}: retailPrice {usd!r}: expected a price of at least 0")
    return float(usd)


PROVIDER = AzureImporter()
