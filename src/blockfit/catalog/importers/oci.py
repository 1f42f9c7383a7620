"""OCI: `oci compute shape list --all --output json` (OCPU and memory options, network bandwidth per shape) and the
OCI products price list (`https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/`, pay-as-you-go USD).

Field names from the Shape model of the OCI SDKs (ShapeOcpuOptions, ShapeMemoryOptions,
ShapeNetworkingBandwidthOptions); the CLI prints them in kebab case (`networking-bandwidth-in-gbps`), the REST API
in camel case (`networkingBandwidthInGbps`): both are read, by comparing names without case, '-' and '_'.
There is no block-volume figure in a shape: a VM's caps follow OCI's rule per network Gbps (the catalog's
instance_rule, 20,000 IOPS and 120 MB/s per Gbps); bare-metal caps are published apart, so a bare-metal shape the
shipped catalog lacks gets them as stated unknowns. A shape the shipped catalog has keeps what the file does not
give, its stated unknowns included (VM.Standard.E6.Flex: the block-volume pages give no rule for it).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from blockfit.catalog.importers.common import Contribution, Format, ImportProblem, InputFile, cited, iso_date, positive
from blockfit.catalog.models import Catalog

SHAPES = Format("shape-list", "oci compute shape list",
                "https://docs.oracle.com/en-us/iaas/api/#/en/iaas/latest/Shape/")
PRICES = Format("products", "OCI products price list",
                "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/", prices=True)
_GEN = re.compile(r"\.(E\d+|A\d+)\.")
# the price list's product names for a shape family: (kind, generation) as in "Compute - Standard - E4 - OCPU"
_PRICE_NAME = re.compile(r"compute(standard|optimized|denseio)(e\d+|a\d+|x\d+)(ocpu|memory)\Z")


def _norm(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", key.lower())


def _get(obj: Any, key: str) -> Any:
    """obj's field `key` in kebab or camel case (key given in camel case)."""
    if not isinstance(obj, dict):
        return None
    want = _norm(key)
    return next((v for k, v in obj.items() if _norm(k) == want), None)


def _is_shape_list(data: Any) -> bool:
    """A shape list: rows with `shape` (bare, or under `data` as the CLI prints it), or the CLI's empty `data`."""
    rows = data.get("data") if isinstance(data, dict) and "data" in data else data
    if isinstance(rows, list) and rows and isinstance(rows[0], dict) and "shape" in rows[0]:
        return True
    return isinstance(data, dict) and isinstance(data.get("data"), list) and not data["data"]


def _is_price_list(data: Any) -> bool:
    """The products price list: `items` beside `lastUpdated`, or items carrying a `partNumber`."""
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        return False
    return "lastUpdated" in data or any(isinstance(i, dict) and "partNumber" in i for i in data["items"][:5])


class OciImporter:
    CLOUD: str = "oci"
    FORMATS: tuple[Format, ...] = (SHAPES, PRICES)

    def detect(self, data: Any) -> Format | None:
        if _is_shape_list(data):
            return SHAPES
        return PRICES if _is_price_list(data) else None

    def file_date(self, fmt: Format, data: Any) -> date | None:
        return iso_date(data.get("lastUpdated")) if fmt is PRICES else None

    def covers_capset(self, capset: dict[str, Any], shape: dict[str, Any]) -> bool:
        return False   # OCI shapes carry no cap sets

    def read(self, files: list[InputFile], base: Catalog, region: str | None) -> Contribution:
        c = Contribution()
        memory: dict[str, dict[str, float]] = {}
        for f in files:
            if f.format is SHAPES:
                _shapes(f, base, c, memory)
        for f in files:
            if f.format is PRICES:
                _prices(f, base, c, memory)
        for name, bounds in memory.items():   # a shape list's memory range updates a price the catalog has
            if name in base.compute_prices and name not in c.compute_prices:
                src = next(f.source_id for f in files if f.format is SHAPES)
                c.price(name, src, **bounds)
        return c


def _shapes(f: InputFile, base: Catalog, c: Contribution, memory: dict[str, dict[str, float]]) -> None:
    rows = f.data.get("data") if isinstance(f.data, dict) else f.data
    if not rows:
        raise ImportProblem(f"{f.shown}: data is an empty list; expected at least one shape")
    gpu = []
    for i, row in enumerate(rows):
        where = f"{f.shown}: data[{i}]"
        name = _get(row, "shape")
        if not isinstance(name, str) or not name:
            raise ImportProblem(f"{where}: missing shape")
        where += f" ({name})"
        if (_get(row, "gpus") or 0) > 0:
            gpu.append(name)
            continue
        flexible = _get(row, "isFlexible") or _get(row, "ocpuOptions") is not None
        family = _GEN.search(name)
        fields: dict[str, Any] = {"family": family.group(1)} if family and name not in base.shapes else {}
        cite: dict[str, str] = {}
        if flexible:
            _flex_fields(row, where, name, fields, memory)
        else:
            _fixed_fields(row, where, name, base, fields, cite)
        if name not in base.shapes:
            _new_shape_fields(base, name, bool(flexible), fields, cite)
        c.shape(name, f.source_id, cite, **fields)
    if gpu:
        c.skipped.append(f"{f.shown}: {len(gpu)} GPU shapes, e.g. {', '.join(gpu[:4])}")


