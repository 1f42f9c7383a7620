"""An instance's block-storage limits: OCI's network-scaled VM rule, published fixed caps, or
per-type caps by vCPU count (GCP); which volume types it attaches and how many; and whether its MB/s cap
holds for each direction or for reads and writes together."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from blockfit.catalog.models import CapSet, Catalog, Direction, Shape, VolumeType, tier_caps
from blockfit.errors import InputError, ValueProblem
from blockfit.model.kinds.clouds import cloud_of, unknown_instance_message
from blockfit.schema import Citation, Instance, Layout

# GCP predefined machine types: SERIES-FAMILY-VCPUS (n2-standard-16, c3-highmem-88, n2d-highcpu-224).
_GCP_MACHINE = re.compile(r"^([a-z][a-z0-9]*)-([a-z]+)-(\d+)\Z", re.ASCII)


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
    # "each": the cap holds for reads and for writes separately (OCI's full-duplex network); "combined": one cap
    # for reads and writes together (Azure, GCP, AWS EBS bandwidth)
    direction: Direction = "combined"
    direction_cite: Citation | None = None
    attach_cite: Citation | None = None
    iops_burst: float | None = None     # the caps while the instance's burst lasts (model/burst.py)
    mbps_burst: float | None = None
    iops_cached: float | None = None    # Azure: the VM's cached limits, for disks with host caching (host_cache.py)
    mbps_cached: float | None = None
    cache_gb: float | None = None
    cached_cites: list[Citation] = field(default_factory=list)


@dataclass(frozen=True)
class MachineType:
    """A GCP predefined machine type read from its name: its series' shape, vCPUs and the memory the name fixes."""

    shape: Shape
    family: str
    vcpus: int
    memory_gb: float


def machine_type(cat: Catalog, name: str) -> MachineType | None:
    """'n2-standard-16' -> the n2 series, 16 vCPUs, 64 GB; None when the name is not of that form. A name of
    that form whose series, family or size the catalog does not have is an InputError naming what exists."""
    m = _GCP_MACHINE.match(name.lower())
    if not cloud_of(cat.cloud).machine_types or not m:
        return None
    series, family, count = m.group(1), m.group(2), int(m.group(3))
    shape = next((s for k, s in cat.shapes.items() if k.lower() == series), None)
    if shape is None:
        raise InputError(f"instance {name!r}: machine series {series!r} is not in the gcp catalog {cat.version} "
                         f"(series: {', '.join(cat.shapes)})")
    fam = shape.machine_families.get(family)
    if fam is None:
        known = ", ".join(f"{series}-{f}-N" for f in shape.machine_families) or "none"
        raise InputError(f"instance {name!r}: {series} has no predefined family {family!r} in the catalog "
                         f"(families: {known})")
    if count not in fam.vcpus:
        raise InputError(f"instance {name!r}: {series}-{family} comes with "
                         f"{', '.join(str(v) for v in fam.vcpus)} vCPUs, not {count}")
    return MachineType(shape=shape, family=family, vcpus=count, memory_gb=fam.memory_of(count))


def find_shape(cat: Catalog, name: str) -> Shape:
    mt = machine_type(cat, name)
    if mt is not None:
        return mt.shape
    for key, shape in cat.shapes.items():
        if key.lower() == name.lower():
            return shape
    raise InputError(unknown_instance_message(cat, name))


def alternative_shapes(cat: Catalog, name: str) -> list[str]:
    """The instances plan may suggest instead of `name`: for a GCP machine type, every predefined type of the same
    family in every series (n2-standard-16 -> n2-standard-32, n2d-standard-16, c3-standard-22, ...), whose names
    fix their vCPUs and memory and so their price; otherwise every shape of the catalog."""
    mt = machine_type(cat, name)
    if mt is None:
        return [n for n in cat.shapes if n != name]
    return [f"{series}-{mt.family}-{v}" for series, shape in cat.shapes.items()
            for v in (shape.machine_families[mt.family].vcpus if mt.family in shape.machine_families else [])
            if f"{series}-{mt.family}-{v}" != name.lower()]


def count_fields(cat: Catalog, shape: str, count: float | None) -> dict[str, float | None]:
    """A count in the cloud's own unit (SHAPE:N) as results name it: vcpus, and on OCI ocpus too (model/kinds)."""
    return {} if count is None else cloud_of(cat.cloud).count_fields(shape, count)


