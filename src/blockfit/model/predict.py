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
from blockfit.model.instance import InstanceCaps, instance_caps
from blockfit.model.kinds import KINDS, MemberPerf
from blockfit.schema import CostItem, CurvePoint, Instance, Layout, LimitRow, Prediction, Volume, Workload
from blockfit.units import fmt_gb

# A host-queue-depth or outstanding-I/O limit is named as binding only when it costs more than this
# fraction of the caps' throughput; below that the MVA's approach to the asymptote is just queueing.
QUEUE_BINDING_FRACTION = 0.97
MAX_CURVE_OUTSTANDING = 4096
# Limit row names other packages read (lab, diagnose): keep them stable.
ISCSI_PATH = "iscsi_path"          # the paths' per-path ceilings x paths carrying I/O
SESSION_DEPTH = "session_depth"    # iSCSI session queue depth x sessions (Little's law)


@dataclass
class Limit:
    """One named limit: either on operations per second (with an I/O accounting size) or on bytes."""

    name: str
    description: str
    ops: float | None = None            # ops/s
    mbps: float | None = None           # MB/s
    accounting_bytes: int | None = None
    source: str | None = None

    def iops_at(self, io_bytes: int) -> float:
        if self.ops is not None:
            split = math.ceil(io_bytes / self.accounting_bytes) if self.accounting_bytes else 1
            return self.ops / max(split, 1)
        assert self.mbps is not None
        return self.mbps * 1e6 / io_bytes


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


def ceilings(mp: MemberPerf, members: int, caps: InstanceCaps, small_io: int, large_io: int) -> tuple[float, float]:
    """(max IOPS at small_io, max MB/s at large_io) from the caps alone: the fast path plan searches with.
    Same arithmetic as the Limit rows predict() reports."""
    limits = [Limit("v", "", ops=members * mp.iops, accounting_bytes=mp.accounting_bytes),
              Limit("v", "", mbps=members * mp.mbps), *instance_limits(caps)]
    iops = min(lim.iops_at(small_io) for lim in limits)
    mbps = min(lim.iops_at(large_io) for lim in limits) * large_io / 1e6
    return iops, mbps


def _cite_member(cat: Catalog, vt: VolumeType, vol: Volume, fld: str) -> str:
    if vt.kind == "oci_vpu" and vol.vpu_per_gb is not None:
        lvl = next(lv for lv in vt.levels if lv.vpu == vol.vpu_per_gb)
        return cat.cite(lvl, fld)
    return cat.cite(vt, fld if fld in type(vt).model_fields else "name")


def instance_limits(caps: InstanceCaps) -> list[Limit]:
    out = []
    if caps.iops is not None:
        out.append(Limit("instance_iops", caps.iops_rule, ops=caps.iops, source=caps.iops_cite))
    if caps.mbps is not None:
        out.append(Limit("instance_mbps", caps.mbps_rule, mbps=caps.mbps, source=caps.mbps_cite))
    return out


