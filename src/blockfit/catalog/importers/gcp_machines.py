"""GCP machine types: `gcloud compute machine-types list --format=json` (the MachineType resource: name, guestCpus,
memoryMb, maximumPersistentDisks, isSharedCpu, deprecated, zone) read into the catalog's series shapes.

A predefined machine type SERIES-FAMILY-VCPUS (n2-standard-16) adds its vCPU count to the family of its series and,
where its memory is not the family's GB per vCPU x vCPUs, that memory (n2-highmem-128: 864 GB). memoryMb is MiB and
Google's "GB" is GiB: memory = memoryMb / 1024. Sizes the base catalog has are kept (a listing of one zone may lack
some); a series the base does not have is added with its families and volume count, and its per-VM disk caps stated
unknown (the API carries none). Shared-core, Local SSD, bare-metal and GPU types are not predefined types of that form,
and are skipped and counted. A listing of several zones repeats a type; a repeat with other figures is skipped, said.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from blockfit.catalog.importers.common import Contribution, Format, ImportProblem, InputFile, cited, need, positive
from blockfit.catalog.models import Catalog, MachineFamily

MACHINE_TYPES = Format("machine-types", "gcloud compute machine-types list",
                       "https://cloud.google.com/compute/docs/reference/rest/v1/machineTypes")
_PREDEFINED = re.compile(r"^([a-z][a-z0-9]*)-([a-z]+)-(\d+)\Z", re.ASCII)
MAX_MEMORY_MIB = 64 * 1024 * 1024     # 64 TiB: more is a figure in KiB or bytes, not MiB


@dataclass(frozen=True)
class MachineType:
    series: str
    family: str
    vcpus: int
    memory_gb: float
    disks: int


def is_machine_types(data: Any) -> bool:
    """A JSON list of MachineType resources (kind compute#machineType, or their guestCpus and memoryMb)."""
    return isinstance(data, list) and bool(data) and isinstance(data[0], dict) and (
        data[0].get("kind") == "compute#machineType" or {"guestCpus", "memoryMb"} <= set(data[0]))


def read_machine_types(f: InputFile, base: Catalog, c: Contribution) -> None:
    found, skipped = _parse(f)
    if not found:
        raise ImportProblem(f"{f.shown}: no predefined machine type SERIES-FAMILY-VCPUS (e.g. n2-standard-16) in the "
                            "list; expected gcloud compute machine-types list --format=json output")
    by_series: dict[str, list[MachineType]] = {}
    for mt in found.values():
        by_series.setdefault(mt.series, []).append(mt)
    for series, types in sorted(by_series.items()):
        _series(f, base, c, series, types)
    if skipped:
        c.skipped.append(f"{f.shown}: {sum(skipped.values())} machine types that are not predefined SERIES-FAMILY-"
                         f"VCPUS types (shared-core, Local SSD, bare-metal, GPU) or are deprecated, e.g. "
                         f"{', '.join(sorted(skipped)[:4])}")


def _parse(f: InputFile) -> tuple[dict[str, MachineType], Counter[str]]:
    found: dict[str, MachineType] = {}
    skipped: Counter[str] = Counter()
    for i, item in enumerate(f.data):
        where = f"{f.shown}: [{i}]"
        if not isinstance(item, dict):
            raise ImportProblem(f"{where}: expected an object (a MachineType)")
        name = need(item, "name", where, str)
        where += f" ({name[:60]})"
        m = _PREDEFINED.match(name)
        if m is None or item.get("isSharedCpu") is True or item.get("deprecated"):
            skipped[name[:60]] += 1
            continue
        mt = _one(item, where, m)
        have = found.get(name)
        if have is not None and have != mt:
            raise ImportProblem(f"{where}: figures differ from an earlier row of the same machine type "
                                f"({have.vcpus} vCPUs, {have.memory_gb:g} GB); expected one listing")
        found[name] = mt
    return found, skipped


def _one(item: dict[str, Any], where: str, m: re.Match[str]) -> MachineType:
    vcpus = need(item, "guestCpus", where, int)
    mib = need(item, "memoryMb", where, int)
    disks = need(item, "maximumPersistentDisks", where, int)
    positive(vcpus, "guestCpus", where, most=4096)
    positive(mib, "memoryMb", where, most=MAX_MEMORY_MIB, unit_hint="MiB, not KiB or bytes")
    positive(disks, "maximumPersistentDisks", where, most=1024)
    if vcpus != int(m.group(3)):
        raise ImportProblem(f"{where}: guestCpus {vcpus} contradicts the name's {m.group(3)} vCPUs")
    return MachineType(series=m.group(1), family=m.group(2), vcpus=vcpus, memory_gb=round(mib / 1024, 4),
                       disks=disks)


def _families(base: dict[str, MachineFamily], types: list[MachineType]) -> dict[str, dict[str, Any]]:
    """The series' families with the listed sizes added: a family's GB per vCPU (the base's, else the ratio most of
    its listed sizes have), its vCPU counts (base's and listed), the sizes whose memory the ratio does not give."""
    out: dict[str, dict[str, Any]] = {}
    for name in sorted({t.family for t in types} | set(base)):
        listed = [t for t in types if t.family == name]
        old = base.get(name)
        ratio = old.gb_per_vcpu if old is not None else Counter(
            round(t.memory_gb / t.vcpus, 4) for t in listed).most_common(1)[0][0]
        memory = {int(v): gb for v, gb in (old.memory_gb.items() if old is not None else [])}
        memory |= {t.vcpus: t.memory_gb for t in listed}
        vcpus = sorted({*(old.vcpus if old is not None else []), *(t.vcpus for t in listed)})
        fam: dict[str, Any] = {"gb_per_vcpu": ratio, "vcpus": vcpus}
        exceptions = {str(v): gb for v, gb in sorted(memory.items()) if abs(gb - ratio * v) > 1e-6}
        if exceptions:
            fam["memory_gb"] = exceptions
        out[name] = fam
    return out


def _series(f: InputFile, base: Catalog, c: Contribution, series: str, types: list[MachineType]) -> None:
    shape = base.shapes.get(series)
    families = _families(shape.machine_families if shape is not None else {}, types)
    fields: dict[str, Any] = {"machine_families": families}
    disks = {t.disks for t in types}
    cite: dict[str, str] = {}
    if len(disks) == 1:
        fields["attach_max"] = disks.pop()
    else:
        c.notes.append(f"{series}: maximumPersistentDisks differs by size ({min(disks)} to {max(disks)}); the "
                       "series' attachment limit is kept as shipped")
    if shape is None:
        fields |= {"kind": "vcpu_tiers", "series": series, "direction": "combined", "unknown": ["tiers"],
                   "note": "Imported from gcloud compute machine-types list: sizes, memory and volume count; the "
                           "per-VM disk caps are not in the API (unknown: no instance cap is applied, warned)."}
        opt = cited(base, "GCP-OPT")
        if opt:
            cite["direction"] = opt
    c.shape(series, f.source_id, cite, **fields)
