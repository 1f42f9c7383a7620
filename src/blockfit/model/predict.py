"""`predict`: what a layout of volumes can deliver on an instance, which limit binds, and what it costs.

Every limit is expressed both in I/Os per second at the workload's small I/O size and in MB/s at its
large I/O size, so the binding limit at each size can be named and every other limit's headroom shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blockfit.catalog import Catalog, load_catalog
from blockfit.catalog.models import VolumeType
from blockfit.errors import InputError
from blockfit.model import queueing
from blockfit.model import redundancy as mirroring
from blockfit.model.attachment import AttachmentPerf, attachment_perf, paths_needed
from blockfit.model.compute import compute_cost
from blockfit.model.instance import InstanceCaps, check_attachable, instance_caps
from blockfit.model.kinds import KINDS, MemberPerf
from blockfit.schema import (
    CostBreakdown,
    CostItem,
    CurvePoint,
    Instance,
    Layout,
    LimitRow,
    Prediction,
    Volume,
    Workload,
)
from blockfit.schema.cost import COPIES
from blockfit.units import fmt_gb, fmt_io_size

# A host-queue-depth or outstanding-I/O limit is named as binding only when it costs more than this
# fraction of the caps' throughput; below that the MVA's approach to the asymptote is just queueing.
QUEUE_BINDING_FRACTION = 0.97
MAX_CURVE_OUTSTANDING = 4096
# Limit row names other packages read (lab, diagnose): keep them stable.
ISCSI_PATH = "iscsi_path"          # the paths' per-path ceilings x paths carrying I/O
SESSION_DEPTH = "session_depth"    # iSCSI session queue depth x sessions (Little's law)


@dataclass
class Limit:
    """One named limit on operations per second (with an I/O accounting size), on bytes, or on both (one iSCSI
    path has an IOPS and a MB/s ceiling)."""

    name: str
    description: str
    ops: float | None = None            # ops/s
    mbps: float | None = None           # MB/s
    accounting_bytes: int | None = None
    source: str | None = None

    def iops_at(self, io_bytes: int) -> float:
        vals = []
        if self.ops is not None:
            split = math.ceil(io_bytes / self.accounting_bytes) if self.accounting_bytes else 1
            vals.append(self.ops / max(split, 1))
        if self.mbps is not None:
            vals.append(self.mbps * 1e6 / io_bytes)
        assert vals
        return min(vals)


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


def member_perf(cat: Catalog, vt: VolumeType, vol: Volume, members: int) -> MemberPerf:
    """One member's caps in a layout of `members`. A kind whose volumes share a per-instance allowance (GCP
    Persistent Disk's per-VM baseline) defines perf_in_layout; for the others the member count is irrelevant."""
    kind = KINDS[vt.kind]
    in_layout = getattr(kind, "perf_in_layout", None)
    return in_layout(cat, vt, vol, members) if in_layout else kind.perf(cat, vt, vol)


def member_limits(cat: Catalog, layout: Layout, mp: MemberPerf | None = None) -> tuple[MemberPerf, list[Limit]]:
    """The layout's volume limits (n members x one member's caps); pass `mp` to reuse a computed member."""
    vt = volume_type(cat, layout.volume)
    n = layout.members
    if mp is None:
        mp = member_perf(cat, vt, layout.volume, n)
    each = f" ({n} x {mp.iops:,.0f})" if n > 1 else ""
    each_mb = f" ({n} x {mp.mbps:,.1f})" if n > 1 else ""
    return mp, [
        Limit(mp.iops_name, f"volume IOPS, {mp.iops_rule}{each}", ops=n * mp.iops,
              accounting_bytes=mp.accounting_bytes, source=_cite_member(cat, vt, layout.volume, mp.iops_field)),
        Limit(mp.mbps_name, f"volume throughput, {mp.mbps_rule}{each_mb}", mbps=n * mp.mbps,
              source=_cite_member(cat, vt, layout.volume, mp.mbps_field)),
    ]