def predict(layout: Layout, instance: Instance, workload: Workload | None = None,
            catalog: Catalog | None = None, latency_bound_ms: float | None = None,
            with_curve: bool = True) -> Prediction:
    """Predict max IOPS (small random I/O) and max MB/s (large I/O) with their binding limits and cost."""
    wl = workload or Workload()
    cat = catalog or load_catalog(layout.volume.cloud)
    if layout.volume.cloud != cat.cloud or instance.cloud != cat.cloud:
        raise InputError(f"layout/instance cloud: expected {cat.cloud} for both")
    layout = layout.model_copy(update={"volume": normalize_volume(cat, layout.volume)})
    vt = volume_type(cat, layout.volume)
    kind = KINDS[vt.kind]
    caps = instance_caps(cat, instance, layout.volume.type)
    mp, limits = member_limits(cat, layout)
    limits += instance_limits(caps)

    cap_iops = min(lim.iops_at(wl.small_io) for lim in limits)
    cap_mbps = min(lim.iops_at(wl.large_io) for lim in limits) * wl.large_io / 1e6
    base_s = vt.base_latency_ms / 1000
    small_net = _network(limits, mp, layout, wl.small_io, base_s)
    large_net = _network(limits, mp, layout, wl.large_io, base_s)

    outstanding = _offered_outstanding(layout, wl)
    if outstanding is not None:
        n_out, label = outstanding
        x_small = queueing.mva(small_net, n_out)[-1].throughput
        x_large = queueing.mva(large_net, n_out)[-1].throughput
        name = "host_queue_depth" if wl.host_queue_depth else "outstanding_ios"
        limits.append(Limit(name, f"{label}: {n_out} I/Os in flight / {vt.base_latency_ms:g} ms each (Little's law)",
                            ops=x_small, mbps=x_large * wl.large_io / 1e6, source=None))

    iops_vals = {lim.name: lim.iops_at(wl.small_io) for lim in limits}
    mbps_vals = {lim.name: lim.iops_at(wl.large_io) * wl.large_io / 1e6 for lim in limits}
    if outstanding is not None:
        iops_vals[limits[-1].name] = limits[-1].ops or 0.0
        mbps_vals[limits[-1].name] = limits[-1].mbps or 0.0
    iops_name = _binding(iops_vals, cap_iops)
    mbps_name = _binding(mbps_vals, cap_mbps)
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
        points = queueing.mva(small_net, MAX_CURVE_OUTSTANDING)
        curve = [CurvePoint(outstanding=p.outstanding, iops=round(p.throughput, 1),
                            mbps=round(p.throughput * wl.small_io / 1e6, 2), latency_ms=round(p.latency_s * 1e3, 3))
                 for p in points if p.outstanding & (p.outstanding - 1) == 0]
        if latency_bound_ms is not None:
            best = queueing.at_latency(points, latency_bound_ms / 1000)
            at_bound = round(min(best.throughput, max_iops), 1) if best else 0.0
        near = next((p for p in points if p.throughput >= 0.95 * max_iops), points[-1])
        lat_at_max = round(near.latency_s * 1e3, 3)

    warnings = list(mp.warnings) + list(caps.warnings) + _layout_warnings(cat, layout, instance, caps, vt)
    warnings += _queue_depth_warning(layout, small_net, vt, max_iops, wl)
    cost = [_times(item, layout.members) for item in kind.cost(cat, vt, layout.volume)]
    total = None if any(c.monthly is None for c in cost) else round(sum(c.monthly or 0.0 for c in cost), 2)
    if total is None:
        warnings.append("Some prices are not in the catalog (see cost); cost_per_month is unknown.")

    return Prediction(
        cloud=cat.cloud, catalog_version=cat.version.isoformat(), layout=layout_spec(cat, layout),
        layout_detail=layout, instance=instance.spec, workload=wl,
        max_iops=round(max_iops, 1), iops_limited_by=iops_name, max_mbps=round(max_mbps, 1),
        mbps_limited_by=mbps_name, limits=rows, member_iops=mp.iops, member_mbps=round(mp.mbps, 3),
        member_io_accounting_bytes=mp.accounting_bytes, instance_iops_cap=caps.iops, instance_mbps_cap=caps.mbps,
        cost_per_month=total, cost=cost, latency_bound_ms=latency_bound_ms, max_iops_at_latency=at_bound,
        latency_ms_at_max_iops=lat_at_max, base_latency_ms=vt.base_latency_ms, curve=curve, warnings=warnings,
        **attachment_fields(vt, layout))


def attachment_fields(vt: VolumeType, layout: Layout) -> dict[str, object]:
    """The attachment as predicted: type, paths carrying I/O, per-path ceilings, session depth."""
    att = layout.attachment or vt.default_attachment
    if att is None:
        return {}
    paths = layout.paths or vt.default_paths.get(att, 1)
    iscsi = att == "iscsi"
    return {"attachment": att, "paths": paths, "path_iops_cap": vt.path_max_iops if iscsi else None,
            "path_mbps_cap": vt.path_max_mbps if iscsi else None,
            "session_depth": vt.iscsi_session_depth if iscsi else None}


