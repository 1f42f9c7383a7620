"""The caps a layout meets on an instance: the volumes', the attachment's and the instance's, as plain rate limits.

A Cap limits operations per second (with an I/O accounting size), bytes per second, or both (one iSCSI path has an
IOPS and a MB/s ceiling). `predict` turns the caps into the Limit rows of a Prediction; `plan` takes the minimum
over the same caps (`ceilings`) as its fast path, so both use one arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from blockfit.catalog import Catalog
from blockfit.catalog.models import VolumeType
from blockfit.model import redundancy as mirroring
from blockfit.model.attachment import AttachmentPerf
from blockfit.model.instance import InstanceCaps
from blockfit.model.kinds import KINDS, MemberPerf
from blockfit.schema import Citation, Layout, Volume
from blockfit.schema.cost import COPIES

# Limit names other packages read (lab, diagnose, plan): keep them stable.
ISCSI_PATH = "iscsi_path"          # the paths' per-path ceilings x paths carrying I/O
SESSION_DEPTH = "session_depth"    # iSCSI session queue depth x sessions (Little's law)
HOST_QUEUE_DEPTH = "host_queue_depth"
OUTSTANDING_IOS = "outstanding_ios"
QUEUE_LIMITS = (HOST_QUEUE_DEPTH, OUTSTANDING_IOS, SESSION_DEPTH)


@dataclass
class Cap:
    """One named cap on operations per second (counted at an accounting size), on MB/s, or on both."""

    name: str
    description: str
    ops: float | None = None            # ops/s
    mbps: float | None = None           # MB/s
    accounting_bytes: int | None = None
    sources: list[Citation] = field(default_factory=list)
    merges_sequential: bool = False     # sequential I/Os below accounting_bytes merge into one operation

    def iops_at(self, io_bytes: int, sequential: bool = False) -> float:
        """I/Os per second of io_bytes this cap allows (random; sequential ones may merge, see merges_sequential)."""
        vals = []
        if self.ops is not None:
            split = io_bytes / self.accounting_bytes if self.accounting_bytes else 1.0
            if not (sequential and self.merges_sequential):
                split = max(math.ceil(split), 1)
            vals.append(self.ops / split)
        if self.mbps is not None:
            vals.append(self.mbps * 1e6 / io_bytes)
        assert vals
        return min(vals)

    def mbps_at(self, io_bytes: int) -> float:
        """MB/s of sequential io_bytes I/Os (the large-I/O figure)."""
        return self.iops_at(io_bytes, sequential=True) * io_bytes / 1e6


def member_perf(cat: Catalog, vt: VolumeType, vol: Volume, members: int) -> MemberPerf:
    """One member's caps in a layout of `members`. A kind whose volumes share a per-instance allowance (GCP
    Persistent Disk's per-VM baseline) defines perf_in_layout; for the others the member count is irrelevant."""
    kind = KINDS[vt.kind]
    in_layout = getattr(kind, "perf_in_layout", None)
    return in_layout(cat, vt, vol, members) if in_layout else kind.perf(cat, vt, vol)


def volume_caps(cat: Catalog, vt: VolumeType, layout: Layout, mp: MemberPerf) -> list[Cap]:
    """The layout's volume caps: n members x one member's IOPS and MB/s."""
    n = layout.members
    each = f" ({n} x {mp.iops:,.0f})" if n > 1 else ""
    each_mb = f" ({n} x {mp.mbps:,.1f})" if n > 1 else ""
    return [
        Cap(mp.iops_name, f"volume IOPS, {mp.iops_rule}{each}", ops=n * mp.iops, accounting_bytes=mp.accounting_bytes,
            sources=[_cite_member(cat, vt, layout.volume, mp.iops_field)], merges_sequential=mp.merges_sequential),
        Cap(mp.mbps_name, f"volume throughput, {mp.mbps_rule}{each_mb}", mbps=n * mp.mbps,
            sources=[_cite_member(cat, vt, layout.volume, mp.mbps_field)]),
    ]


def _cite_member(cat: Catalog, vt: VolumeType, vol: Volume, fld: str) -> Citation:
    if vt.kind == "oci_vpu" and vol.vpu_per_gb is not None:
        lvl = next(lv for lv in vt.levels if lv.vpu == vol.vpu_per_gb)
        return cat.cite(lvl, fld)
    return cat.cite(vt, fld if fld in type(vt).model_fields else "name")


