"""AWS: `aws ec2 describe-instance-types --output json` (EBS caps, vCPUs, memory, attachment limit per type) and a
region's AWS Price List bulk file for EC2 (on-demand Linux hourly prices; EBS per-GB, per-IOPS and throughput
prices).

Field names from the EC2 API reference (InstanceTypeInfo, EbsInfo, EbsOptimizedInfo, VCpuInfo, MemoryInfo);
the CLI prints them capitalised (`EbsInfo.EbsOptimizedInfo.BaselineIops`). Throughput is MB/s at 128 KiB I/O,
so MB/s = Mbps / 8 on every row: a file where it is not contradicts its own units and is refused.
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
    iso_date,
    need,
    one_region,
    positive,
)
from blockfit.catalog.models import Catalog

TYPES = Format("describe-instance-types", "aws ec2 describe-instance-types",
               "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypes.html")
PRICES = Format("price-list", "AWS Price List bulk file (AmazonEC2, one region)",
                "https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-service-price-list-file-for-"
                "services.html", prices=True)

# EBS volume prices in the EC2 price list: (productFamily, unit) → catalog field and the factor to its unit
_EBS_PRICES: dict[tuple[str, str], tuple[str, float]] = {
    ("Storage", "GB-Mo"): ("price_per_gb", 1.0),
    ("System Operation", "IOPS-Mo"): ("price_per_iops", 1.0),
    ("Provisioned Throughput", "GiBps-mo"): ("price_per_tput", 1 / 1024),   # catalog: per MiB/s-month
}
_EBS_TYPES = ("gp3", "gp2", "io1", "io2", "st1", "sc1")


class AwsImporter:
    CLOUD: str = "aws"
    FORMATS: tuple[Format, ...] = (TYPES, PRICES)

    def detect(self, data: Any) -> Format | None:
        if isinstance(data, dict) and isinstance(data.get("InstanceTypes"), list):
            return TYPES
        if isinstance(data, dict) and "offerCode" in data and "products" in data:
            return PRICES
        return None

    def file_date(self, fmt: Format, data: Any) -> date | None:
        return iso_date(data.get("publicationDate")) if fmt is PRICES else None

    def covers_capset(self, capset: dict[str, Any], shape: dict[str, Any]) -> bool:
        """describe-instance-types gives the default weighting's figures."""
        return capset.get("weighting") in (None, "default") and not capset.get("interface") \
            and not capset.get("volume_types")

    def read(self, files: list[InputFile], base: Catalog, region: str | None) -> Contribution:
        c = Contribution()
        for f in files:
            if f.format is TYPES:
                _types(f, base, c)
        known = set(base.shapes) | set(c.shapes)
        for f in files:
            if f.format is PRICES:
                _prices(f, base, c, known, region)
        return c


def _types(f: InputFile, base: Catalog, c: Contribution) -> None:
    items = f.data["InstanceTypes"]
    if not items:
        raise ImportProblem(f"{f.shown}: InstanceTypes is an empty list; expected at least one instance type")
    not_optimized = []
    for i, item in enumerate(items):
        where = f"{f.shown}: InstanceTypes[{i}]"
        name = need(item, "InstanceType", where, str)
        where = f"{where} ({name})"
        ebs = need(item, "EbsInfo", where, dict)
        if ebs.get("EbsOptimizedSupport") == "unsupported":
            not_optimized.append(name)
            continue
        fields = _type_fields(item, ebs, name, where)
        cite: dict[str, str] = {}
        if name not in base.shapes:
            _new_type_fields(base, fields, cite)
        c.shape(name, f.source_id, cite, **fields)
    if not_optimized:
        c.skipped.append(f"{f.shown}: {len(not_optimized)} types without EBS optimisation (EbsOptimizedSupport "
                         f"unsupported, no published EBS caps), e.g. {', '.join(not_optimized[:4])}")


def _ebs_figures(ebs: dict[str, Any], where: str) -> dict[str, Any]:
    """The baseline and maximum EBS figures, their units and order checked."""
    info = need(ebs, "EbsOptimizedInfo", where + ": EbsInfo", dict)
    fig = {k: need(info, k, where + ": EbsInfo.EbsOptimizedInfo") for k in (
        "BaselineBandwidthInMbps", "BaselineThroughputInMBps", "BaselineIops", "MaximumBandwidthInMbps",
        "MaximumThroughputInMBps", "MaximumIops")}
    for kind in ("Baseline", "Maximum"):
        mbps, mbit = fig[f"{kind}ThroughputInMBps"], fig[f"{kind}BandwidthInMbps"]
        positive(mbit, f"{kind}BandwidthInMbps", where, most=1_000_000)
        if abs(mbps - mbit / 8) > 0.01 * mbit / 8 + 0.01:
            raise ImportProblem(f"{where}: {kind}ThroughputInMBps {mbps:g} is not {kind}BandwidthInMbps "
                                f"{mbit:g} / 8; the units contradict the fields (MB/s = Mbps / 8)")
        positive(fig[f"{kind}Iops"], f"{kind}Iops", where, most=10_000_000)
    if fig["MaximumIops"] < fig["BaselineIops"] or fig["MaximumThroughputInMBps"] < fig["BaselineThroughputInMBps"]:
        raise ImportProblem(f"{where}: a Maximum figure below its Baseline; expected Maximum >= Baseline")
    return fig