def _times(item: CostItem, members: int) -> CostItem:
    monthly = None if item.monthly is None else round(item.monthly * members, 2)
    return item.model_copy(update={"quantity": item.quantity * members, "monthly": monthly})


def _network(limits: list[Limit], mp: MemberPerf, layout: Layout, io: int, base_s: float) -> queueing.Network:
    member_rate = min(lim.iops_at(io) for lim in limits if lim.name.startswith("volume_")) / layout.members
    inst = [lim.iops_at(io) for lim in limits if lim.name.startswith("instance_")]
    return queueing.network_for(base_s, member_rate, layout.members, min(inst) if inst else None)


def _offered_outstanding(layout: Layout, wl: Workload) -> tuple[int, str] | None:
    if wl.host_queue_depth:
        return wl.host_queue_depth * layout.members, (
            f"host queue depth {wl.host_queue_depth} per volume x {layout.members} volume(s)")
    if wl.outstanding:
        return wl.outstanding, "outstanding I/Os offered by the workload"
    return None


def _binding(values: dict[str, float], caps_min: float) -> str:
    name = min(values, key=lambda k: values[k])
    if name in ("host_queue_depth", "outstanding_ios") and values[name] >= QUEUE_BINDING_FRACTION * caps_min:
        return min((k for k in values if k not in ("host_queue_depth", "outstanding_ios")), key=lambda k: values[k])
    return name


def _layout_warnings(cat: Catalog, layout: Layout, instance: Instance, caps: InstanceCaps,
                     vt: VolumeType) -> list[str]:
    out = []
    if caps.attach_max is not None and layout.members > caps.attach_max:
        out.append(f"{layout.members} volumes exceed the {caps.attach_max} attachments {instance.shape} allows.")
    elif caps.attach_pv_max is not None and layout.members > caps.attach_pv_max:
        out.append(f"{layout.members} volumes: {instance.shape} attaches at most {caps.attach_pv_max} "
                   "paravirtualized; attach over iSCSI.")
    vpu = layout.volume.vpu_per_gb
    if vt.kind == "oci_vpu" and vpu is not None and vpu >= 30:
        if caps.uhp_ok is False:
            out.append(f"UHP ({vpu} VPU/GB) needs an instance with >= 16 OCPUs (or bare metal); "
                       f"{instance.spec} gets at most Higher Performance results.")
        out.append("UHP volumes need a multipath-enabled iSCSI attachment (Block Volume Management plugin, "
                   "consistent device paths) to reach their performance.")
    if layout.stripe_size is not None and layout.members > 1 and layout.stripe_size < 64 * 1024:
        out.append(f"Stripe size {layout.stripe_size // 1024} KiB: I/Os larger than the stripe span several members; "
                   "the model assumes each small I/O lands on one member.")
    return out


def _queue_depth_warning(layout: Layout, net: queueing.Network, vt: VolumeType, max_iops: float,
                         wl: Workload) -> list[str]:
    """OCI iSCSI sessions default to queue depth 32 (OCI-HP): say what that costs when it binds."""
    if vt.kind != "oci_vpu" or wl.host_queue_depth or (layout.volume.vpu_per_gb or 0) < 20:
        return []
    n = 32 * layout.members
    x = queueing.mva(net, n)[-1].throughput
    if x >= QUEUE_BINDING_FRACTION * max_iops:
        return []
    return [f"With the iSCSI default node.session.queue_depth 32, {n} I/Os in flight give about {x:,.0f} IOPS "
            f"(Little's law: {n} / {vt.base_latency_ms:g} ms); set node.session.queue_depth = 128 (OCI-HP)."]