def instance_caps_list(caps: InstanceCaps, read_share: float = 1.0, copies: int = 1) -> list[Cap]:
    """The instance's caps. Where its MB/s cap holds for each direction (OCI's full-duplex network) a read/write
    mix is bound by the busier direction: cap / max(read share, write share). Where it is one cap for reads and
    writes together (Azure's, GCP's and AWS's disk caps, `caps.direction`), the mix does not help: cap / 1.
    Mirrored writes (copies > 1) go out `copies` times (model/redundancy.py)."""
    out = []
    if caps.iops is not None:
        out.append(Cap("instance_iops", caps.iops_rule, ops=caps.iops, sources=_cites(caps.iops_cite)))
    if caps.mbps is not None:
        writes = f"{100 * (1 - read_share):g}% writes" + (f" x {copies} copies" if copies > 1 else "")
        rule = caps.mbps_rule
        if caps.direction == "each":
            busier = max(read_share, (1 - read_share) * copies)
            if busier != 1:
                rule += (f", each direction: {100 * read_share:g}% reads / {writes} "
                         f"-> {caps.mbps:,.0f} / {busier:g}")
        else:
            busier = read_share + (1 - read_share) * copies
            if read_share < 1:
                rule += ", one cap for reads and writes together"
                if busier != 1:
                    rule += f": {100 * read_share:g}% reads + {writes} -> {caps.mbps:,.0f} / {busier:g}"
        direction = caps.direction_cite if read_share < 1 else None
        out.append(Cap("instance_mbps", rule, mbps=caps.mbps / busier, sources=_cites(caps.mbps_cite, direction)))
    return out


def _cites(*cites: Citation | None) -> list[Citation]:
    return [c for c in cites if c is not None]


def attachment_caps(att: AttachmentPerf, members: int, path_sources: list[Citation] | None = None,
                    pv_sources: list[Citation] | None = None) -> list[Cap]:
    """The iSCSI paths' ceilings (one path carries at most path_iops / path_mbps; paths x volumes of them), or a
    paravirtualized attachment's per-volume IOPS cap (a volume limit: OCI caps the volume, not a path)."""
    if att.pv_max_iops is not None:
        n = members
        return [Cap("volume_iops_paravirtualized", f"paravirtualized attachment ({att.pv_max_iops:,.0f} IOPS per "
                    f"volume{f' x {n}' if n > 1 else ''})", ops=n * att.pv_max_iops, sources=pv_sources or [])]
    if not att.iscsi or (att.path_iops is None and att.path_mbps is None):
        return []
    n = att.sessions(members)
    what = "one iSCSI path" if n == 1 else f"{att.paths} iSCSI path(s) x {members} volume(s)"
    each = ", ".join(x for x in (f"{att.path_iops:,.0f} IOPS" if att.path_iops else "",
                                 f"{att.path_mbps:,.0f} MB/s" if att.path_mbps else "") if x)
    return [Cap(ISCSI_PATH, f"{what} ({each} per path)", ops=n * att.path_iops if att.path_iops else None,
                mbps=n * att.path_mbps if att.path_mbps else None, sources=path_sources or [])]


def attachment_sources(cat: Catalog, vt: VolumeType) -> tuple[list[Citation], list[Citation]]:
    """(the path ceiling's sources, the paravirtualized cap's sources) for attachment_caps."""
    path = [cat.cite(vt, "path_max_iops")] if vt.path_max_iops is not None else []
    pv = [cat.cite(vt, "pv_max_iops")] if vt.pv_max_iops is not None else []
    return path, pv


def is_station(cap: Cap) -> bool:
    """Does the MVA queue at this cap? The volume caps (a paravirtualized attachment's cap is one) do; an iSCSI
    path does not: measured, its per-I/O time stays flat as its load grows (predict.network)."""
    return cap.name.startswith("volume_")


def ceilings(mp: MemberPerf, members: int, caps: InstanceCaps, small_io: int, large_io: int,
             att: AttachmentPerf | None = None, read_share: float = 1.0,
             mirror: str = "none", stations_only: bool = False) -> tuple[float, float]:
    """(max IOPS at small_io, max MB/s at large_io) from the caps alone: the fast path plan searches with, the
    same arithmetic as predict's cap rows (the in-flight row aside: plan checks it on its candidates). With
    stations_only, from the caps the MVA queues at (`is_station`), as the plan's latency check needs."""
    found = [Cap("volume_iops", "", ops=members * mp.iops, accounting_bytes=mp.accounting_bytes,
                 merges_sequential=mp.merges_sequential),
             Cap("volume_mbps", "", mbps=members * mp.mbps), *instance_caps_list(caps, read_share, COPIES[mirror])]
    if att is not None:
        found += attachment_caps(att, members)
    if stations_only:
        found = [cap for cap in found if is_station(cap)]
    found = mirroring.logical_limits(found, mirror, read_share)
    return min(cap.iops_at(small_io) for cap in found), min(cap.mbps_at(large_io) for cap in found)