def _type_fields(item: dict[str, Any], ebs: dict[str, Any], name: str, where: str) -> dict[str, Any]:
    """A type's EBS caps (the maximum as the burst pair where it is higher), vCPUs, memory and attachment limit."""
    fig = _ebs_figures(ebs, where)
    vcpus = need(item, "VCpuInfo.DefaultVCpus", where, int)
    mib = need(item, "MemoryInfo.SizeInMiB", where, int)
    positive(vcpus, "VCpuInfo.DefaultVCpus", where, most=4096)
    positive(mib, "MemoryInfo.SizeInMiB", where, most=64 * 1024 * 1024, unit_hint="MiB, not bytes")
    burst = fig["MaximumIops"] > fig["BaselineIops"] or fig["MaximumThroughputInMBps"] > \
        fig["BaselineThroughputInMBps"]
    fields: dict[str, Any] = {
        "kind": "fixed", "series": name.split(".")[0], "vcpus": vcpus, "memory_gb": round(mib / 1024, 4),
        "iops": fig["BaselineIops"], "mbps": fig["BaselineThroughputInMBps"],
        "iops_burst": fig["MaximumIops"] if burst else None,
        "mbps_burst": fig["MaximumThroughputInMBps"] if burst else None,
        "current": None if item.get("CurrentGeneration", True) else False,
    }
    attach = _attach_max(item, ebs, where)
    if attach is not None:
        fields["attach_max"] = attach
    return fields


def _new_type_fields(base: Catalog, fields: dict[str, Any], cite: dict[str, str]) -> None:
    """What a type the shipped catalog lacks takes beside the file's figures: the caps' direction, a note."""
    burst = fields["iops_burst"] is not None
    fields["direction"] = "combined"
    ebsopt = cited(base, "AWS-EBSOPT")
    if ebsopt:
        cite["direction"] = ebsopt
    fields["note"] = ("Imported from describe-instance-types: baseline EBS figures modelled"
                      + ("; the maximum holds for 30 minutes at least once per 24 h" if burst else "")
                      + ". MB/s at 128 KiB I/O, IOPS at 16 KiB I/O.")
    if "attach_max" not in fields:
        fields["unknown"] = ["attach_max"]


def _attach_max(item: dict[str, Any], ebs: dict[str, Any], where: str) -> int | None:
    """EBS data volumes the type attaches. A shared limit counts network interfaces and instance store volumes too:
    one network interface and the type's instance store disks are taken off, as the shipped catalog does."""
    limit = ebs.get("MaximumEbsAttachments")
    if limit is None:
        return None
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ImportProblem(f"{where}: EbsInfo.MaximumEbsAttachments = {limit!r}: expected a whole number >= 1")
    if ebs.get("AttachmentLimitType") == "dedicated":
        return limit
    disks = sum(int(d.get("Count", 0)) for d in (item.get("InstanceStorageInfo") or {}).get("Disks", []) or [])
    return max(limit - 1 - disks, 1)


Compute = dict[str, dict[str, tuple[str, float]]]      # region → instance type → (sku, USD per hour)
Ebs = dict[str, dict[tuple[str, str], float]]          # region → (volume type, field) → price


def _price_list(f: InputFile) -> tuple[dict[str, Any], dict[str, Any]]:
    """The products and on-demand terms of an AmazonEC2 price list file; ImportProblem for any other file."""
    products = f.data.get("products")
    terms = (f.data.get("terms") or {}).get("OnDemand")
    if not isinstance(products, dict) or not products:
        raise ImportProblem(f"{f.shown}: products is empty or missing; expected the EC2 price list of a region")
    if not isinstance(terms, dict):
        raise ImportProblem(f"{f.shown}: missing terms.OnDemand; expected on-demand prices")
    if f.data.get("offerCode") != "AmazonEC2":
        raise ImportProblem(f"{f.shown}: offerCode {f.data.get('offerCode')!r}; expected AmazonEC2 (EC2 and EBS "
                            "prices)")
    return products, terms


