"""An instance's block-storage limits: OCI's network-scaled VM rule, published fixed caps, or
per-type caps by vCPU count (GCP)."""

from __future__ import annotations

from dataclasses import dataclass, field

from blockfit.catalog.models import Catalog, Shape
from blockfit.errors import InputError
from blockfit.schema import Citation, Instance


@dataclass
class InstanceCaps:
    iops: float | None
    iops_rule: str
    mbps: float | None
    mbps_rule: str
    iops_cite: Citation | None = None
    mbps_cite: Citation | None = None
    gbps: float | None = None
    attach_max: int | None = None
    attach_pv_max: int | None = None
    uhp_ok: bool | None = None
    warnings: list[str] = field(default_factory=list)


def find_shape(cat: Catalog, name: str) -> Shape:
    for key, shape in cat.shapes.items():
        if key.lower() == name.lower():
            return shape
    close = [k for k in cat.shapes if name.lower().split(".")[0] in k.lower()][:6] or list(cat.shapes)[:6]
    raise InputError(f"instance shape {name!r}: not in the {cat.cloud} catalog {cat.version} "
                     f"(e.g. {', '.join(close)}; see 'blockfit catalog show {cat.cloud}')")


def instance_caps(cat: Catalog, inst: Instance, volume_type: str | None = None) -> InstanceCaps:
    shape = find_shape(cat, inst.shape)
    if shape.kind == "flex":
        return _flex_caps(cat, shape, inst)
    if shape.kind == "fixed":
        return _fixed_caps(cat, shape)
    return _tier_caps(cat, shape, inst, volume_type)


def _flex_caps(cat: Catalog, shape: Shape, inst: Instance) -> InstanceCaps:
    rule = cat.instance_rule
    assert rule and shape.gbps_per_ocpu and shape.gbps_max and shape.ocpus_min is not None and shape.ocpus_max
    if inst.ocpus is None:
        raise InputError(f"instance {shape.name!r}: a flexible shape needs an OCPU count, e.g. {shape.name}:12")
    if not shape.ocpus_min <= inst.ocpus <= shape.ocpus_max:
        raise InputError(f"instance {inst.spec!r}: OCPUs must be {shape.ocpus_min:g} to {shape.ocpus_max:g}")
    gbps = min(shape.gbps_per_ocpu * inst.ocpus, shape.gbps_max)
    iops = min(rule.iops_per_gbps * gbps, rule.iops_max)
    mbps = min(rule.mbps_per_gbps * gbps, rule.mbps_max)
    uhp_ok = shape.uhp_min_ocpus is not None and inst.ocpus >= shape.uhp_min_ocpus
    return InstanceCaps(
        iops=iops,
        iops_rule=(f"instance IOPS ({rule.iops_per_gbps:,.0f} x {gbps:g} Gbps)" if iops < rule.iops_max
                   else f"instance IOPS maximum ({rule.iops_max:,.0f})"),
        mbps=mbps,
        mbps_rule=(f"instance network ({rule.mbps_per_gbps:g} MB/s per Gbps x {gbps:g} Gbps)"
                   if mbps < rule.mbps_max else f"instance throughput maximum ({rule.mbps_max:,.0f} MB/s)"),
        iops_cite=cat.cite(rule, "iops_per_gbps"), mbps_cite=cat.cite(rule, "mbps_per_gbps"),
        gbps=gbps, attach_max=shape.attach_max, attach_pv_max=shape.attach_pv_max, uhp_ok=uhp_ok)


def _fixed_caps(cat: Catalog, shape: Shape) -> InstanceCaps:
    warnings = []
    if shape.iops_burst:
        warnings.append(f"{shape.name} bursts to {shape.iops_burst:,.0f} IOPS / {shape.mbps_burst:,.0f} MB/s for "
                        f"up to 30 minutes at a time; the sustained baseline ({shape.iops:,.0f} / {shape.mbps:,.0f}) "
                        "is modelled.")
    return InstanceCaps(
        iops=shape.iops, iops_rule=f"instance IOPS ({shape.name})", mbps=shape.mbps,
        mbps_rule=f"instance throughput ({shape.name})", iops_cite=cat.cite(shape, "iops"),
        mbps_cite=cat.cite(shape, "mbps"), gbps=shape.gbps, attach_max=shape.attach_max, uhp_ok=shape.uhp,
        warnings=warnings)


def _tier_caps(cat: Catalog, shape: Shape, inst: Instance, volume_type: str | None) -> InstanceCaps:
    if inst.ocpus is None:
        raise InputError(f"instance {shape.name!r}: expected a vCPU count, e.g. {shape.name}:16")
    tiers = [t for t in shape.tiers if t["vcpus_min"] <= inst.ocpus <= t.get("vcpus_max", 10**6)]
    if not tiers:
        raise InputError(f"instance {inst.spec!r}: no {shape.name} size with {inst.ocpus:g} vCPUs in the catalog")
    caps = tiers[0].get(volume_type or "", None)
    if caps is None:
        return InstanceCaps(iops=None, iops_rule="instance cap unknown for this disk type", mbps=None,
                            mbps_rule="instance cap unknown for this disk type",
                            warnings=[f"{shape.name} per-VM limits for {volume_type} are not in the catalog; "
                                      "the instance cap is not applied."])
    unit = shape.note or ""
    mbps = caps["mbps"] * (1.048576 if "MiB/s" in unit else 1)
    return InstanceCaps(
        iops=caps["iops"], iops_rule=f"per-VM {volume_type} IOPS ({shape.name}, {inst.ocpus:g} vCPU)", mbps=mbps,
        mbps_rule=f"per-VM {volume_type} throughput ({shape.name}, {inst.ocpus:g} vCPU)",
        iops_cite=cat.cite(shape, "tiers"), mbps_cite=cat.cite(shape, "tiers"),
        attach_max=shape.attach_max)