def is_station(lim: Limit) -> bool:
    """Does the MVA queue at this limit? The volume caps (a paravirtualized attachment's cap is one) do; an iSCSI
    path does not: measured, its per-I/O time stays flat as its load grows (see `_network`)."""
    return lim.name.startswith("volume_")


def ceilings(mp: MemberPerf, members: int, caps: InstanceCaps, small_io: int, large_io: int,
             att: AttachmentPerf | None = None, read_fraction: float = 1.0,
             mirror: str = "none", stations_only: bool = False) -> tuple[float, float]:
    """(max IOPS at small_io, max MB/s at large_io) from the caps alone: the fast path plan searches with.
    Same arithmetic as the Limit rows predict() reports (session depth aside: a host setting). With
    stations_only, from the limits the MVA queues at (`is_station`), as the plan's latency check needs."""
    limits = [Limit("volume_iops", "", ops=members * mp.iops, accounting_bytes=mp.accounting_bytes),
              Limit("volume_mbps", "", mbps=members * mp.mbps), *instance_limits(caps, read_fraction, COPIES[mirror])]
    if att is not None:
        limits += attachment_limits(att, members, None, None)
    if stations_only:
        limits = [lim for lim in limits if is_station(lim)]
    limits = mirroring.logical_limits(limits, mirror, read_fraction)
    iops = min(lim.iops_at(small_io) for lim in limits)
    mbps = min(lim.iops_at(large_io) for lim in limits) * large_io / 1e6
    return iops, mbps


def _cite_member(cat: Catalog, vt: VolumeType, vol: Volume, fld: str) -> str:
    if vt.kind == "oci_vpu" and vol.vpu_per_gb is not None:
        lvl = next(lv for lv in vt.levels if lv.vpu == vol.vpu_per_gb)
        return cat.cite(lvl, fld)
    return cat.cite(vt, fld if fld in type(vt).model_fields else "name")


def instance_limits(caps: InstanceCaps, read_fraction: float = 1.0, copies: int = 1) -> list[Limit]:
    """The instance's caps. Where its MB/s cap holds for each direction (OCI's full-duplex network) a read/write
    mix is bound by the busier direction: cap / max(read share, write share). Where it is one cap for reads and
    writes together (Azure's, GCP's and AWS's disk caps, `caps.direction`), the mix does not help: cap / 1.
    Mirrored writes (copies > 1) go out `copies` times (model/redundancy.py)."""
    out = []
    if caps.iops is not None:
        out.append(Limit("instance_iops", caps.iops_rule, ops=caps.iops, source=caps.iops_cite))
    if caps.mbps is not None:
        writes = f"{100 * (1 - read_fraction):g}% writes" + (f" x {copies} copies" if copies > 1 else "")
        rule = caps.mbps_rule
        if caps.direction == "each":
            busier = max(read_fraction, (1 - read_fraction) * copies)
            if busier != 1:
                rule += (f", each direction: {100 * read_fraction:g}% reads / {writes} "
                         f"-> {caps.mbps:,.0f} / {busier:g}")
        else:
            busier = read_fraction + (1 - read_fraction) * copies
            if read_fraction < 1:
                rule += ", one cap for reads and writes together"
                if busier != 1:
                    rule += f": {100 * read_fraction:g}% reads + {writes} -> {caps.mbps:,.0f} / {busier:g}"
        source = caps.mbps_cite
        if caps.direction_cite and read_fraction < 1:
            source = f"{source}; direction: {caps.direction_cite}" if source else caps.direction_cite
        out.append(Limit("instance_mbps", rule, mbps=caps.mbps / busier, source=source))
    return out


