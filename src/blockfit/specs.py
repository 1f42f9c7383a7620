"""The CLI's spec grammars.

Layout:   COUNTxSIZE@LEVEL[:IOPS[:MBPS]]    e.g. 9x500G@balanced, 1x256G@120vpu, 4x500G@io1:11000,
          2x1T@gp3:16000:1000, 1x46.6G@boot (an OCI boot volume, Balanced; boot-higher, boot-120vpu).
          SIZE counts the cloud's billing GB (units.py); LEVEL is an OCI level
          (lower-cost, balanced, higher, NNvpu; 'uhp' needs NNvpu) or another cloud's volume type;
          IOPS and MBPS are provisioned figures where the type takes them; MBPS is in the unit the provider
          sells it in: MiB/s for AWS (gp3) and GCP (hyperdisk-balanced), MB/s (10^6 B/s) for Azure (premium-v2,
          ultra).
Instance: SHAPE[:COUNT][/OPTION]   e.g. VM.Standard.E3.Flex:12 (OCI OCPUs), m5.12xlarge, n2:16 (GCP vCPUs),
          Standard_E8s_v5/nvme (an Azure size's disk interface: scsi or nvme), m8i.4xlarge/ebs-1 (an AWS
          8th-generation type's EBS bandwidth weighting: default, ebs-1 or vpc-1). Every command that takes an
          instance reads it here (split_instance), so model, plan, fleet, lab, bench and diagnose take one spec.
"""

from __future__ import annotations

import math
import re

from blockfit.catalog import Catalog, Shape, load_catalog
from blockfit.errors import InputError
from blockfit.model.instance import find_shape, instance_at, machine_type, series_vcpus
from blockfit.model.kinds.clouds import cloud_of
from blockfit.model.resolve import normalize_volume
from blockfit.schema import Instance, Layout, Volume
from blockfit.schema.layout import Manager
from blockfit.units import parse_volume_gb

_LAYOUT_RE = re.compile(r"\s*(\d+)\s*[xX]\s*([0-9.]+\s*[A-Za-z]+)\s*@\s*([A-Za-z0-9._-]+)"
                        r"(?::(\d+))?(?::(\d+(?:\.\d+)?))?\s*", re.ASCII)
_INSTANCE_RE = re.compile(r"\s*([A-Za-z0-9._-]+)(?::(\d+(?:\.\d+)?))?\s*", re.ASCII)
LAYOUT_HELP = ("COUNTxSIZE@LEVEL[:IOPS[:MBPS]], e.g. 9x500G@balanced, 1x256G@120vpu, 2x1T@gp3:16000:1000, "
               "1x46.6G@boot (OCI boot volume; boot-higher, boot-120vpu); MBPS in MiB/s for gp3 and "
               "hyperdisk-balanced, in MB/s for premium-v2 and ultra")


def _sold_size(gb: float, step: float, type_name: str, spec: str, count: int) -> int | float:
    """GB as the cloud sells it (whole steps of STEP); a size between steps is refused naming the one it sells,
    never rounded silently."""
    size: int | float = round(math.ceil(gb / step - 1e-9) * step, 6)
    size = int(size) if size == int(size) else size
    if abs(size - gb) > 1e-6 * max(1.0, gb):
        raise InputError(f"layout {spec!r}: {gb:g} GB is not a size {type_name} is sold in ({step:g} GB steps); "
                         f"expected {count}x{size:g}G")
    return size


