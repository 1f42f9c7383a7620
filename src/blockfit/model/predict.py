"""`predict`: what a layout of volumes can deliver on an instance, which limit binds, and what it costs.

One step each: `resolve` (the layout and instance against the catalog) → `all_caps` (volume, attachment and
instance caps, mirrored writes counted) → `limit_table` (the caps as Limit rows at both I/O sizes, plus the
in-flight row where it binds; the headline figures are the rows' minimum) → `latency_curve` (mean value
analysis) → warnings (model/warnings.py) → cost (model/cost.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from blockfit.catalog import Catalog, load_catalog
from blockfit.model import burst as bursting
from blockfit.model import host_cache, queueing
from blockfit.model import redundancy as mirroring
from blockfit.model.attachment import paths_needed
from blockfit.model.calibrate_io import calibrate_io_notes
from blockfit.model.cost import layout_cost, region_warnings
from blockfit.model.host import build_depth_citation, session_depth_words
from blockfit.model.limits import (
    HOST_QUEUE_DEPTH,
    OUTSTANDING_IOS,
    SESSION_DEPTH,
    Cap,
    attachment_caps,
    attachment_sources,
    instance_caps_list,
    is_station,
    volume_caps,
)
from blockfit.model.resolve import Resolved, layout_spec, resolve
from blockfit.model.warnings import prediction_warnings
from blockfit.schema import Citation, CurvePoint, Instance, Layout, Limit, Prediction, Workload
from blockfit.schema.cost import COPIES
from blockfit.schema.prediction import Burst
from blockfit.units import fmt_io_size

# The in-flight (Little's law) row is a limit only when it costs more than this fraction of the caps' figure;
# closer than that, the queueing model's approach to the caps is just queueing, said in a note.
QUEUE_BINDING_FRACTION = 0.97
MAX_CURVE_OUTSTANDING = 4096


def predict(layout: Layout, instance: Instance, workload: Workload | None = None,
            catalog: Catalog | None = None, latency_bound_ms: float | None = None,
            with_curve: bool = True, memory_gb: float | None = None) -> Prediction:
    """Predict max IOPS (small random I/O) and max MB/s (large I/O) with their binding limits and cost."""
    wl = workload or Workload()
    cat = catalog or load_catalog(layout.volume.cloud)
    r = resolve(cat, layout, instance, wl)
    caps = all_caps(r)
    table = limit_table(r, caps)
    curve, at_bound, lat_at_max = latency_curve(r, caps, table.max_iops, latency_bound_ms, with_curve)
    bind = next((cap for cap in caps if cap.name == table.iops_limited_by), None)
    cost = layout_cost(cat, r.vt, r.layout, instance, memory_gb)
    burst = burst_phase(r)
    pred = Prediction(
        cloud=cat.cloud, catalog_version=cat.version.isoformat(), layout=layout_spec(cat, r.layout),
        layout_detail=r.layout, instance=instance.spec, instance_detail=instance, workload=wl,
        max_iops=table.max_iops, iops_limited_by=table.iops_limited_by, max_mbps=table.max_mbps,
        mbps_limited_by=table.mbps_limited_by, limits=table.rows, member_iops=r.member.iops,
        member_mbps=round(r.member.mbps, 3), member_io_accounting_bytes=r.member.accounting_bytes,
        instance_iops_cap=r.caps.iops, instance_mbps_cap=r.caps.mbps,
        cost=cost,
        latency_bound_ms=latency_bound_ms, max_iops_at_latency=at_bound, latency_ms_at_max_iops=lat_at_max,
        base_latency_ms=r.att.base_latency_ms, curve=curve,
        warnings=prediction_warnings(cat, r.layout, instance, r.caps, r.vt, r.member, r.att, table.iops_limited_by)
        + host_cache.warnings(r.layout, r.caps, instance.shape)
        + _latency_floor(r, curve, latency_bound_ms)
        + region_warnings(r.vt, cost.compute_detail.region if cost.compute_detail else None, cost.storage is not None)
        + ([] if cost.storage is not None else
           ["Some storage prices are not in the catalog (see cost): the storage cost is unknown."]),
        notes=table.notes + kernel_depth_note(r, caps, table), attachment=r.att.attachment,
        paths=r.att.paths if r.att.attachment else None,
        path_iops_cap=r.att.path_iops, path_mbps_cap=r.att.path_mbps, session_depth=r.att.session_depth,
        paths_needed=(paths_needed(r.member.iops, r.member.mbps, r.att.path_iops, r.att.path_mbps)
                      if r.att.iscsi else None),
        redundancy=r.layout.redundancy, burst=burst,
        no_burst_reason=None if burst is not None else bursting.no_burst_reason(r),
        write_amplification=mirroring.amplification(r.layout.redundancy, wl.read_share),
        usable_gb=r.layout.usable_gb,
        redundancy_note=None if bind is None else mirroring.binding_sentence(
            r.layout.redundancy, wl.read_share, bind, r.caps.mbps))
    measured = calibrate_io_notes(cat, pred)
    return pred.model_copy(update={"notes": pred.notes + measured}) if measured else pred


def burst_phase(r: Resolved) -> Burst | None:
    """The limit table again with every bursting cap at its burst figure (model/burst.py), and how long that lasts
    from full credits; None where nothing in the layout bursts."""
    found = bursting.lifts(r)
    if not found:
        return None
    rb = bursting.burst_resolved(r, found)
    table = limit_table(rb, all_caps(rb))
    rows_iops = {row.name: row.iops for row in table.rows}
    rows_mbps = {row.name: row.mbps for row in table.rows}
    return bursting.make_burst(r, found, rows_iops, rows_mbps, (r.member.iops_name, r.member.mbps_name),
                               table.max_iops, table.max_mbps, (table.iops_limited_by, table.mbps_limited_by))


def kernel_depth_note(r: Resolved, caps: list[Cap], table: LimitTable) -> list[str]:
    """The figure at the kernel's default session depth, beside the one at the depth build sets (plan
    and model once disagreed because one assumed 128, the other 32): what a host nobody tuned would get."""
    att = r.att
    if att.depth_from_host or att.kernel_depth is None or att.session_depth in (None, att.kernel_depth):
        return []
    kernel = dataclasses.replace(r, att=dataclasses.replace(att, session_depth=att.kernel_depth,
                                                              depth_from_host=True))
    at = limit_table(kernel, caps)
    if (at.max_iops, at.max_mbps) == (table.max_iops, table.max_mbps):
        return [f"At the kernel default queue depth {att.kernel_depth} (node.session.queue_depth; blockfit build "
                f"sets {att.session_depth}) the figures are the same."]
    return [f"At the kernel default queue depth {att.kernel_depth} (node.session.queue_depth; blockfit build sets "
            f"{att.session_depth}): {at.max_iops:,.0f} IOPS, {at.max_mbps:,.1f} MB/s "
            f"(--queue-depth {att.kernel_depth} models it)."]


def _latency_floor(r: Resolved, curve: list[CurvePoint], latency_bound_ms: float | None) -> list[str]:
    """Why no load meets a latency bound below what one I/O alone takes ('--max-latency 1ms' on E3
    once printed 0 without saying that an 8k I/O there takes 1.1 ms at the least)."""
    if latency_bound_ms is None or not curve or curve[0].latency_ms <= latency_bound_ms:
        return []
    att, io = r.att, fmt_io_size(r.workload.small_io)
    cite = f" ({att.latency_cite.url or att.latency_cite.id})" if att.latency_cite else ""
    return [f"No load keeps the mean latency within {latency_bound_ms:g} ms: one {io} I/O alone takes "
            f"{curve[0].latency_ms:.3g} ms here ({att.base_latency_ms:.4g} ms base time per I/O, {att.latency_rule}"
            f"{cite}, plus its transfer), so the IOPS within that bound are 0."]


def all_caps(r: Resolved) -> list[Cap]:
    """The volume, attachment and instance caps, each divided by mirrored writes (model/redundancy.py)."""
    path_src, pv_src = attachment_sources(r.cat, r.vt)
    caps = volume_caps(r.cat, r.vt, r.layout, r.member)
    caps += attachment_caps(r.att, r.layout.members, path_src, pv_src)
    caps += instance_caps_list(r.caps, r.workload.read_share, COPIES[r.layout.redundancy])
    if host_cache.cached(r.layout):
        caps = host_cache.apply(caps, r.caps, r.workload.read_share, COPIES[r.layout.redundancy])
    return mirroring.logical_limits(caps, r.layout.redundancy, r.workload.read_share)


@dataclass
class LimitTable:
    rows: list[Limit]
    iops_limited_by: str
    max_iops: float
    mbps_limited_by: str
    max_mbps: float
    notes: list[str] = field(default_factory=list)


@dataclass
class _Row:
    name: str
    description: str
    iops: float
    mbps: float
    sources: list[Citation]
    ops_only: bool          # a pure IOPS limit: wins a tie


def limit_table(r: Resolved, caps: list[Cap]) -> LimitTable:
    """Each cap at both I/O sizes, plus the in-flight row when it binds; the headline is the rows' minimum and the
    binding limit the row holding it (a tie names a pure IOPS limit first: OCI's per-GB IOPS and KiB/s meet at 8 KiB,
    then the first listed, volume before path before instance)."""
    wl = r.workload
    rows = [_Row(cap.name, cap.description, cap.iops_at(wl.small_io), cap.mbps_at(wl.large_io), cap.sources,
                 cap.mbps is None) for cap in caps]
    notes: list[str] = []
    flight = in_flight_row(r, caps)
    if flight is not None:
        caps_iops = min(row.iops for row in rows)
        caps_mbps = min(row.mbps for row in rows)
        binds_iops = flight.iops < QUEUE_BINDING_FRACTION * caps_iops
        binds_mbps = flight.mbps < QUEUE_BINDING_FRACTION * caps_mbps
        if binds_iops or binds_mbps:
            # at the size where it does not bind, it reaches the caps (within queueing): shown at their figure
            flight.iops = flight.iops if binds_iops else caps_iops
            flight.mbps = flight.mbps if binds_mbps else caps_mbps
            rows.append(flight)
        else:
            notes.append(f"{flight.description}: the queueing model gives {flight.iops:,.0f} IOPS, "
                         f"{100 * flight.iops / caps_iops:.0f} % of the caps' {caps_iops:,.0f}; the I/Os in flight "
                         "are enough to reach them.")
    iops_row = min(rows, key=lambda x: (round(x.iops, 6), not x.ops_only, rows.index(x)))
    mbps_row = min(rows, key=lambda x: (round(x.mbps, 6), not x.ops_only, rows.index(x)))
    max_iops, max_mbps = round(iops_row.iops, 1), round(mbps_row.mbps, 1)
    limits = [Limit(name=x.name, description=x.description, iops=round(x.iops, 1), mbps=round(x.mbps, 1),
                    iops_headroom_pct=round(100 * (round(x.iops, 1) / max_iops - 1), 1),
                    mbps_headroom_pct=round(100 * (round(x.mbps, 1) / max_mbps - 1), 1), sources=x.sources)
              for x in rows]
    return LimitTable(limits, iops_row.name, max_iops, mbps_row.name, max_mbps, notes)


def in_flight_row(r: Resolved, caps: list[Cap]) -> _Row | None:
    """What the I/Os in flight allow by Little's law (MVA over the caps) at both I/O sizes, or None when nothing
    bounds the I/Os in flight."""
    flight = _in_flight(r)
    if flight is None:
        return None
    n_run, name, label = flight
    wl, att = r.workload, r.att
    running = _running(r)
    # the host's own time per I/O is in each round trip only when every outstanding I/O runs; while I/Os wait for
    # a session slot (or the sessions are assumed kept full) it overlaps with them
    host = att.host_s if wl.outstanding and (running is None or wl.outstanding <= running) else 0.0
    offered = wl.outstanding or n_run
    net_small = network(caps, r.layout, wl.small_io, att.io_time_s(wl.small_io), att.growth)
    x_small = queueing.throughput(net_small, offered, running, host)
    x_large = queueing.throughput(network(caps, r.layout, wl.large_io, att.io_time_s(wl.large_io), att.growth),
                                  offered, running, host)
    each = f"{1000 * att.io_time_s(wl.small_io):.3g} ms each at {fmt_io_size(wl.small_io)}"
    if net_small.growth:
        each += _grown(net_small, offered)
    if host:
        each += f" + {att.host_ms:.3g} ms in the host"
    built = build_depth_citation(r.cat) if att.session_depth and not att.depth_from_host else None
    sources = [built] if built is not None else []
    sources += [c for c in (att.latency_cite, att.host_cite if att.host_ms else None) if c is not None]
    return _Row(name, f"{label} / {each} (Little's law)", x_small, x_large * wl.large_io / 1e6, sources, False)


def _grown(net: queueing.Network, offered: int) -> str:
    """What the volume's own latency curve makes of the time per I/O at the depth a busy member holds."""
    depth = queueing.depth_per_member(offered, net)
    factor = queueing.growth_factor(net.growth, depth)
    busy = queueing.busy_members(offered, net.members, net.touched)
    on = f", {busy:.3g} of {net.members} volumes busy" if net.members > 1 else ""
    return f" at depth 1, {1000 * net.unloaded_s * factor:.3g} ms at {depth:.3g} per volume{on}"