def attachment_limits(att: AttachmentPerf, members: int, source: str | None, pv_source: str | None) -> list[Limit]:
    """The iSCSI paths' ceilings (one path carries at most path_iops / path_mbps; paths x volumes of them), or a
    paravirtualized attachment's per-volume IOPS cap (a volume limit: OCI caps the volume, not a path)."""
    if att.pv_max_iops is not None:
        n = members
        return [Limit("volume_iops_paravirtualized", f"paravirtualized attachment ({att.pv_max_iops:,.0f} IOPS per "
                      f"volume{f' x {n}' if n > 1 else ''})", ops=n * att.pv_max_iops, source=pv_source)]
    if not att.iscsi or (att.path_iops is None and att.path_mbps is None):
        return []
    n = att.sessions(members)
    what = "one iSCSI path" if n == 1 else f"{att.paths} iSCSI path(s) x {members} volume(s)"
    each = ", ".join(x for x in (f"{att.path_iops:,.0f} IOPS" if att.path_iops else "",
                                 f"{att.path_mbps:,.0f} MB/s" if att.path_mbps else "") if x)
    return [Limit(ISCSI_PATH, f"{what} ({each} per path)",
                  ops=n * att.path_iops if att.path_iops else None,
                  mbps=n * att.path_mbps if att.path_mbps else None, source=source)]