def parse_layout(spec: str, cloud: str, catalog: Catalog | None = None, stripe_size: int | None = None,
                 manager: Manager = "lvm") -> Layout:
    """Parse and validate a layout spec against the cloud's catalog (sizes, levels, provisioning ranges)."""
    cat = catalog or load_catalog(cloud)
    m = _LAYOUT_RE.fullmatch(spec or "")
    if not m:
        raise InputError(f"layout {spec!r}: expected {LAYOUT_HELP}")
    if len(m.group(1).lstrip("0")) > 6:  # int() of thousands of digits is refused by Python itself
        raise InputError(f"layout {spec[:40]!r}: expected at most 1024 volumes")
    count = int(m.group(1))
    if count < 1:
        raise InputError(f"layout {spec!r}: expected at least 1 volume")
    if count > 1024:
        raise InputError(f"layout {spec!r}: expected at most 1024 volumes")
    gb = parse_volume_gb(m.group(2), what=f"layout {spec!r} size")
    level = m.group(3)
    if any(g and len(g.lstrip("0")) > 15 for g in (m.group(4), m.group(5))):
        raise InputError(f"layout {spec[:40]!r}: a provisioned IOPS or throughput of more than 15 digits; "
                         "expected a figure the volume type offers")
    iops = int(m.group(4)) if m.group(4) else None
    tput = float(m.group(5)) if m.group(5) else None
    vol = _volume_for_level(cat, level, spec)
    vt = cat.volume_types[vol.type]
    if vt.max_members is not None and count > vt.max_members:
        raise InputError(f"layout {spec!r}: an instance has at most {vt.max_members} {vt.name} "
                         f"({cat.cite(vt, 'max_members')}); expected {vt.max_members}x...")
    size = _sold_size(gb, vt.size_step_gb, vt.name, spec, count)
    vol = vol.model_copy(update={"size_gb": size, "provisioned_iops": iops, "provisioned_throughput": tput})
    vol = normalize_volume(cat, vol)
    return Layout(members=count, volume=vol, stripe_size=stripe_size, manager=manager)


def _volume_for_level(cat: Catalog, level: str, spec: str) -> Volume:
    key = cat.aliases.get(level.lower(), level.lower())
    vol = cloud_of(cat.cloud).volume_for_level(cat, key, level)
    if vol is not None:
        return vol
    raise InputError(f"layout {spec!r} level {level!r}: expected one of {', '.join(cat.volume_types)} for {cat.cloud}")


def instance_expected(cloud: str) -> str:
    """'expected SHAPE[:OCPUS], e.g. ...' with shapes of this cloud: an AWS user is not shown an OCI shape."""
    entry = cloud_of(cloud)
    return f"expected SHAPE[:{entry.compute_unit.upper()}S], e.g. {entry.instance_example}"


def parse_instance(spec: str, cloud: str, catalog: Catalog | None = None, require_count: bool = True,
                   what: str = "--instance") -> Instance:
    """Parse SHAPE[:OCPUS][/OPTION]; with require_count=False a flexible shape may leave the count open (plan). A GCP
    predefined machine type (n2-standard-16) is read in full: series, family and vCPUs, each checked."""
    cat = catalog or load_catalog(cloud)
    shape_spec, interface, weighting = split_instance(spec, what)
    inst = _parse_shape(shape_spec, spec, cat, require_count, what)
    return inst.model_copy(update={"interface": interface, "ebs_weighting": weighting})


def _parse_shape(text: str, spec: str, cat: Catalog, require_count: bool, what: str) -> Instance:
    """SHAPE[:COUNT] (TEXT, the part of SPEC before any /OPTION) on the catalog."""
    where = f"{what} {spec!r}"
    unit = cloud_of(cat.cloud).compute_unit
    name, count = _split_shape(text, where, cat.cloud, unit)
    mt = machine_type(cat, name)
    if mt is not None:
        if count is not None:
            raise InputError(f"{where}: {name} fixes its vCPUs ({mt.vcpus}); drop ':{count}'")
        return Instance(cloud=cat.cloud, shape=name.lower())
    shape = find_shape(cat, name)
    ocpus = _whole_count(count, where, unit)
    return instance_at(cat, shape.name, _count_for_shape(shape, ocpus, require_count, where))


def _split_shape(text: str, where: str, cloud: str, unit: str) -> tuple[str, str | None]:
    """'VM.Standard.E3.Flex:12' -> the name and the count's text (None when not given)."""
    m = _INSTANCE_RE.fullmatch(text)
    if not m:
        raise InputError(f"{where}: {instance_expected(cloud)}")
    name, count = m.group(1), m.group(2)
    if count is not None and len(count) > 7:
        raise InputError(f"{where}: {unit} count {count[:12]}...: expected a whole count of at most "
                         "7 digits")
    return name, count


def _whole_count(count: str | None, where: str, unit: str) -> float | None:
    """The count's text as a whole, positive number (shapes take whole OCPUs or vCPUs); None when not given."""
    if count is None:
        return None
    ocpus = float(count)
    if not math.isfinite(ocpus) or ocpus <= 0 or ocpus != int(ocpus):
        raise InputError(f"{where}: expected a whole, positive {unit} count (shapes take whole {unit}s)")
    return ocpus