def _running(r: Resolved) -> int | None:
    """I/Os that run at once over iSCSI (sessions x session depth); None where nothing caps them."""
    att = r.att
    return att.sessions(r.layout.members) * att.session_depth if att.session_depth else None


def _in_flight(r: Resolved) -> tuple[int, str, str] | None:
    """How many I/Os run at once, what sets it, and how to say so. Over iSCSI each session (path) runs at most
    its queue depth; outstanding I/Os beyond that wait in the host."""
    n, wl, att = r.layout.members, r.workload, r.att
    if att.session_depth is not None:
        running = att.sessions(n) * att.session_depth
        what = f"{session_depth_words(att.session_depth, att.depth_from_host)} x {att.paths} path(s) x {n} volume(s)"
        if wl.outstanding and wl.outstanding <= running:
            return wl.outstanding, OUTSTANDING_IOS, f"{wl.outstanding} outstanding I/Os offered by the workload"
        if wl.outstanding:
            return running, SESSION_DEPTH, (f"{wl.outstanding} outstanding, at most {running} run ({what}); "
                                            "the rest wait in the host")
        return running, SESSION_DEPTH, f"{running} in flight ({what})"   # whoever set the depth: one name
    if wl.host_queue_depth:
        return wl.host_queue_depth * n, HOST_QUEUE_DEPTH, (
            f"host queue depth {wl.host_queue_depth} per volume x {n} volume(s)")
    if wl.outstanding:
        return wl.outstanding, OUTSTANDING_IOS, f"{wl.outstanding} outstanding I/Os offered by the workload"
    return None