def predict(layout: Layout, instance: Instance, workload: Workload | None = None,
            catalog: Catalog | None = None, latency_bound_ms: float | None = None,
            with_curve: bool = True, memory_gb: float | None = None) -> Prediction:
    """Predict max IOPS (small random I/O) and max MB/s (large I/O) with their binding limits and cost."""
    wl = workload or Workload()
    cat = catalog or load_catalog(layout.volume.cloud)
    if layout.volume.cloud != cat.cloud or instance.cloud != cat.cloud:
        raise InputError(f"layout/instance cloud: expected {cat.cloud} for both")
    layout = layout.model_copy(update={"volume": normalize_volume(cat, layout.volume)})
    vt = volume_type(cat, layout.volume)
    kind = KINDS[vt.kind]
    caps = instance_caps(cat, instance, layout.volume.type)
    att = attachment_perf(cat, vt, layout, instance, caps, wl.host_queue_depth)
    mp, limits = member_limits(cat, layout)
    limits += attachment_limits(att, layout.members, _cite_path(cat, vt), _cite_pv(cat, vt))
    limits += instance_limits(caps, wl.read_fraction, COPIES[layout.redundancy])
    limits = mirroring.logical_limits(limits, layout.redundancy, wl.read_fraction)   # mirrored writes x copies

    cap_iops = min(lim.iops_at(wl.small_io) for lim in limits)
    cap_mbps = min(lim.iops_at(wl.large_io) for lim in limits) * wl.large_io / 1e6
    small_net = _network(limits, layout, wl.small_io, att.io_time_s(wl.small_io))
    large_net = _network(limits, layout, wl.large_io, att.io_time_s(wl.large_io))

    running = att.sessions(layout.members) * att.session_depth if att.session_depth else None
    in_flight = _in_flight(layout, wl, att)
    if in_flight is not None:
        n_run, name, label = in_flight
        offered = wl.outstanding or n_run
        # the host's own time per I/O is in each round trip only when every outstanding I/O runs; while I/Os wait
        # for a session slot (or the sessions are assumed kept full) it overlaps with them
        host = att.host_s if wl.outstanding and (running is None or wl.outstanding <= running) else 0.0
        x_small = queueing.throughput(small_net, offered, running, host)
        x_large = queueing.throughput(large_net, offered, running, host)
        each = f"{1000 * att.io_time_s(wl.small_io):.3g} ms each at {fmt_io_size(wl.small_io)}"
        if host:
            each += f" + {att.host_ms:.3g} ms in the host"
        limits.append(Limit(name, f"{label} / {each} (Little's law)",
                            ops=x_small, mbps=x_large * wl.large_io / 1e6, source=_cite_depth(cat, vt, att)))

    iops_vals = {lim.name: lim.iops_at(wl.small_io) for lim in limits}
    mbps_vals = {lim.name: lim.iops_at(wl.large_io) * wl.large_io / 1e6 for lim in limits}
    if in_flight is not None:
        iops_vals[limits[-1].name] = limits[-1].ops or 0.0
        mbps_vals[limits[-1].name] = limits[-1].mbps or 0.0
    ops_first = [lim.name for lim in limits if lim.mbps is None]   # pure IOPS limits win a tie
    iops_name = _binding(iops_vals, cap_iops, ops_first)
    mbps_name = _binding(mbps_vals, cap_mbps, ops_first)
    max_iops = iops_vals[iops_name]
    max_mbps = mbps_vals[mbps_name]

    rows = [LimitRow(name=lim.name, description=lim.description, iops_at_small_io=round(iops_vals[lim.name], 1),
                     mbps_at_large_io=round(mbps_vals[lim.name], 1),
                     iops_headroom_pct=round(100 * (iops_vals[lim.name] / max_iops - 1), 1),
                     mbps_headroom_pct=round(100 * (mbps_vals[lim.name] / max_mbps - 1), 1),
                     source=lim.source) for lim in limits]

    curve: list[CurvePoint] = []
    at_bound = None
    lat_at_max = None
    if with_curve or latency_bound_ms is not None:
        points = queueing.mva_host_queued(small_net, MAX_CURVE_OUTSTANDING, running, att.host_s)
        curve = [CurvePoint(outstanding=p.outstanding, iops=round(p.throughput, 1),
                            mbps=round(p.throughput * wl.small_io / 1e6, 2), latency_ms=round(p.latency_s * 1e3, 3))
                 for p in points if p.outstanding & (p.outstanding - 1) == 0]
        if latency_bound_ms is not None:
            best = queueing.at_latency(points, latency_bound_ms / 1000)
            at_bound = round(min(best.throughput, max_iops), 1) if best else 0.0
        near = next((p for p in points if p.throughput >= 0.95 * max_iops), points[-1])
        lat_at_max = round(near.latency_s * 1e3, 3)

    warnings = list(mp.warnings) + list(caps.warnings) + att.warnings
    warnings += _layout_warnings(cat, layout, instance, caps, vt, mp, att)
    warnings += _session_warning(iops_name, att, layout)
    cost = [_times(item, layout.members) for item in kind.cost(cat, vt, layout.volume)]
    total = None if any(c.monthly is None for c in cost) else round(sum(c.monthly or 0.0 for c in cost), 2)
    if total is None:
        warnings.append("Some prices are not in the catalog (see cost); cost_per_month is unknown.")
    compute = compute_cost(cat, instance.shape, instance.ocpus, memory_gb)
    both = None if total is None or compute.monthly is None else round(total + compute.monthly, 2)
    bind = next((lim for lim in limits if lim.name == iops_name), None)
    rnote = None if bind is None else mirroring.binding_sentence(layout.redundancy, wl.read_fraction, bind, caps.mbps)

    return Prediction(
        cloud=cat.cloud, catalog_version=cat.version.isoformat(), layout=layout_spec(cat, layout),
        layout_detail=layout, instance=instance.spec, workload=wl,
        max_iops=round(max_iops, 1), iops_limited_by=iops_name, max_mbps=round(max_mbps, 1),
        mbps_limited_by=mbps_name, limits=rows, member_iops=mp.iops, member_mbps=round(mp.mbps, 3),
        member_io_accounting_bytes=mp.accounting_bytes, instance_iops_cap=caps.iops, instance_mbps_cap=caps.mbps,
        cost_per_month=total, cost=cost, latency_bound_ms=latency_bound_ms, max_iops_at_latency=at_bound,
        latency_ms_at_max_iops=lat_at_max, base_latency_ms=att.base_latency_ms, curve=curve, warnings=warnings,
        attachment=att.attachment, paths=att.paths if att.attachment else None, path_iops_cap=att.path_iops,
        path_mbps_cap=att.path_mbps, session_depth=att.session_depth,
        paths_needed=paths_needed(mp.iops, mp.mbps, att.path_iops, att.path_mbps) if att.iscsi else None,
        redundancy=layout.redundancy, read_fraction=wl.read_fraction,
        write_amplification=mirroring.amplification(layout.redundancy, wl.read_fraction),
        usable_gb=layout.usable_gb, redundancy_note=rnote,
        costs=CostBreakdown(storage=total, compute=compute.monthly, total=both, compute_detail=compute))