def instance_at(cat: Catalog, shape: str, count: float | None, interface: Literal["scsi", "nvme"] | None = None,
                ebs_weighting: str | None = None) -> Instance:
    """SHAPE at COUNT (the cloud's own unit, as SHAPE:N has it), with its vCPUs (and OCI's OCPUs) filled in."""
    return Instance(cloud=cat.cloud, shape=shape, interface=interface, ebs_weighting=ebs_weighting,
                    **count_fields(cat, shape, count))


def series_vcpus(shape: Shape) -> list[int]:
    """The vCPU counts a GCP series comes in (every predefined family's sizes)."""
    return sorted({v for fam in shape.machine_families.values() for v in fam.vcpus})


def instance_caps(cat: Catalog, inst: Instance, volume_type: str | None = None) -> InstanceCaps:
    shape = find_shape(cat, inst.shape)
    check_volume_type(cat, shape, inst, volume_type)
    if shape.kind == "flex":
        caps = _flex_caps(cat, shape, inst)
    elif shape.kind == "fixed":
        caps = _fixed_caps(cat, shape, inst, volume_type)
    else:
        caps = _tier_caps(cat, shape, inst, volume_type)
    caps.direction, caps.direction_cite = _direction(cat, shape)
    if caps.attach_max is not None and caps.attach_cite is None:
        caps.attach_cite = cat.cite(shape, "attach_max")
    if caps.attach_max is None and "attach_max" in shape.unknown:
        caps.warnings.append(f"{shape.name}: its volume attachment limit was not found in the sources read; the "
                             "number of volumes is not checked.")
    return caps


def check_attachable(layout: Layout, inst: Instance, caps: InstanceCaps, attachment: str | None) -> None:
    """More volumes than the instance attaches is an input error in model as in plan, naming the limit's source."""
    n = layout.members
    if caps.attach_max is not None and n > caps.attach_max:
        raise InputError(f"layout {n}x: {inst.spec} attaches at most {caps.attach_max} volumes"
                         + (f" ({caps.attach_cite})" if caps.attach_cite else ""))
    if caps.attach_pv_max is not None and n > caps.attach_pv_max and attachment == "paravirtualized":
        raise InputError(f"layout {n}x: {inst.spec} attaches at most {caps.attach_pv_max} volumes "
                         "paravirtualized; attach over iSCSI (--attachment iscsi) or use fewer volumes")


def check_volume_type(cat: Catalog, shape: Shape, inst: Instance, volume_type: str | None) -> None:
    """A volume type the instance cannot attach is an input error (GCP series support tables, Hyperdisk
    Extreme's machine minimums)."""
    if volume_type is None:
        return
    if shape.volume_types and volume_type not in shape.volume_types:
        raise InputError(f"instance {inst.spec!r}: {shape.name} cannot attach {volume_type} volumes "
                         f"(it attaches {', '.join(shape.volume_types)}; {cat.cite(shape, 'volume_types')})")
    vt = cat.volume_types.get(volume_type)
    if vt is not None and vt.kind == "gcp_hyperdisk":
        _check_machine_minimum(cat, shape, inst, vt)


def _check_machine_minimum(cat: Catalog, shape: Shape, inst: Instance, vt: VolumeType) -> None:
    """A Hyperdisk type with per-series rows (Hyperdisk Extreme) is offered only on the series listed, from the
    vCPU count its row names."""
    mins = [t for t in vt.tiers if "series" in t]
    if not mins:
        return
    row = next((t for t in mins if t["series"] == shape.name.lower()), None)
    if row is None:
        raise InputError(f"instance {inst.spec!r}: {vt.name} is not offered on {shape.name} ({cat.cite(vt, 'tiers')})")
    vcpus = vcpus_of(cat, inst)
    if vcpus is not None and vcpus < row["vcpus_min"]:
        raise InputError(f"instance {inst.spec!r}: {vt.name} needs at least {row['vcpus_min']} vCPUs on "
                         f"{shape.name.upper()} ({cat.cite(vt, 'tiers')})")


def vcpus_of(cat: Catalog, inst: Instance) -> float | None:
    """The vCPU (OCI: OCPU) count an instance spec fixes: from a GCP machine type's name, or the count given."""
    mt = machine_type(cat, inst.shape)
    if mt is not None:
        return float(mt.vcpus)
    shape = find_shape(cat, inst.shape)
    if inst.count is not None:
        return inst.count
    return float(shape.vcpus) if shape.vcpus is not None else shape.ocpus