def _read_products(f: InputFile, known: set[str]) -> tuple[Compute, Ebs]:
    """Every on-demand Linux price of a known instance type and every EBS price, by region."""
    products, terms = _price_list(f)
    compute: Compute = {}
    ebs: Ebs = {}
    for sku, product in products.items():
        where = f"{f.shown}: products.{sku}"
        family = product.get("productFamily")
        attrs = product.get("attributes") or {}
        place = attrs.get("regionCode") or attrs.get("location") or "unknown"
        if str(family).startswith("Compute Instance") and _linux_on_demand(attrs):
            name = attrs.get("instanceType")
            if name not in known:
                continue
            usd, unit = _on_demand(terms, sku, where)
            if unit != "Hrs":
                raise ImportProblem(f"{where} ({name}): unit {unit!r}; the unit contradicts an hourly instance price "
                                    "(expected Hrs)")
            compute.setdefault(place, {})[name] = (sku, usd)
        elif family in {fam for fam, _unit in _EBS_PRICES} and attrs.get("volumeApiName") in _EBS_TYPES:
            usd, unit = _on_demand(terms, sku, where, tiered_ok=True)
            field = _EBS_PRICES.get((family, unit))
            if field is None:
                expected = next(u for fam, u in _EBS_PRICES if fam == family)
                raise ImportProblem(f"{where} ({attrs.get('volumeApiName')} {family}): unit {unit!r}; the unit "
                                    f"contradicts the field (expected {expected})")
            key, factor = field
            ebs.setdefault(place, {})[(attrs["volumeApiName"], key)] = round(usd * factor, 8)
    return compute, ebs


def _prices(f: InputFile, base: Catalog, c: Contribution, known: set[str], region: str | None) -> None:
    compute, ebs = _read_products(f, known)
    chosen = one_region(compute | ebs, region, f.shown, "the price list file of one region")
    if chosen is None:
        raise ImportProblem(f"{f.shown}: no on-demand Linux price for any instance type blockfit knows or imports, "
                            "and no EBS price; expected the AmazonEC2 price list of a region")
    for shape, (_sku, hourly) in sorted(compute.get(chosen, {}).items()):
        c.price(shape, f.source_id, per_hour=hourly, region=chosen, per_ocpu_hour=None, per_gb_hour=None)
    kept_elsewhere: set[str] = set()
    for (vtype, figure), monthly in sorted(ebs.get(chosen, {}).items()):
        vt = base.volume_types.get(vtype)
        if vt is None or (figure == "price_per_iops" and vt.price_iops_tiers):
            continue   # io2's tiered IOPS prices are not one figure: kept as shipped
        if vt.price_iops_tiers and vt.price_region != chosen:
            kept_elsewhere.add(vtype)   # its kept tiers are another region's: labelling them `chosen` would lie
            continue
        c.volume(vtype, f.source_id, **{figure: monthly, "price_region": chosen})
    for vtype in sorted(kept_elsewhere):
        c.notes.append(f"{vtype}: every price kept as shipped ({base.volume_types[vtype].price_region}): its tiered "
                       f"IOPS prices are not read from the price list, and a {chosen} per-GB price beside them would "
                       "name one region for prices of two.")
    if any(vt.price_iops_tiers for vt in base.volume_types.values()):
        c.notes.append("io2's tiered IOPS prices are kept as shipped (the price list gives them as separate tiers).")


def _linux_on_demand(attrs: dict[str, Any]) -> bool:
    return (attrs.get("operatingSystem") == "Linux" and attrs.get("tenancy") == "Shared"
            and attrs.get("preInstalledSw") in ("NA", None) and attrs.get("capacitystatus", "Used") == "Used"
            and attrs.get("licenseModel", "No License required") == "No License required")


def _on_demand(terms: dict[str, Any], sku: str, where: str, tiered_ok: bool = False) -> tuple[float, str]:
    """The on-demand USD price and unit of one SKU: its first dimension (the one starting at 0 when tiered)."""
    offers = terms.get(sku)
    if not isinstance(offers, dict) or not offers:
        raise ImportProblem(f"{where}: no terms.OnDemand entry for this SKU")
    dims = [d for offer in offers.values() for d in (offer.get("priceDimensions") or {}).values()]
    if not dims:
        raise ImportProblem(f"{where}: terms.OnDemand has no priceDimensions")
    if len(dims) > 1:
        first = [d for d in dims if str(d.get("beginRange", d.get("startingRange", "0"))) == "0"]
        dims = first[:1] if tiered_ok and first else dims[:1]
    dim = dims[0]
    try:
        usd = float(need(dim, "pricePerUnit.USD", where, str))
    except ValueError:
        raise ImportProblem(f"{where}: pricePerUnit.USD {dim['pricePerUnit']['USD']!r}: expected a number") from None
    if usd < 0:
        raise ImportProblem(f"{where}: pricePerUnit.USD {usd:g}: expected a price of at least 0")
    return usd, str(dim.get("unit", ""))


PROVIDER = AwsImporter()
