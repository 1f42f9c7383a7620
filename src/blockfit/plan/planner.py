"""`plan`: the cheapest layouts that meet the requirements, each with its prediction and stripe size,
a Pareto table of what each extra dollar buys, and an explanation when nothing meets the targets."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from blockfit import __version__
from blockfit.catalog import Catalog
from blockfit.errors import InfeasibleError
from blockfit.model import predict
from blockfit.model.instance import find_shape, instance_caps
from blockfit.plan.advice import VOLUME_LIMITS, pareto_points, single_volume_notes, upgrade_note, workload
from blockfit.plan.evaluate import PLAN_SESSION_DEPTH, Evaluator, Point
from blockfit.plan.search import rank_key, search
from blockfit.plan.space import SearchSpace, default_space
from blockfit.plan.stripe import recommend_stripe
from blockfit.schema import Candidate, CostBreakdown, Instance, Layout, Plan, Requirements
from blockfit.units import fmt_io_size


def make_plan(req: Requirements, cat: Catalog, keep: int = 5, brief: bool = False) -> Plan:
    """The `keep` cheapest layouts meeting REQ, the cost-performance front and notes. `brief` (one host of a fleet,
    planned among hundreds): no front, no latency curve (unless a latency bound needs it) and no notes that search
    the space again (the single-volume comparison)."""
    space = default_space(cat, req)
    ev = Evaluator(cat, req, space)
    points = _distinct(search(ev, space, keep=keep * 4))[:keep]
    if not points:
        raise InfeasibleError(*_explain_infeasible(req, cat, space, ev))
    candidates = [_candidate(req, cat, space, ev, p, with_curve=not brief) for p in points]
    notes = list(space.notes)
    first = candidates[0]
    if cat.cloud == "oci" and first.attachment == "iscsi":
        notes.append(f"Assumes node.session.queue_depth = {PLAN_SESSION_DEPTH} on every iSCSI session (OCI-HP); at the "
                     "default 32 fewer I/Os run at once ('blockfit model' shows what that costs).")
    if req.instance_ocpus is None and first.min_ocpus is not None:
        unit = "OCPUs" if cat.cloud == "oci" else "vCPUs"
        notes.append(f"Smallest {space.shape} that delivers the targets: {first.min_ocpus:g} {unit}.")
    if not brief:
        notes += single_volume_notes(req, cat, space, first)
    upgrade = upgrade_note(req, cat, space, first)
    if upgrade:
        notes.append(upgrade)
    bind_from = _volumes_bind_from(cat, space, first)
    if bind_from is not None:
        ocpus, mbps = bind_from
        notes.append(f"From {ocpus:g} OCPUs the MB/s ceiling of {first.layout} moves from the instance network "
                     f"to the volumes ({mbps:,.0f} MB/s).")
    return Plan(blockfit_version=__version__, created=datetime.now(UTC), cloud=cat.cloud,
                catalog_version=cat.version.isoformat(), requirements=req, candidates=candidates,
                pareto=[] if brief else _pareto(req, cat, space, ev), notes=notes)


def _distinct(points: list[Point], same_option_only: bool = True, tolerance: float = 0.0) -> list[Point]:
    """Drop points that an earlier (cheaper or equal) kept point matches in IOPS and MB/s: the same offer
    with more, smaller members adds nothing. With a tolerance, near-equal offers collapse too (Pareto)."""
    kept: list[Point] = []
    for p in sorted(points, key=rank_key):
        if not any((q.option == p.option or not same_option_only) and q.iops >= p.iops * (1 - tolerance)
                   and q.mbps >= p.mbps * (1 - tolerance) for q in kept):
            kept.append(p)
    return kept


def _candidate(req: Requirements, cat: Catalog, space: SearchSpace, ev: Evaluator, p: Point,
               with_curve: bool = True) -> Candidate:
    stripe, reason = recommend_stripe(p.members, req.manager, req.small_io, req.large_io)
    vol = p.option.volume(cat.cloud, p.size_gb)
    ocpus = req.instance_ocpus if req.instance_ocpus is not None else p.ocpus
    member = ev.member(p.option, p.size_gb, p.members)
    att = ev.attachment(p.option, member.perf, p.ocpus, ev.caps(p.ocpus, p.option.type)) if member else None
    paths = att.paths if att is not None and att.attachment is not None else None
    layout = Layout(members=p.members, volume=vol, stripe_size=stripe or None, manager=req.manager,
                    attachment=req.attachment, paths=paths, redundancy=req.redundancy)
    inst = Instance(cloud=cat.cloud, shape=space.shape, ocpus=ocpus)
    pred = predict(layout, inst, workload(req), cat, latency_bound_ms=req.max_latency_ms, memory_gb=req.memory_gb,
                   with_curve=with_curve)
    if req.target_iops is not None or req.target_mbps is None:
        limited_by = pred.iops_limited_by
    else:
        limited_by = pred.mbps_limited_by
    return Candidate(layout=pred.layout, layout_detail=pred.layout_detail, instance=inst.spec,
                     max_iops=pred.max_iops, max_mbps=pred.max_mbps, cost_per_month=round(p.cost, 2),
                     stripe_size=fmt_io_size(stripe) if stripe else "none", stripe_size_bytes=stripe,
                     stripe_reason=reason, limited_by=limited_by, min_ocpus=p.ocpus, prediction=pred,
                     cost=CostBreakdown(storage=round(p.storage, 2), compute=p.compute,
                                        total=None if p.compute is None else round(p.storage + p.compute, 2),
                                        compute_detail=pred.costs.compute_detail if pred.costs else None),
                     attachment=pred.attachment, paths=pred.paths)


def _volumes_bind_from(cat: Catalog, space: SearchSpace, cand: Candidate) -> tuple[float, float] | None:
    """For a flexible shape: the OCPU count at which the layout's MB/s stops being instance-bound, and
    the MB/s there."""
    shape = find_shape(cat, space.shape)
    if shape.kind != "flex" or not cand.prediction.mbps_limited_by.startswith("instance"):
        return None
    assert shape.ocpus_min is not None and shape.ocpus_max is not None
    for ocpus in range(int(shape.ocpus_min), int(shape.ocpus_max) + 1):
        pred = predict(cand.layout_detail, Instance(cloud=cat.cloud, shape=shape.name, ocpus=ocpus),
                       cand.prediction.workload, cat, with_curve=False)
        if pred.mbps_limited_by.startswith(VOLUME_LIMITS):
            return float(ocpus), pred.max_mbps
    return None


def _pareto(req: Requirements, cat: Catalog, space: SearchSpace, ev: Evaluator, limit: int = 12) -> list[Candidate]:
    """Non-dominated (total cost, IOPS, MB/s): what each extra dollar, storage or compute, buys."""
    relaxed = req.model_copy(update={"target_iops": None, "target_mbps": None, "max_latency_ms": None})
    rev = Evaluator(cat, relaxed, space)
    front = _distinct(pareto_points(req, cat, space), same_option_only=False, tolerance=0.02)
    if len(front) > limit:
        step = (len(front) - 1) / (limit - 1)
        front = [front[round(k * step)] for k in range(limit)]
    return [_candidate(relaxed, cat, space, rev, p) for p in front]


def _explain_infeasible(req: Requirements, cat: Catalog, space: SearchSpace, ev: Evaluator) -> tuple[str, dict]:
    """Which constraint cannot be met, what the best layout reaches, and what bigger shapes would reach."""
    relaxed = req.model_copy(update={"target_iops": None, "target_mbps": None, "max_latency_ms": None})
    rev = Evaluator(cat, relaxed, space)
    best: Point | None = None
    for option in space.options:
        biggest = space.sizes[option.type][-1]
        for members in space.members:
            p = rev.evaluate(option, members, biggest, space.ocpus[-1])
            if p and (best is None or (p.iops, p.mbps) > (best.iops, best.mbps)):
                best = p
    details: dict = {"best": None, "alternatives": []}
    if best is None:
        return (f"no layout of at most {space.members[-1]} volumes holds {req.needed_gb:,.0f} GB "
                f"(capacity x growth) on {space.shape}", details)
    # the cheapest layout that reaches (nearly) that best performance, rather than the biggest one
    reach = relaxed.model_copy(update={"target_iops": best.iops * 0.999, "target_mbps": best.mbps * 0.999})
    cheapest = search(Evaluator(cat, reach, space), space, keep=1)
    best = cheapest[0] if cheapest else best
    cand = _candidate(relaxed, cat, space, rev, best)
    details["best"] = {"layout": cand.layout, "instance": cand.instance, "max_iops": cand.max_iops,
                       "max_mbps": cand.max_mbps, "iops_limited_by": cand.prediction.iops_limited_by,
                       "mbps_limited_by": cand.prediction.mbps_limited_by,
                       "max_iops_at_latency": cand.prediction.max_iops_at_latency}
    missed = []
    if req.target_iops and cand.max_iops < req.target_iops:
        missed.append(f"{req.target_iops:,.0f} IOPS (best {cand.max_iops:,.0f}, limited by "
                      f"{cand.prediction.iops_limited_by})")
    if req.target_mbps and cand.max_mbps < req.target_mbps:
        missed.append(f"{req.target_mbps:,.0f} MB/s (best {cand.max_mbps:,.0f}, limited by "
                      f"{cand.prediction.mbps_limited_by})")
    if not missed and req.max_latency_ms is not None:
        missed.append(f"{req.target_iops or 0:,.0f} IOPS within {req.max_latency_ms:g} ms mean latency")
    details["alternatives"] = _bigger_shapes(req, cat, space)
    msg = f"no layout on {space.shape} meets " + " and ".join(missed or ["the targets"])
    if details["alternatives"]:
        alt = details["alternatives"][0]
        msg += f"; {alt['instance']} would: {alt['layout']} at ${alt['cost_per_month']:,.2f}/month"
    return msg, details


def _bigger_shapes(req: Requirements, cat: Catalog, space: SearchSpace, limit: int = 3) -> list[dict]:
    """The least capable other shapes (by instance caps) on which the targets can be met, cheapest first."""
    vtype = space.options[0].type if space.options else next(iter(cat.volume_types))
    here = _top_caps(cat, space.shape, vtype)
    bigger = sorted((caps, name) for name in cat.shapes if name != space.shape
                    for caps in [_top_caps(cat, name, vtype)] if caps > here)
    out: list[dict[str, Any]] = []
    for _caps, name in bigger:
        alt = req.model_copy(update={"instance_shape": name, "instance_ocpus": None, "max_volumes": None,
                                     "ocpus_min": None, "ocpus_max": None})
        alt_space = default_space(cat, alt)
        found = search(Evaluator(cat, alt, alt_space), alt_space, keep=1)
        if found:
            p = found[0]
            inst = Instance(cloud=cat.cloud, shape=name, ocpus=p.ocpus)
            spec = predict(Layout(members=p.members, volume=p.option.volume(cat.cloud, p.size_gb)), inst,
                           workload(req), cat, with_curve=False).layout
            out.append({"instance": inst.spec, "layout": spec, "cost_per_month": round(p.cost, 2),
                        "max_iops": round(p.iops), "max_mbps": round(p.mbps)})
            if len(out) >= limit:
                break
    return sorted(out, key=lambda a: a["cost_per_month"])


def _top_caps(cat: Catalog, shape_name: str, vtype: str) -> tuple[float, float]:
    """A shape's instance (IOPS, MB/s) caps at its largest size; unknown caps count as unlimited."""
    shape = find_shape(cat, shape_name)
    count = {"flex": shape.ocpus_max, "fixed": None}.get(shape.kind)
    if shape.kind == "vcpu_tiers":
        count = max(t["vcpus_min"] for t in shape.tiers)
    caps = instance_caps(cat, Instance(cloud=cat.cloud, shape=shape.name, ocpus=count), vtype)
    return (caps.iops if caps.iops is not None else math.inf, caps.mbps if caps.mbps is not None else math.inf)