def _direction(cat: Catalog, shape: Shape) -> tuple[Direction, Citation | None]:
    """Whether the instance's MB/s cap counts each direction or both together, and the source that says so.
    Catalog versions before 2026-11-25 do not say: OCI's caps then follow its network (each direction, as
    blockfit modelled them), every other cloud's are one cap for reads and writes."""
    if shape.direction is not None:
        return shape.direction, cat.cite(shape, "direction")
    rule = cat.instance_rule
    if cloud_of(cat.cloud).sized_by_count(shape) and rule is not None and rule.direction is not None:
        return rule.direction, cat.cite(rule, "direction")
    return cloud_of(cat.cloud).default_direction, None


def _flex_caps(cat: Catalog, shape: Shape, inst: Instance) -> InstanceCaps:
    rule = cat.instance_rule
    assert rule and shape.gbps_per_ocpu and shape.gbps_max and shape.ocpus_min is not None and shape.ocpus_max
    ocpus = _flex_ocpus(shape, inst)
    gbps = min(shape.gbps_per_ocpu * ocpus, shape.gbps_max)
    iops = min(rule.iops_per_gbps * gbps, rule.iops_max)
    mbps = min(rule.mbps_per_gbps * gbps, rule.mbps_max)
    uhp_ok = shape.uhp_min_ocpus is not None and ocpus >= shape.uhp_min_ocpus
    if {"iops", "mbps"} & set(shape.unknown):   # a shape the block-volume pages do not list (E6): its rule is unknown
        return _flex_unknown(shape, iops, mbps, gbps, uhp_ok)
    return InstanceCaps(
        iops=iops,
        iops_rule=(f"instance IOPS ({rule.iops_per_gbps:,.0f} x {gbps:g} Gbps)" if iops < rule.iops_max
                   else f"instance IOPS maximum ({rule.iops_max:,.0f})"),
        mbps=mbps,
        mbps_rule=(f"instance network ({rule.mbps_per_gbps:g} MB/s per Gbps x {gbps:g} Gbps)"
                   if mbps < rule.mbps_max else f"instance throughput maximum ({rule.mbps_max:,.0f} MB/s)"),
        iops_cite=cat.cite(rule, "iops_per_gbps"), mbps_cite=cat.cite(rule, "mbps_per_gbps"),
        gbps=gbps, attach_max=shape.attach_max, attach_pv_max=shape.attach_pv_max, uhp_ok=uhp_ok)


def _flex_ocpus(shape: Shape, inst: Instance) -> float:
    """The OCPU count a flexible shape is asked at, checked against its range and the counts it is sold in."""
    assert shape.ocpus_min is not None and shape.ocpus_max
    ocpus = inst.count
    if ocpus is None:
        raise InputError(f"instance {shape.name!r}: a flexible shape needs an OCPU count, e.g. {shape.name}:12")
    if not shape.ocpus_min <= ocpus <= shape.ocpus_max:
        raise InputError(f"instance {inst.spec!r}: OCPUs must be {shape.ocpus_min:g} to {shape.ocpus_max:g}")
    if shape.ocpu_counts and int(ocpus) not in shape.ocpu_counts:
        raise InputError(f"instance {inst.spec!r}: {shape.name} comes with "
                         f"{', '.join(str(c) for c in shape.ocpu_counts)} OCPUs, not {ocpus:g}")
    return ocpus


def _flex_unknown(shape: Shape, iops: float, mbps: float, gbps: float, uhp_ok: bool) -> InstanceCaps:
    """A flexible shape whose IOPS or MB/s rule is a stated unknown: that cap is not applied, and warned."""
    both = {"iops", "mbps"} <= set(shape.unknown)
    which = "IOPS and MB/s caps were" if both else ("IOPS cap was" if "iops" in shape.unknown else "MB/s cap was")
    return InstanceCaps(
        iops=None if "iops" in shape.unknown else iops, iops_rule="instance IOPS cap unknown",
        mbps=None if "mbps" in shape.unknown else mbps, mbps_rule="instance throughput cap unknown",
        gbps=gbps, attach_max=shape.attach_max, attach_pv_max=shape.attach_pv_max, uhp_ok=uhp_ok,
        warnings=[f"{shape.name}: its instance {which} not found in the sources read (the block-volume pages "
                  f"give no rule for it at {gbps:g} Gbps); {'they are' if both else 'it is'} not applied, so "
                  "only the volumes and their attachments bound this prediction."])


def cap_set(shape: Shape, volume_type: str | None, interface: str | None = None,
            weighting: str | None = None) -> CapSet | None:
    """The first CapSet of the shape that holds for this volume type, interface and weighting (defaults: the
    shape's first interface and weighting); None: the shape's own caps hold."""
    interface = interface or (shape.interfaces[0] if shape.interfaces else None)
    weighting = weighting or (shape.weightings[0] if shape.weightings else None)
    for cs in shape.caps:
        if cs.volume_types and volume_type not in cs.volume_types:
            continue
        if cs.interface is not None and cs.interface != interface:
            continue
        if cs.weighting is not None and cs.weighting != weighting:
            continue
        return cs
    return None