def _flex_fields(row: Any, where: str, name: str, fields: dict[str, Any], memory: dict[str, dict[str, float]]) -> None:
    """A flexible shape's OCPU range and network per OCPU; its memory bounds per OCPU into `memory`."""
    ocpu, net = _get(row, "ocpuOptions"), _get(row, "networkingBandwidthOptions")
    lo, hi = _num(ocpu, "min", where + ": ocpu-options"), _num(ocpu, "max", where + ": ocpu-options")
    per = _num(net, "defaultPerOcpuInGbps", where + ": networking-bandwidth-options")
    top = _num(net, "maxInGbps", where + ": networking-bandwidth-options")
    positive(hi, "ocpu-options.max", where, most=1024)
    positive(top, "networking-bandwidth-options.max-in-gbps", where, most=800, unit_hint="Gbps")
    positive(per, "networking-bandwidth-options.default-per-ocpu-in-gbps", where, most=100, unit_hint="Gbps")
    if lo > hi:
        raise ImportProblem(f"{where}: ocpu-options min {lo:g} above max {hi:g}")
    fields.update(kind="flex", ocpus_min=lo, ocpus_max=hi, gbps_per_ocpu=per, gbps_max=top)
    mem = _get(row, "memoryOptions")
    if isinstance(mem, dict):
        bounds = {k: float(v) for k, v in (("memory_min_gb_per_ocpu", _get(mem, "minPerOcpuInGBs")),
                                           ("memory_default_gb_per_ocpu", _get(mem, "defaultPerOcpuInGBs")),
                                           ("memory_max_gb_per_ocpu", _get(mem, "maxPerOcpuInGBs")))
                  if isinstance(v, int | float)}
        if bounds:
            memory[name] = bounds


def _fixed_fields(row: Any, where: str, name: str, base: Catalog, fields: dict[str, Any],
                  cite: dict[str, str]) -> None:
    """A fixed shape's OCPUs, network and memory; a VM's block-volume caps by the instance rule per Gbps."""
    rule = base.instance_rule
    ocpus = _num(row, "ocpus", where)
    gbps = _num(row, "networkingBandwidthInGbps", where)
    mem_gb = _get(row, "memoryInGBs")
    positive(ocpus, "ocpus", where, most=1024)
    positive(gbps, "networking-bandwidth-in-gbps", where, most=800, unit_hint="Gbps, not Mbps")
    fields.update(kind="fixed", ocpus=ocpus, gbps=gbps)
    if isinstance(mem_gb, int | float) and not isinstance(mem_gb, bool):
        fields["memory_gb"] = positive(mem_gb, "memory-in-gbs", where, most=65536, unit_hint="GB, not MB")
    if name.startswith("VM.") and rule is not None:
        fields["iops"] = min(rule.iops_per_gbps * gbps, rule.iops_max)
        fields["mbps"] = min(rule.mbps_per_gbps * gbps, rule.mbps_max)
        cite.update(iops=rule.source_of("iops_per_gbps"), mbps=rule.source_of("mbps_per_gbps"))
    elif name not in base.shapes:
        fields["unknown"] = ["iops", "mbps", "attach_max"]


def _new_shape_fields(base: Catalog, name: str, flexible: bool, fields: dict[str, Any], cite: dict[str, str]) -> None:
    """What a shape the shipped catalog lacks takes from OCI's general rules, and what stays unknown."""
    rule = base.instance_rule
    fields["direction"] = "each"
    if rule is not None:
        cite["direction"] = rule.source_of("direction")
    ov = cited(base, "OCI-OV")
    if ov and "attach_max" not in fields.get("unknown", []):
        fields["attach_max"] = 32
        cite["attach_max"] = ov
    elif not ov:
        fields.setdefault("unknown", []).append("attach_max")
    if flexible:
        fields.setdefault("unknown", []).append("uhp_min_ocpus")
    fields["unknown"] = list(dict.fromkeys(fields.get("unknown", []))) or None
    fields["note"] = ("Imported from oci compute shape list. " + (
        "Block-volume caps by OCI's VM rule per network Gbps (instance_rule); " if name.startswith("VM.")
        else "Bare-metal block-volume caps are published apart and were not in the file: not applied; ")
        + "whether it takes multipath-enabled (UHP) attachments is not in the file.")