def _times(item: CostItem, members: int) -> CostItem:
    monthly = None if item.monthly is None else round(item.monthly * members, 2)
    return item.model_copy(update={"quantity": item.quantity * members, "monthly": monthly})


def _cite_depth(cat: Catalog, vt: VolumeType, att: AttachmentPerf) -> str | None:
    """A Little's-law row rests on the session depth (when the catalog's) and on the per-I/O time."""
    parts = [cat.cite(vt, "iscsi_session_depth")] if att.session_depth and not att.depth_from_host else []
    parts += [f"per-I/O time: {att.latency_cite}"] if att.latency_cite else []
    parts += [f"host time: {att.host_cite}"] if att.host_ms and att.host_cite else []
    return "; ".join(parts) or None


def _cite_path(cat: Catalog, vt: VolumeType) -> str | None:
    return cat.cite(vt, "path_max_iops") if vt.path_max_iops is not None else None


def _cite_pv(cat: Catalog, vt: VolumeType) -> str | None:
    return cat.cite(vt, "pv_max_iops") if vt.pv_max_iops is not None else None


def _network(limits: list[Limit], layout: Layout, io: int, io_time_s: float) -> queueing.Network:
    """Members (volume caps, 1/n of I/Os each) behind the instance link.

    An iSCSI path is not a station here: measured, its per-I/O time stays flat as its load grows (BV4DB: 0.665 ms
    at 48k IOPS on one path, 0.69 ms at 36k a path over five), so it is a delay with a depth limit (the session
    depth, `_in_flight`) and a rate cap (its Limit row), not a server queueing toward its ceiling. Modelled as one,
    its queueing went into the fitted base latency and the model over-promised five paths by 25-40 %."""
    member = [lim.iops_at(io) for lim in limits if is_station(lim)]
    inst = [lim.iops_at(io) for lim in limits if lim.name.startswith("instance_")]
    return queueing.network_for(io_time_s, min(member) / layout.members, layout.members, min(inst) if inst else None)


def _in_flight(layout: Layout, wl: Workload, att: AttachmentPerf) -> tuple[int, str, str] | None:
    """How many I/Os run at once, what sets it, and how to say so. Over iSCSI each session (path) runs at most
    its queue depth; outstanding I/Os beyond that wait in the host."""
    n = layout.members
    if att.session_depth is not None:
        sessions = att.sessions(n)
        running = sessions * att.session_depth
        what = (f"{'node.session.queue_depth' if att.depth_from_host else 'iSCSI session queue depth'} "
                f"{att.session_depth} x {att.paths} path(s) x {n} volume(s)")
        if wl.outstanding and wl.outstanding <= running:
            return wl.outstanding, "outstanding_ios", f"{wl.outstanding} outstanding I/Os offered by the workload"
        if wl.outstanding:
            return running, SESSION_DEPTH, (f"{wl.outstanding} outstanding, at most {running} run ({what}); "
                                            "the rest wait in the host")
        return running, "host_queue_depth" if att.depth_from_host else SESSION_DEPTH, f"{running} in flight ({what})"
    if wl.host_queue_depth:
        return wl.host_queue_depth * n, "host_queue_depth", (
            f"host queue depth {wl.host_queue_depth} per volume x {n} volume(s)")
    if wl.outstanding:
        return wl.outstanding, "outstanding_ios", f"{wl.outstanding} outstanding I/Os offered by the workload"
    return None


QUEUE_LIMITS = ("host_queue_depth", "outstanding_ios", SESSION_DEPTH)


def _binding(values: dict[str, float], caps_min: float, ops_first: list[str]) -> str:
    """The lowest limit; a tie (OCI's per-GB IOPS and KiB/s at 8 KiB) names the IOPS limit, then the first
    listed (volume before path before instance). A queue limit binds only when it costs more than the
    approach to the caps' asymptote."""
    def key(k: str) -> tuple[float, int]:
        return (round(values[k], 6), 0 if k in ops_first else 1)
    name = min(values, key=key)
    if name in QUEUE_LIMITS and values[name] >= QUEUE_BINDING_FRACTION * caps_min:
        return min((k for k in values if k not in QUEUE_LIMITS), key=key)
    return name


