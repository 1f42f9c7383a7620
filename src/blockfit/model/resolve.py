"""A layout and an instance resolved against a catalog: the volume normalised, its type and kind, one member's
caps, the instance's caps and the attachment. Every later step of a prediction reads this."""

from __future__ import annotations

from dataclasses import dataclass

from blockfit.catalog import Catalog
from blockfit.catalog.models import VolumeType
from blockfit.errors import InputError
from blockfit.model.attachment import AttachmentPerf, attachment_perf
from blockfit.model.host_cache import check_host_caching
from blockfit.model.instance import InstanceCaps, check_attachable, instance_caps
from blockfit.model.kinds import KINDS, MemberPerf
from blockfit.model.limits import member_perf
from blockfit.schema import Instance, Layout, Volume, Workload
from blockfit.schema.cost import COPIES
from blockfit.units import fmt_gb


def volume_type(cat: Catalog, vol: Volume) -> VolumeType:
    try:
        return cat.volume_types[vol.type]
    except KeyError:
        raise InputError(f"volume type {vol.type!r}: expected one of {', '.join(cat.volume_types)} "
                         f"for {cat.cloud}") from None


def normalize_volume(cat: Catalog, vol: Volume) -> Volume:
    vt = volume_type(cat, vol)
    return KINDS[vt.kind].normalize(cat, vt, vol)


def layout_spec(cat: Catalog, layout: Layout) -> str:
    vt = volume_type(cat, layout.volume)
    return f"{layout.members}x{fmt_gb(layout.volume.size_gb)}@{KINDS[vt.kind].level_spec(vt, layout.volume)}"


@dataclass(frozen=True)
class Resolved:
    """Everything a prediction reads, resolved once."""

    cat: Catalog
    layout: Layout              # its volume normalised (defaults filled) and its paths resolved
    instance: Instance
    workload: Workload
    vt: VolumeType
    member: MemberPerf          # one member's caps in this layout
    caps: InstanceCaps
    att: AttachmentPerf


def resolve(cat: Catalog, layout: Layout, instance: Instance, workload: Workload) -> Resolved:
    """Check the layout and instance against the catalog and resolve their defaults."""
    if layout.volume.cloud != cat.cloud or instance.cloud != cat.cloud:
        raise InputError(f"layout/instance cloud: expected {cat.cloud} for both")
    layout = layout.model_copy(update={"volume": normalize_volume(cat, layout.volume)})
    vt = volume_type(cat, layout.volume)
    least = COPIES[layout.redundancy]
    if layout.members < least:   # ASM needs a failure group per copy, mdadm RAID10 a device per leg
        raise InputError(f"layout {layout_spec(cat, layout)}: {layout.redundancy} redundancy keeps {least} copies of "
                         f"every block on different volumes: expected at least {least} volumes")
    check_host_caching(cat, vt, layout)
    caps = instance_caps(cat, instance, layout.volume.type)
    member = member_perf(cat, vt, layout.volume, layout.members)
    att = attachment_perf(cat, vt, layout, instance, caps, workload.host_queue_depth, member, workload.read_share)
    check_attachable(layout, instance, caps, att.attachment)
    if att.attachment is not None:
        layout = layout.model_copy(update={"attachment": att.attachment, "paths": att.paths})
    return Resolved(cat, layout, instance, workload, vt, member, caps, att)