def _count_for_shape(shape: Shape, ocpus: float | None, require_count: bool, where: str) -> float | None:
    """The count checked against what SHAPE comes in; a fixed shape takes none (None), a flexible one needs one
    unless REQUIRE_COUNT is off."""
    if shape.kind == "fixed":
        if ocpus is not None and shape.ocpus is not None and ocpus != shape.ocpus:
            raise InputError(f"{where}: {shape.name} is a fixed shape with {shape.ocpus:g} OCPUs")
        return None
    if ocpus is None:
        if require_count:
            raise InputError(f"{where}: {shape.name} is flexible; expected SHAPE:COUNT, e.g. {shape.name}:12")
    elif shape.kind == "flex":
        _check_flex_ocpus(shape, ocpus, where)
    elif shape.kind == "vcpu_tiers":
        sizes = series_vcpus(shape)
        if sizes and int(ocpus) not in sizes:
            raise InputError(f"{where}: {shape.name} comes with {', '.join(str(v) for v in sizes)} vCPUs, "
                             f"not {ocpus:g}")
    return ocpus


def _check_flex_ocpus(shape: Shape, ocpus: float, where: str) -> None:
    """OCPUS within a flexible shape's range, and one of the counts it comes in where the catalog lists them."""
    assert shape.ocpus_min is not None and shape.ocpus_max is not None
    if not shape.ocpus_min <= ocpus <= shape.ocpus_max:
        raise InputError(f"{where}: OCPUs must be {shape.ocpus_min:g} to {shape.ocpus_max:g} "
                         f"for {shape.name}")
    if shape.ocpu_counts and int(ocpus) not in shape.ocpu_counts:
        raise InputError(f"{where}: {shape.name} comes with "
                         f"{', '.join(str(c) for c in shape.ocpu_counts)} OCPUs, not {ocpus:g}")


INTERFACES = ("scsi", "nvme")
WEIGHTINGS = ("default", "ebs-1", "vpc-1")
INSTANCE_OPTION_HELP = ("/OPTION after the shape: an Azure size's disk interface, /scsi or /nvme (sizes that offer "
                        "both publish different caps for each; default the size's first), or an AWS 8th-generation "
                        "type's EBS bandwidth weighting, /default, /ebs-1 (more EBS bandwidth) or /vpc-1")


def split_instance(spec: str, what: str = "--instance") -> tuple[str, str | None, str | None]:
    """'Standard_E8s_v5:8/nvme' -> ('Standard_E8s_v5:8', 'nvme', None): the shape part and the options after '/'
    (interface, EBS weighting), each checked for form; whether the size offers them is instance_caps' to say."""
    shape, *options = (spec or "").split("/")
    interface = weighting = None
    for option in options:
        word = option.strip().lower()
        if word in INTERFACES and interface is None:
            interface = word
        elif word in WEIGHTINGS and weighting is None:
            weighting = word
        else:
            raise InputError(f"{what} {spec!r}: expected SHAPE[:COUNT] then at most one /scsi or /nvme (Azure) and "
                             f"one /default, /ebs-1 or /vpc-1 (AWS), got {'/' + option!r}")
    return shape, interface, weighting


def with_instance_options(inst: Instance, interface: str | None, ebs_weighting: str | None) -> Instance:
    """The old --interface and --ebs-weighting (hidden, deprecated) onto INST: checked for form here (whether the
    size offers them, in instance_caps); beside the same option in the spec, refused."""
    given = (("--interface", interface, INTERFACES, "interface", inst.interface),
             ("--ebs-weighting", ebs_weighting, WEIGHTINGS, "ebs_weighting", inst.ebs_weighting))
    update: dict[str, str] = {}
    for option, value, words, field, in_spec in given:
        if value is None:
            continue
        if value.lower() not in words:
            raise InputError(f"{option} {value!r}: expected {', '.join(words[:-1])} or {words[-1]}")
        if in_spec is not None:
            raise InputError(f"{option} {value}: the instance spec says /{in_spec} already; give only --instance "
                             f"SHAPE/{in_spec}")
        update[field] = value.lower()
    return inst.model_copy(update=update)