def network(caps: list[Cap], layout: Layout, io: int, io_time_s: float,
            growth: queueing.Growth = ()) -> queueing.Network:
    """Members (volume caps, 1/n of I/Os each) behind the instance link.

    An iSCSI path is not a station here: measured, its per-I/O time stays flat as its load grows (BV4DB: 0.665 ms
    at 48k IOPS on one path, 0.69 ms at 36k a path over five), so it is a delay with a depth limit (the session
    depth, `_in_flight`) and a rate cap (its Limit row), not a server queueing toward its ceiling. Modelled as one,
    its queueing went into the fitted base latency and the model over-promised five paths by 25-40 %."""
    inst = [cap.iops_at(io) for cap in caps if cap.name.startswith("instance_")]
    member = [cap.iops_at(io) for cap in caps if is_station(cap)] or inst   # every read a cache hit: no disk queue
    return queueing.network_for(io_time_s, min(member) / layout.members, layout.members, min(inst) if inst else None,
                                growth, touched_members(layout, io))


def touched_members(layout: Layout, io: int) -> int:
    """Members one I/O of IO bytes lands on: one within a stripe unit, more when it spans several (no stripe size
    named: one)."""
    if layout.members <= 1 or not layout.stripe_size:
        return 1
    return min(layout.members, -(-io // layout.stripe_size))


def latency_curve(r: Resolved, caps: list[Cap], max_iops: float, latency_bound_ms: float | None,
                  with_curve: bool) -> tuple[list[CurvePoint], float | None, float | None]:
    """The predicted latency-versus-load curve at the small I/O size (powers of two of I/Os outstanding), the max
    IOPS within the mean latency bound, and the latency near max IOPS (where the curve reaches 95 % of it)."""
    if not with_curve and latency_bound_ms is None:
        return [], None, None
    wl, att = r.workload, r.att
    points = queueing.mva_host_queued(network(caps, r.layout, wl.small_io, att.io_time_s(wl.small_io), att.growth),
                                      MAX_CURVE_OUTSTANDING, _running(r), att.host_s)
    curve = [CurvePoint(outstanding=p.outstanding, iops=round(p.throughput, 1),
                        mbps=round(p.throughput * wl.small_io / 1e6, 2), latency_ms=round(p.latency_s * 1e3, 3))
             for p in points if p.outstanding & (p.outstanding - 1) == 0]
    at_bound = None
    if latency_bound_ms is not None:
        best = queueing.at_latency(points, latency_bound_ms / 1000)
        at_bound = round(min(best.throughput, max_iops), 1) if best else 0.0
    near = next((p for p in points if p.throughput >= 0.95 * max_iops), points[-1])
    return curve, at_bound, round(near.latency_s * 1e3, 3)