def check_instance_options(shape: Shape, interface: str | None, weighting: str | None) -> None:
    """An instance's /OPTION (a disk interface, an EBS bandwidth weighting) is one its shape offers."""
    if interface is not None and interface not in shape.interfaces:
        offered = ", ".join(shape.interfaces) or "no choice of interface in the catalog"
        raise ValueProblem(f"{shape.name}/{interface}: {shape.name} offers {offered}")
    if weighting is not None and weighting not in shape.weightings:
        offered = ", ".join(shape.weightings) or "no bandwidth weighting in the catalog"
        raise ValueProblem(f"{shape.name}/{weighting}: {shape.name} offers {offered}")


@dataclass(frozen=True)
class _FixedCap:
    """One of a fixed shape's caps (IOPS or MB/s) as the model applies it: the sustained figure, else the burst
    maximum (a shape whose baseline is unknown keeps every cap the catalog knows); the burst left to model."""

    value: float | None
    burst: float | None
    field: str          # the catalog field that cites the figure applied
    rule: str
    warning: str | None


def _fixed_cap(entry: Shape | CapSet, fld: str, what: str) -> _FixedCap:
    unit = "IOPS" if fld == "iops" else "MB/s"
    words = "IOPS" if fld == "iops" else "throughput"
    value, burst = getattr(entry, fld), getattr(entry, f"{fld}_burst")
    if value is not None:
        return _FixedCap(value, burst, fld, f"instance {words} ({what})", None)
    if burst is not None:
        return _FixedCap(burst, None, f"{fld}_burst", f"instance {words} burst maximum ({what}; baseline unknown)",
                         f"{what}: the instance's sustained (baseline) {unit} cap was not found in the sources read; "
                         f"its burst maximum ({burst:,.0f} {unit}) is applied as the cap, so sustained figures may be "
                         "lower than predicted.")
    return _FixedCap(None, None, fld, f"instance {words} ({what})",
                     f"{what}: the instance {unit} cap was not found in the sources read; it is not applied.")


def _fixed_caps(cat: Catalog, shape: Shape, inst: Instance, volume_type: str | None) -> InstanceCaps:
    interface = inst.interface
    weighting = inst.ebs_weighting
    check_instance_options(shape, interface, weighting)
    vt = cat.volume_types.get(volume_type or "")
    cs = cap_set(shape, vt.vm_caps_as if vt is not None and vt.vm_caps_as else volume_type, interface, weighting)
    entry = cs if cs is not None else shape
    what = _caps_name(shape, cs)
    ops, rate = _fixed_cap(entry, "iops", what), _fixed_cap(entry, "mbps", what)
    iops, mbps, iops_burst, mbps_burst = ops.value, rate.value, ops.burst, rate.burst
    warnings = [w for w in (ops.warning, rate.warning) if w is not None]
    if iops_burst and iops is not None and mbps is not None:
        warnings.append(f"{what} bursts to {iops_burst:,.0f} IOPS / {mbps_burst or mbps:,.0f} MB/s for "
                        f"up to 30 minutes at a time (see burst); the sustained baseline ({iops:,.0f} / "
                        f"{mbps:,.0f}) is max_iops / max_mbps.")
    return InstanceCaps(
        iops=iops, iops_rule=ops.rule, mbps=mbps, mbps_rule=rate.rule, iops_cite=cat.cite(entry, ops.field),
        mbps_cite=cat.cite(entry, rate.field), gbps=shape.gbps, attach_max=shape.attach_max, uhp_ok=shape.uhp,
        warnings=warnings, iops_burst=iops_burst, mbps_burst=mbps_burst, iops_cached=shape.iops_cached,
        mbps_cached=shape.mbps_cached, cache_gb=shape.cache_gb,
        cached_cites=[cat.cite(shape, f) for f in ("iops_cached", "mbps_cached") if getattr(shape, f) is not None])


def _caps_name(shape: Shape, cs: CapSet | None) -> str:
    """The shape, and the cap set's volume types, interface and weighting where one holds, as warnings name the
    caps they are about."""
    if cs is None:
        return shape.name
    parts = [p for p in (", ".join(cs.volume_types), cs.interface and cs.interface.upper(),
                         cs.weighting and f"weighting {cs.weighting}") if p]
    return f"{shape.name}, {'; '.join(parts)}"