def _layout_warnings(cat: Catalog, layout: Layout, instance: Instance, caps: InstanceCaps, vt: VolumeType,
                     mp: MemberPerf, att: AttachmentPerf) -> list[str]:
    out: list[str] = []
    check_attachable(layout, instance, caps, att.attachment)
    out += _path_warnings(layout, instance, mp, att)
    if vt.max_iops_cap is not None and (layout.volume.vpu_per_gb or 0) >= 30 and caps.gbps is not None \
            and instance.ocpus is not None and instance.ocpus < 8:
        out.append(f"OCI: a VM needs >= 8 OCPUs for a UHP boot volume's {vt.max_iops_cap:,.0f} IOPS.")
    if layout.stripe_size is not None and layout.members > 1 and layout.stripe_size < 64 * 1024:
        out.append(f"Stripe size {layout.stripe_size // 1024} KiB: I/Os larger than the stripe span several members; "
                   "the model assumes each small I/O lands on one member.")
    return out


# Several paths help only if dm-multipath puts them in one path group (multibus); OCI's multipath.conf default groups
# them for failover, one path carrying I/O (BV4DB sprints 22-23: all I/O on sde). Which multibus selector spreads
# the load matters little: on the same 5-path UHP setup (BV4DB, github.com/rstyczynski/oci_bv4db_arch, progress/
# sprint_20 and sprint_23, 2026-04) each path held 23.7 I/Os under queue-length and 23.4 under round-robin (fio
# disk_util in_queue / runtime); round-robin's 11 % fewer IOPS came from a slower per-I/O time that day (0.72 vs
# 0.65 ms), within the 0.61-0.76 ms six single-path runs of that setup spread over. The lab spreads round-robin too.
SPREAD_CAVEAT = ("Several paths: the model assumes dm-multipath spreads I/O over all of them in one path group "
                 "(path_grouping_policy multibus, as blockfit build configures); grouped for failover, one path "
                 "carries the I/O: model that with --paths 1.")


def _path_warnings(layout: Layout, instance: Instance, mp: MemberPerf, att: AttachmentPerf) -> list[str]:
    """Say when a volume needs more iSCSI paths than it has (UHP), and whether this instance can have them."""
    if not att.iscsi:
        return []
    spread = [SPREAD_CAVEAT] if att.paths > 1 else []
    need = paths_needed(mp.iops, mp.mbps, att.path_iops, att.path_mbps)
    if need <= att.paths:
        return spread
    one = f"one path: {att.path_iops:,.0f} IOPS / {att.path_mbps:,.0f} MB/s" if att.path_iops and att.path_mbps else ""
    if att.multipath_ok is False:
        return [f"Each volume needs {need} iSCSI paths to reach its {mp.iops:,.0f} IOPS / {mp.mbps:,.0f} MB/s ({one}); "
                f"{instance.spec} gets no multipath-enabled attachment (VMs need >= 16 OCPUs), so it is modelled "
                "with 1 path."]
    return [f"Each volume needs {need} iSCSI paths carrying I/O to reach its {mp.iops:,.0f} IOPS / {mp.mbps:,.0f} MB/s "
            f"({one}); modelled with {att.paths}. Attach multipath-enabled and spread I/O over {need} paths "
            f"(dm-multipath; blockfit build), then model with --paths {need}."] + spread


def _session_warning(iops_name: str, att: AttachmentPerf, layout: Layout) -> list[str]:
    """When the iSCSI session depth binds: say what it costs and the OCI-documented fix."""
    if iops_name != SESSION_DEPTH or att.session_depth is None:
        return []
    running = att.sessions(layout.members) * att.session_depth
    return [f"At most {running} I/Os run at once over iSCSI (node.session.queue_depth {att.session_depth} x "
            f"{att.sessions(layout.members)} session(s)); the rest wait in the host. "
            "Set node.session.queue_depth = 128 (OCI-HP) or carry I/O on more paths "
            "(--queue-depth 128 / --paths N to model it)."]