def _num(obj: Any, key: str, where: str) -> float:
    value = _get(obj, key)
    if value is None:
        raise ImportProblem(f"{where}: missing {key}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ImportProblem(f"{where}: {key} = {value!r}: expected a number")
    return int(value) if float(value).is_integer() else float(value)


def price_family(shape: str) -> tuple[str, str] | None:
    """The price list's (kind, generation) for a shape: VM.Standard.E4.Flex → (standard, e4); the X9 shapes are
    named by number (VM.Standard3.Flex, VM.Optimized3.Flex → x9)."""
    parts = shape.lower().split(".")
    if len(parts) < 3 or parts[0] not in ("vm", "bm"):
        return None
    if parts[1] in ("standard3", "optimized3"):
        return parts[1][:-1], "x9"
    if parts[1] in ("standard", "denseio", "optimized") and re.fullmatch(r"(e\d+|a\d+)", parts[2]):
        return parts[1], parts[2]
    return None


def _prices(f: InputFile, base: Catalog, c: Contribution, memory: dict[str, dict[str, float]]) -> None:
    items = f.data["items"]
    if not items:
        raise ImportProblem(f"{f.shown}: items is an empty list; expected the products price list")
    table: dict[tuple[str, str, str], float] = {}
    block: dict[str, float] = {}
    for i, item in enumerate(items):
        _price_item(f, i, item, table, block)
    shapes = {**{n: s.model_dump() for n, s in base.shapes.items()}, **{n: s for n, s in c.shapes.items()}}
    priced = sum(_price_shape(f, base, c, memory, table, name, shape) for name, shape in sorted(shapes.items()))
    if block and "block" in base.volume_types:
        c.volume("block", f.source_id, **block)
    if not priced and not block:
        raise ImportProblem(f"{f.shown}: no compute price for a shape blockfit knows or imports, and no block "
                            "volume price; expected the OCI products price list")


def _price_item(f: InputFile, i: int, item: Any, table: dict[tuple[str, str, str], float],
                block: dict[str, float]) -> None:
    """One item of the price list into `table` (kind, generation, ocpu|memory) or `block`; others are skipped."""
    where = f"{f.shown}: items[{i}]"
    if not isinstance(item, dict):
        raise ImportProblem(f"{where}: expected an object")
    name = " ".join(str(item.get("displayName", "")).split())
    m = _PRICE_NAME.search(_norm(name))
    is_block = name.endswith("Block Volume - Storage") or name.endswith("Block Volume - Performance Units")
    if not m and not is_block:
        return
    where += f" ({item.get('partNumber')} {name})"
    metric = str(item.get("metricName", ""))
    expected = _expected_metric(name, m)
    if metric != expected:
        raise ImportProblem(f"{where}: metricName {metric!r}; the unit contradicts the product (expected "
                            f"{expected!r})")
    usd = _usd(item, where)
    if m:
        table[(m.group(1), m.group(2), m.group(3))] = usd
    else:
        block["price_per_gb" if name.endswith("Storage") else "price_per_vpu_gb"] = usd


def _expected_metric(name: str, m: re.Match[str] | None) -> str:
    """The metricName a compute or block volume product's price must carry."""
    if m:
        return "OCPU Per Hour" if m.group(3) == "ocpu" else "Gigabyte Per Hour"
    return "Gigabyte Storage Capacity Per Month" if name.endswith("Storage") else \
        "Performance Units Per Gigabyte Per Month"


def _price_shape(f: InputFile, base: Catalog, c: Contribution, memory: dict[str, dict[str, float]],
                 table: dict[tuple[str, str, str], float], name: str, shape: dict[str, Any]) -> bool:
    """Price one shape from its family's OCPU and memory rates; False when the list has no rate for it."""
    fam = price_family(name)
    ocpu = table.get((*fam, "ocpu")) if fam else None
    mem = table.get((*fam, "memory")) if fam else None
    if ocpu is None or mem is None:
        return False
    kind = shape.get("kind") or base.shapes[name].kind
    if kind == "flex":
        c.price(name, f.source_id, per_ocpu_hour=ocpu, per_gb_hour=mem, per_hour=None,
                region="all commercial regions", **memory.get(name, {}))
        if name in memory:
            c.price_sources[name].update({k: _shape_source(c, name) for k in memory[name]})
        return True
    ocpus, mem_gb = shape.get("ocpus"), shape.get("memory_gb")
    if not (ocpus and mem_gb):
        return False
    c.price(name, f.source_id, per_hour=round(ocpus * ocpu + mem_gb * mem, 6), per_ocpu_hour=None,
            per_gb_hour=None, region="all commercial regions")
    return True


def _shape_source(c: Contribution, name: str) -> str:
    return c.shape_sources.get(name, {}).get("kind", next(iter(c.price_sources[name].values())))


def _usd(item: dict[str, Any], where: str) -> float:
    """The pay-as-you-go USD price; where the price is tiered (a free allowance first), the paid tier's."""
    for loc in item.get("currencyCodeLocalizations") or []:
        if isinstance(loc, dict) and loc.get("currencyCode") == "USD":
            paid = [p for p in loc.get("prices") or [] if isinstance(p, dict) and p.get("model") == "PAY_AS_YOU_GO"]
            if not paid:
                break
            top = max(paid, key=lambda p: p.get("rangeMin") or 0)
            value = top.get("value")
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ImportProblem(f"{where}: price value {value!r}: expected a price of at least 0")
            return float(value)
    raise ImportProblem(f"{where}: missing currencyCodeLocalizations USD PAY_AS_YOU_GO price")


PROVIDER = OciImporter()