ALL_DISKS = "all-disks"
"""A GCP vCPU tier's per-VM limit over every Persistent Disk and Hyperdisk volume attached, whatever their types
(Google's "Performance limits by machine type"); a type's own row bounds that type's volumes within it."""


def _tier_caps(cat: Catalog, shape: Shape, inst: Instance, volume_type: str | None) -> InstanceCaps:
    vcpus = vcpus_of(cat, inst)
    if vcpus is None:
        raise InputError(f"instance {shape.name!r}: expected a vCPU count, e.g. {shape.name}:16")
    if not shape.tiers and "tiers" in shape.unknown:
        return InstanceCaps(iops=None, iops_rule="instance cap unknown", mbps=None, mbps_rule="instance cap unknown",
                            attach_max=shape.attach_max,
                            warnings=[f"{shape.name}: its per-VM disk limits were not found in the sources read; the "
                                      "instance cap is not applied."])
    tiers = [t for t in shape.tiers if t["vcpus_min"] <= vcpus <= t.get("vcpus_max", 10**6)]
    if not tiers:
        raise InputError(f"instance {inst.spec!r}: no {shape.name} size with {vcpus:g} vCPUs in the catalog")
    # a tier may carry its own attachment limit (GCP Hyperdisk-only series: the volume count grows with size)
    attach = tiers[0].get("attach_max", shape.attach_max)
    attach_cite = cat.cite(shape, "tiers") if "attach_max" in tiers[0] else None
    caps = tiers[0].get(volume_type or "", None)
    shared = tiers[0].get(ALL_DISKS)
    if caps is None and shared is None:
        no_limits = not tier_caps(tiers[0])   # a row of volume counts only
        warning = (f"{shape.name}: its per-VM disk limits were not found in the sources read ({volume_type}); the "
                   "instance cap is not applied." if no_limits else
                   f"{shape.name} per-VM limits for {volume_type} are not in the catalog; "
                   "the instance cap is not applied.")
        return InstanceCaps(iops=None, iops_rule="instance cap unknown for this disk type", mbps=None,
                            mbps_rule="instance cap unknown for this disk type", attach_max=attach,
                            attach_cite=attach_cite, warnings=[warning])
    found = _tier_pair(cat, shape, vcpus, volume_type, caps, shared)
    found.attach_max, found.attach_cite = attach, attach_cite
    return found


def _tier_cite(cat: Catalog, shape: Shape, key: str) -> Citation:
    """A row's source: its own (C4D's Hyperdisk Balanced rows beside its volume counts) or the tiers'."""
    sid = shape.tier_sources.get(key)
    return cat.cite_source(sid) if sid is not None else cat.cite(shape, "tiers")


def _tier_pair(cat: Catalog, shape: Shape, vcpus: float, volume_type: str | None, caps: dict[str, Any] | None,
               shared: dict[str, Any] | None) -> InstanceCaps:
    """The per-VM IOPS and MB/s caps of a tier: the type's row, bounded by the limit over every disk where the tier
    has one (the lower binds, per figure)."""
    scale = 1.048576 if "MiB/s" in (shape.note or "") else 1.0
    where = f"{shape.name}, {vcpus:g} vCPU"
    pairs = []
    for unit, words in (("iops", "IOPS"), ("mbps", "throughput")):
        own = None if caps is None else caps.get(unit)
        every = None if shared is None else shared.get(unit)
        if every is not None and (own is None or every < own):
            pairs.append((every, f"per-VM {words} of every PD and Hyperdisk volume ({where})",
                          _tier_cite(cat, shape, ALL_DISKS)))
        else:
            pairs.append((own, f"per-VM {volume_type} {words} ({where})", _tier_cite(cat, shape, volume_type or "")))
    (iops, iops_rule, iops_cite), (mib, mbps_rule, mbps_cite) = pairs
    warnings = []
    if shared is not None:
        warnings.append(f"{shape.name}: the per-VM limit of every Persistent Disk and Hyperdisk volume "
                        f"({shared.get('iops', 0):,.0f} IOPS / {shared.get('mbps', 0):,.0f} MiB/s at {vcpus:g} vCPU) "
                        "is shared by all the VM's disks, the boot disk too; the layout is taken as its only load.")
    if caps is None:
        warnings.append(f"{shape.name} per-VM limits for {volume_type} are not in the catalog; the limit over every "
                        "disk is applied.")
    return InstanceCaps(iops=iops, iops_rule=iops_rule, mbps=None if mib is None else mib * scale,
                        mbps_rule=mbps_rule, iops_cite=iops_cite, mbps_cite=mbps_cite, warnings=warnings)
