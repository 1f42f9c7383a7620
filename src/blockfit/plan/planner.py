"""`plan`: the cheapest layouts that meet the requirements, each with its prediction and stripe size,
a Pareto table of what each extra dollar buys, and an explanation when nothing meets the targets."""

from __future__ import annotations

import bisect
import dataclasses
import math
from datetime import UTC, datetime

from blockfit import __version__
from blockfit.catalog import Catalog
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.model.compute import monthly
from blockfit.model.host import assumptions, host_settings
from blockfit.model.instance import alternative_shapes, find_shape, instance_at, instance_caps, machine_type
from blockfit.model.kinds.clouds import cloud_of
from blockfit.plan.advice import (
    VOLUME_LIMITS,
    money,
    pareto_points,
    single_volume_notes,
    upgrade_note,
    workload,
)
from blockfit.plan.evaluate import Evaluator, Point, concurrency_ceiling
from blockfit.plan.host import kernel_depth_figures
from blockfit.plan.search import TIE_WINDOW, rank_key, search, tie_window
from blockfit.plan.sizing import compute_basis_note
from blockfit.plan.space import SearchSpace, default_space, instance_for, selected_types
from blockfit.plan.stripe import recommend_stripe
from blockfit.schema import Candidate, Infeasible, Layout, Plan, Prediction, Requirements
from blockfit.schema.plan import NO_RANGE, OPEN_COUNT, BurstReplay


def make_plan(req: Requirements, cat: Catalog, keep: int = 5, brief: bool = False) -> Plan:
    """The cheapest layouts meeting the requirements (ties within TIE_WINDOW broken toward fewer volumes, then
    fewer OCPUs), the Pareto front of what more money buys, and notes; or, when nothing meets the targets, a plan
    with feasible=False saying why, the best reached, and the cheapest other shapes that would meet them.
    `brief` (one host of a fleet, planned among hundreds): no front, no latency curve (unless a latency bound needs
    it) and no notes that search the space again (the single-volume comparison)."""
    space = default_space(cat, req)
    ev = Evaluator(cat, req, space)
    # known before unknown: the layouts with a storage price, ranked by total; then, a group of their own, those of
    # types without one (ranked together once, an unpriced layout costing its compute alone won, and the priced
    # 12x1T@premium-v1 that meets the targets appeared nowhere)
    # Known before unknown, for prices and for caps: a type whose per-VM cap is unknown on this shape (not applied)
    # comes after every type whose caps are known, and meeting the targets only there is not called feasible (GCP
    # Hyperdisk: "5,000,000 IOPS" on a c3-standard-44)
    known, capless = split_by_cap(space)
    groups = (*split_by_price(known), *split_by_price(capless))
    candidates: list[Candidate] = []
    outlasted: list[Candidate] = []
    if replays(req) and catalog_bursts(cat):   # from history: layouts whose burst reaches the targets, replayed
        candidates = _meeting(req, cat, space, Evaluator(cat, req, space, burst=True), groups, keep, brief, outlasted)
    if not candidates:
        candidates = _meeting(req, cat, space, ev, groups, keep, brief)
    outlasted = [c for c in outlasted if not candidates or c.ranked_cost <= candidates[0].ranked_cost][:OUTLASTED_SHOWN]
    if not candidates:
        return _plan(req, cat, [], [], list(space.notes),
                     _outlasted(req, cat, space, outlasted) or _explain_infeasible(req, cat, space, ev), outlasted)
    if not candidates[0].cap_known:
        return _plan(req, cat, [], [], list(space.notes), _met_only_without_cap(req, cat, space, candidates[0]),
                     outlasted)
    notes = list(space.notes) + plan_notes(req, cat, space, candidates[0], brief) + tie_notes(candidates)
    if outlasted:
        notes.append(f"Passed over: {outlasted[0].layout} on {outlasted[0].instance} meets the targets on its burst "
                     f"figures, but {outlasted[0].burst_replay.summary if outlasted[0].burst_replay else ''}.")
    front: list[Candidate] = []
    if not brief:
        front = _pareto(req, cat, space, candidates[0])
        notes += _pareto_notes(space, candidates[0], front)
    return _plan(req, cat, candidates, front, notes, None, outlasted)


def replays(req: Requirements) -> bool:
    """Does this plan run its candidates through their credit buckets (plan --from, a series to replay)?"""
    return req.history is not None and bool(req.history.series)


def catalog_bursts(cat: Catalog) -> bool:
    """Does anything in the catalog burst (model/burst.py)? GCP and OCI: no, so their plans search once."""
    return cat.instance_burst is not None or any(
        vt.burst_iops is not None or vt.burst_credits_per_gb is not None or vt.burst_bucket_s is not None
        for vt in cat.volume_types.values())


# Layouts whose credits the history outlasts, kept in the plan (cheaper than the recommendation)
OUTLASTED_SHOWN = 3


def _meeting(req: Requirements, cat: Catalog, space: SearchSpace, ev: Evaluator, groups: tuple[SearchSpace, ...],
             keep: int, brief: bool, outlasted: list[Candidate] | None = None) -> list[Candidate]:
    """The candidates of each group in turn: the first group that meets the targets fills `keep`, each later one
    adds at most UNPRICED_SHOWN (a group of its own, shown after)."""
    found: list[Candidate] = []
    for group in groups:
        if not group.options:   # most spaces have one group of the four (no unpriced, no unknown-cap type)
            continue
        found += meeting_candidates(req, cat, space, ranked_points(ev, group, keep * 4),
                                    UNPRICED_SHOWN if found else keep, brief, outlasted)
    return found


# Layouts of types without a price shown after the priced ones (their own group: not ranked by cost)
UNPRICED_SHOWN = 3


def split_by_cap(space: SearchSpace) -> tuple[SearchSpace, SearchSpace]:
    """The space of the types whose per-VM caps on the shape are known and the space of those whose caps are not."""
    return (dataclasses.replace(space, options=[o for o in space.options if o.type not in space.unknown_cap]),
            dataclasses.replace(space, options=[o for o in space.options if o.type in space.unknown_cap]))


def _met_only_without_cap(req: Requirements, cat: Catalog, space: SearchSpace, best: Candidate) -> Infeasible:
    """Only layouts on types whose per-VM cap is unknown meet the targets, with that cap not applied: not feasible,
    and why (the layout's figures may be more than the VM delivers); the cheapest other shapes whose caps are known
    and meet the targets."""
    types = ", ".join(sorted(space.unknown_cap))
    alternatives = _bigger_shapes(req, cat, space)
    reason = (f"no layout on {space.shape} is known to meet the targets: only with the instance cap not applied "
              f"(instance cap unknown for {types}) would {best.layout} reach {best.max_iops:,.0f} IOPS / "
              f"{best.max_mbps:,.0f} MB/s")
    return Infeasible(reason=reason + _alternative_clause(alternatives), best=best, alternatives=alternatives)


def split_by_price(space: SearchSpace) -> tuple[SearchSpace, SearchSpace]:
    """The space of the types with a storage price and the space of those planned without one (--levels)."""
    return (dataclasses.replace(space, options=[o for o in space.options if o.type not in space.unknown_price]),
            dataclasses.replace(space, options=[o for o in space.options if o.type in space.unknown_price]))


def ranked_points(ev: Evaluator, space: SearchSpace, keep: int = 5) -> list[Point]:
    """The points make_plan turns into its candidates, in its order (the first is the recommendation): the cheapest,
    distinct, ties within TIE_WINDOW broken toward fewer volumes, then fewer OCPUs."""
    return tie_break(_distinct(search(ev, space, keep=keep * 4)))[:keep]


def meeting_candidates(req: Requirements, cat: Catalog, space: SearchSpace, points: list[Point], keep: int,
                       brief: bool = False, outlasted: list[Candidate] | None = None) -> list[Candidate]:
    """The first `keep` points, in order, whose prediction meets the targets. The search's fast path leaves out the
    in-flight (Little's law) row; at a low --queue-depth it binds, and a point the search passed can miss a target:
    that one is never offered (at --queue-depth 32 plan once recommended 6x768G at 135,295 of 150,000 IOPS)."""
    found: list[Candidate] = []
    for p in points[:0] if keep <= 0 else points:
        cand = _candidate(req, cat, space, p, with_curve=not brief)
        if cand.meets_targets:
            found.append(cand)
            if len(found) == keep:
                break
        elif outlasted is not None and _outlasts(cand, req):
            outlasted.append(cand)
    return found


def _outlasts(cand: Candidate, req: Requirements) -> bool:
    """Does the candidate meet the targets on its burst figures, its credits running out in the history?"""
    rep = cand.burst_replay
    return rep is not None and not rep.meets_targets and meets_targets(cand.prediction, req, burst=True)


def _plan(req: Requirements, cat: Catalog, candidates: list[Candidate], pareto: list[Candidate], notes: list[str],
          infeasible: Infeasible | None, outlasted: list[Candidate] | None = None) -> Plan:
    return Plan(blockfit_version=__version__, created=datetime.now(UTC), cloud=cat.cloud,
                catalog_version=cat.version.isoformat(), requirements=req, feasible=infeasible is None,
                candidates=candidates, pareto=pareto, infeasible=infeasible, notes=notes, outlasted=outlasted or [])


def host_notes(cat: Catalog, first: Candidate) -> list[str]:
    """What the host must be set to for the candidate's figures, and what it gives on a host nobody tuned."""
    notes = []
    host = assumptions(first.prediction)
    if host:
        notes.append(f"Assumes the host as 'blockfit build' sets it: {host}.")
    kernel = kernel_depth_figures(cat, first)
    if kernel is not None:
        notes.append(f"At the kernel default queue depth {kernel.session_depth} (node.session.queue_depth, a host "
                     f"nobody tuned): {kernel.max_iops:,.0f} IOPS, {kernel.max_mbps:,.0f} MB/s.")
    return notes


def plan_notes(req: Requirements, cat: Catalog, space: SearchSpace, first: Candidate, brief: bool = False) -> list[str]:
    """What the recommendation assumes and what the money buys, in sentences."""
    notes = host_notes(cat, first)
    if first.cost.storage is not None:   # a type without a price ranks by fewest volumes already (space notes)
        notes.append(f"Order: recommended first. Layouts within {100 * (TIE_WINDOW - 1):g} % of the cheapest total "
                     f"count as equal and the fewest volumes, then the fewest {cloud_of(cat.cloud).compute_unit}s, "
                     "come first (a near tie may cost a little less); the rest by total.")
    ocpus = first.instance_detail.count
    if req.instance_count is None and ocpus is not None:
        unit = cloud_of(cat.cloud).compute_unit + "s"
        floor = "" if req.vcpus_floor is None else f" with at least {req.vcpus_floor:g} vCPUs (the history's host)"
        notes.append(f"Smallest {space.shape} that delivers the targets{floor}: {ocpus:g} {unit}.")
    basis = compute_basis_note(req, cat, first)
    if basis:
        notes.append(basis)
    if not brief:
        notes += single_volume_notes(req, cat, space, first)
    upgrade = upgrade_note(req, cat, space, first)
    if upgrade:
        notes.append(upgrade)
    bind_from = _volumes_bind_from(cat, space, first)
    if bind_from is not None:
        at, mbps = bind_from
        notes.append(f"From {at:g} OCPUs the MB/s ceiling of {first.layout} moves from the instance network "
                     f"to the volumes ({mbps:,.0f} MB/s).")
    return notes


def tie_notes(candidates: list[Candidate]) -> list[str]:
    """What each near-tie the rule passed over buys against the recommendation (the rule once picked 6x768G at
    150,000 IOPS over 8x576G at 175,781 for the same $427.98 without saying so): '+17 % IOPS, same price, 2 more
    volumes'."""
    first = candidates[0]
    if first.cost.storage is None:
        return []
    cheapest = min(c.ranked_cost for c in candidates if c.price_known)
    return [f"Near tie passed over: {c.layout} on {c.instance}: {', '.join(_tie_parts(first, c))}."
            for c in candidates[1:]
            if c.price_known and c.cap_known and c.ranked_cost <= cheapest * TIE_WINDOW + 1e-9]


def _tie_parts(first: Candidate, c: Candidate) -> list[str]:
    """How C differs from the recommendation: IOPS and MB/s in percent, the price, volumes, OCPUs/vCPUs."""
    parts = []
    for what, mine, theirs in (("IOPS", first.max_iops, c.max_iops), ("MB/s", first.max_mbps, c.max_mbps)):
        if mine and round(100 * (theirs / mine - 1)):
            parts.append(f"{100 * (theirs / mine - 1):+.0f} % {what}")
    delta = c.ranked_cost - first.ranked_cost
    parts.append("same price" if abs(delta) < 0.005 else f"{'+' if delta > 0 else '-'}${abs(delta):,.2f} a month")
    extra = c.layout_detail.members - first.layout_detail.members
    if extra:
        parts.append(f"{abs(extra)} {'more' if extra > 0 else 'fewer'} volume{'s' if abs(extra) > 1 else ''}")
    ocpus = (c.instance_detail.count or 0) - (first.instance_detail.count or 0)
    if ocpus:
        parts.append(f"{abs(ocpus):g} {'more' if ocpus > 0 else 'fewer'} OCPUs/vCPUs")
    return parts


def tie_break(points: list[Point]) -> list[Point]:
    """Cheapest first, except that the points within TIE_WINDOW of the cheapest total come first by fewest volumes,
    then fewest OCPUs (vCPUs off OCI), then cost."""
    ranked = sorted(points, key=rank_key)
    if not ranked:
        return ranked
    window = tie_window(ranked[0])
    tied = sorted((p for p in ranked if p.cost <= window), key=lambda p: (p.members, p.ocpus or 0, rank_key(p)))
    return tied + [p for p in ranked if p.cost > window]


def _distinct(points: list[Point], same_option_only: bool = True, tolerance: float = 0.0) -> list[Point]:
    """Drop points that an earlier (cheaper or equal) kept point of no more members matches in IOPS and MB/s: the
    same offer with more, smaller members adds nothing. A point with fewer members stays even where a point of the
    same cost and more IOPS was kept: the tie rule prefers it (1x2T@gp3 beside 4x512G@gp3 at the same price; dropped,
    the plan paid $5 more for 1x2T@gp3:4000). With a tolerance, near-equal offers of any size collapse too
    (Pareto, where dominance sorts the rest)."""
    kept: list[Point] = []
    # per option and member count m, a staircase of the kept points of that option on at most m members (with the
    # tolerance: one staircase for every point), so that "does a kept point cover p" is one bisection
    counts: dict[object, set[int]] = {}
    for p in points:
        counts.setdefault(p.option if same_option_only else None, set()).add(p.members if same_option_only else 0)
    stairs: dict[tuple[object, int], _Staircase] = {}
    for p in sorted(points, key=rank_key):
        option, members = (p.option, p.members) if same_option_only else (None, 0)
        if not stairs.setdefault((option, members), _Staircase()).covers(p.iops * (1 - tolerance),
                                                                           p.mbps * (1 - tolerance)):
            kept.append(p)
            for m in counts[option]:
                if m >= members:
                    stairs.setdefault((option, m), _Staircase()).add(p.iops, p.mbps)
    return kept


class _Staircase:
    """The kept points not dominated by another kept point, by IOPS ascending (so MB/s strictly descending): whether
    some kept point reaches both an IOPS and an MB/s figure is then one bisection (a plan over a provisioned type's
    thousands of Pareto points compared each with every kept one: minutes)."""

    def __init__(self) -> None:
        self.iops: list[float] = []
        self.mbps: list[float] = []

    def covers(self, iops: float, mbps: float) -> bool:
        """Does a kept point have at least this IOPS and at least this MB/s?"""
        i = bisect.bisect_left(self.iops, iops)
        return i < len(self.iops) and self.mbps[i] >= mbps

    def add(self, iops: float, mbps: float) -> None:
        """Keep a point unless a kept point covers it, dropping those it dominates."""
        if self.covers(iops, mbps):
            return
        k = bisect.bisect_right(self.iops, iops)
        j = k
        while j > 0 and self.mbps[j - 1] <= mbps:
            j -= 1
        self.iops[j:k] = [iops]
        self.mbps[j:k] = [mbps]


def _candidate(req: Requirements, cat: Catalog, space: SearchSpace, p: Point, with_curve: bool = True) -> Candidate:
    """The point as the model predicts it, on the requested attachment and paths (the model's own defaults
    otherwise: attachment.default_paths), judged against the requirements."""
    stripe, reason = recommend_stripe(p.members, req.manager, req.small_io, req.large_io)
    ocpus = req.instance_count if req.instance_count is not None else p.ocpus
    layout = Layout(members=p.members, volume=p.option.volume(cat.cloud, p.size_gb), stripe_size=stripe or None,
                    manager=req.manager, attachment=req.attachment, paths=req.paths, redundancy=req.redundancy)
    inst = instance_for(cat, req, space.shape, ocpus)
    pred = predict(layout, inst, workload(req), cat, latency_bound_ms=req.max_latency_ms, memory_gb=req.memory_gb,
                   with_curve=with_curve)
    meets, replayed = judged(pred, req, f"the {p.option.type} volumes")
    return Candidate(layout=pred.layout, instance=inst.spec, stripe_reason=reason, meets_targets=meets,
                     prediction=pred, burst_replay=replayed, **host_settings(pred))


def judged(pred: Prediction, req: Requirements, volumes: str) -> tuple[bool, BurstReplay | None]:
    """Does the prediction meet the targets, and (a plan from history) its replay through the credit buckets."""
    replayed = None
    if req.history is not None:
        from blockfit.plan.replay import replay  # here: only a plan from history replays; build and model never do

        replayed = replay(pred, req.history, volumes, req.target_iops, req.target_mbps)
    meets = meets_targets(pred, req) or (replayed is not None and meets_targets(pred, req, burst=True))
    return meets and (replayed is None or replayed.meets_targets), replayed


def meets_targets(pred: Prediction, req: Requirements, burst: bool = False) -> bool:
    """Does the prediction meet every target? (The search's own check, redone on the model's figures.) With
    `burst`, on its burst figures: a plan from history whose replay (plan/replay.py) says the credits last."""
    close = 1 - 1e-6   # the prediction's figures are rounded to 0.1
    iops, mbps = (pred.burst.max_iops, pred.burst.max_mbps) if burst and pred.burst else (pred.max_iops, pred.max_mbps)
    if req.target_iops is not None and iops < req.target_iops * close:
        return False
    if req.target_mbps is not None and mbps < req.target_mbps * close:
        return False
    if req.max_latency_ms is not None and req.target_iops is not None and \
            (pred.max_iops_at_latency or 0.0) < req.target_iops * close:
        return False
    return pred.layout_detail.usable_gb >= req.capacity_gb * (1 + req.growth_pct / 100) - 1e-6


def _volumes_bind_from(cat: Catalog, space: SearchSpace, cand: Candidate) -> tuple[float, float] | None:
    """For a flexible shape: the OCPU count at which the layout's MB/s stops being instance-bound, and
    the MB/s there."""
    shape = find_shape(cat, space.shape)
    if not cloud_of(cat.cloud).sized_by_count(shape) or not cand.prediction.mbps_limited_by.startswith("instance"):
        return None
    assert shape.ocpus_min is not None and shape.ocpus_max is not None
    for ocpus in shape.ocpu_counts or range(int(shape.ocpus_min), int(shape.ocpus_max) + 1):
        pred = predict(cand.layout_detail, instance_at(cat, shape.name, ocpus),
                       cand.prediction.workload, cat, with_curve=False)
        if pred.mbps_limited_by.startswith(VOLUME_LIMITS):
            return float(ocpus), pred.max_mbps
    return None


# Offers (distinct within 2 %) the Pareto table predicts, per row it shows. A provisioned type (Hyperdisk, Premium SSD
# v2) on a machine whose per-VM caps are unknown offers thousands (every IOPS x throughput step x member count); each
# predicted with its latency curve and compared with every other row took minutes.
PARETO_OFFERS = 4


def _pareto(req: Requirements, cat: Catalog, space: SearchSpace, first: Candidate, limit: int = 12) -> list[Candidate]:
    """What each extra dollar, storage or compute, buys: the recommendation and the smallest-size layouts of every
    level and member count, kept where no other row is at least as good on every count (meets the targets, total
    cost, IOPS, MB/s) and better on one. Layouts of a type without a price are left out, the recommendation too
    when it is one (_pareto_notes says so): a front ordered by cost means nothing without the cost, and ranked as
    free they pushed every priced row off it and filled it with what the most volumes reach."""
    priced, _ = split_by_price(split_by_cap(space)[0])
    relaxed = req.model_copy(update={"target_iops": None, "target_mbps": None, "max_latency_ms": None})
    points = _distinct(pareto_points(relaxed, cat, priced), same_option_only=False, tolerance=0.02)
    if len(points) > PARETO_OFFERS * limit:   # thinned evenly by cost before each is predicted (see PARETO_OFFERS)
        points = [points[i] for i in sorted(_evenly(len(points), PARETO_OFFERS * limit))]
    others = [_candidate(req, cat, space, p) for p in points]
    head = [first] if first.cost.storage is not None and first.cap_known else []
    cheapest = min([c.ranked_cost for c in head] + [c.ranked_cost for c in others if c.meets_targets],
                   default=math.inf)
    rows = head + [c for c in others if not _tie_of(c, cheapest)]
    front = pareto_front(rows)
    if len(front) > limit:   # evenly spaced by cost, the recommendation always among them
        keep = _evenly(len(front), limit)
        front = [c for i, c in enumerate(front) if i in keep or c is first][:limit + 1]
    return front


def _pareto_notes(space: SearchSpace, first: Candidate, front: list[Candidate]) -> list[str]:
    """Why the Pareto table leaves out the layouts of types without a price or without a known per-VM cap."""
    out = []
    if space.unknown_price:
        types = ", ".join(sorted(space.unknown_price))
        shown = f"; {len(front)} priced layouts shown." if front else "; no priced layout to show."
        out.append(f"What each extra dollar buys: {types} left out (no price in the catalog, so nothing to order its "
                   "layouts by)" + shown)
    if space.unknown_cap:
        types = ", ".join(sorted(space.unknown_cap))
        out.append(f"What each extra dollar buys: {types} left out (instance cap unknown: not applied, so its figures "
                   "may be more than the VM delivers)" + (f"; {len(front)} layouts shown." if front else
                                                           "; no layout with known caps to show."))
    return out


def _evenly(count: int, n: int) -> set[int]:
    """N indices spread evenly over COUNT items sorted by cost, the first and the last among them."""
    step = (count - 1) / (n - 1)
    return {round(k * step) for k in range(n)}


def dominates(a: Candidate, b: Candidate) -> bool:
    """a is at least as good as b on every count (meets the targets, total cost, IOPS, MB/s) and better on one."""
    ge = (a.meets_targets >= b.meets_targets and _no_dearer(a, b) and a.max_iops >= b.max_iops
          and a.max_mbps >= b.max_mbps)
    return ge and (a.meets_targets > b.meets_targets or a.ranked_cost < b.ranked_cost or a.max_iops > b.max_iops
                   or a.max_mbps > b.max_mbps)


def _no_dearer(a: Candidate, b: Candidate) -> bool:
    """a costs no more than b. With a compute price unknown only storage is ranked, so a is no dearer only on the
    same shape with no more OCPUs (more OCPUs never cost less)."""
    if a.ranked_cost > b.ranked_cost:
        return False
    if a.cost.compute is not None and b.cost.compute is not None:
        return True
    ia, ib = a.instance_detail, b.instance_detail
    return ia.shape == ib.shape and (ia.count or 0) <= (ib.count or 0)


def pareto_front(rows: list[Candidate]) -> list[Candidate]:
    """The rows no other row dominates, cheapest first; of rows with the same layout, instance and figures the
    first is kept."""
    seen: set[tuple[str, str]] = set()
    unique = []
    for row in rows:
        if (row.layout, row.instance) not in seen:
            seen.add((row.layout, row.instance))
            unique.append(row)
    front = [r for r in unique if not any(dominates(o, r) for o in unique)]
    return sorted(front, key=lambda c: (c.ranked_cost, -c.max_iops, -c.max_mbps))


def _tie_of(c: Candidate, cheapest: float) -> bool:
    """A layout the tie rule passed over for the recommendation: it meets the targets within the tie window of the
    cheapest total. (Kept, 8x576G at Part 3's price with more IOPS would push the recommended 6x768G off the
    front, which must hold it; the candidates table lists the ties.)"""
    return c.meets_targets and c.ranked_cost <= cheapest * TIE_WINDOW + 1e-9


def _outlasted(req: Requirements, cat: Catalog, space: SearchSpace, outlasted: list[Candidate]) -> Infeasible | None:
    """Layouts whose burst figures meet the targets but whose credits the history outlasts (plan/replay.py): the
    plan is infeasible for that reason, said with the time and the rate it falls to; None when that is not why."""
    if not outlasted:
        return None
    cand = outlasted[0]
    summary = cand.burst_replay.summary if cand.burst_replay else ""
    alternatives = [c for c in _bigger_shapes(req, cat, space) if c.meets_targets]
    reason = (f"no layout on {space.shape} meets the targets through the recorded history: {cand.layout} would on "
              f"its burst figures, but {summary}")
    return Infeasible(reason=reason + _alternative_clause(alternatives), missed=[summary], best=cand,
                      alternatives=alternatives)


def _explain_infeasible(req: Requirements, cat: Catalog, space: SearchSpace, ev: Evaluator) -> Infeasible:
    """Which target cannot be met, the cheapest layout reaching the best performance on this instance, and the
    cheapest other priced shapes on which the targets are met (at total cost)."""
    relaxed = req.model_copy(update={"target_iops": None, "target_mbps": None, "max_latency_ms": None})
    rev = Evaluator(cat, relaxed, space)
    best = _best_performance(rev, space)
    alternatives = _bigger_shapes(req, cat, space)
    if best is None:
        reason = _unpriced_reason(req, cat, space) or _unattachable_reason(rev, space) or (
            f"no layout of at most {space.members[-1]} volumes holds {req.needed_gb:,.0f} GB "
            f"(capacity x growth) on {space.shape}")
        return Infeasible(reason=reason + _alternative_clause(alternatives), alternatives=alternatives)
    # the cheapest layout that reaches (nearly) that best performance, rather than the biggest one
    reach = relaxed.model_copy(update={"target_iops": best.iops * 0.999, "target_mbps": best.mbps * 0.999})
    cheapest = search(Evaluator(cat, reach, space), space, keep=1)
    cand = _candidate(req, cat, space, cheapest[0] if cheapest else best)
    missed = missed_targets(req, cand.prediction)
    reason = f"no layout on {space.shape} meets " + " and ".join(missed or ["the targets"])
    reason += _concurrency_clause(req, cat)
    return Infeasible(reason=reason + _alternative_clause(alternatives), missed=missed, best=cand,
                      alternatives=alternatives)


def _best_performance(rev: Evaluator, space: SearchSpace) -> Point | None:
    """The layout of the biggest size on the largest count with the most IOPS (then MB/s), the targets left out:
    the best this instance can do, or None where no layout holds the capacity at all."""
    best: Point | None = None
    for option in space.options:
        biggest = space.sizes[option.type][-1]
        for members in space.members:
            p = rev.evaluate(option, members, biggest, space.ocpus[-1])
            if p and (best is None or (p.iops, p.mbps) > (best.iops, best.mbps)):
                best = p
    return best


def missed_targets(req: Requirements, pred: Prediction) -> list[str]:
    """Each target the best layout misses, with what it reaches and the binding limit in words a reader follows
    (not their JSON names); the latency target only where the IOPS and MB/s ones are met."""
    missed = []
    if req.target_iops and pred.max_iops < req.target_iops:
        missed.append(f"{req.target_iops:,.0f} IOPS (best {pred.max_iops:,.0f}, limited by "
                      f"{pred.limit_description(pred.iops_limited_by) or pred.iops_limited_by})")
    if req.target_mbps and pred.max_mbps < req.target_mbps:
        missed.append(f"{req.target_mbps:,.0f} MB/s (best {pred.max_mbps:,.0f}, limited by "
                      f"{pred.limit_description(pred.mbps_limited_by) or pred.mbps_limited_by})")
    if not missed and req.max_latency_ms is not None:
        one = pred.latency_floor_ms()
        floor = f": one I/O alone takes {one:.3g} ms" if one is not None else ""
        missed.append(f"{req.target_iops or 0:,.0f} IOPS within {req.max_latency_ms:g} ms mean latency (best "
                      f"{pred.max_iops_at_latency or 0:,.0f}{floor})")
    return missed


def _concurrency_clause(req: Requirements, cat: Catalog) -> str:
    """Where the IOPS target is beyond what the workload's outstanding I/Os can reach on any type, say so: no
    instance meets it, only more I/Os in flight would. Empty otherwise."""
    ceiling = concurrency_ceiling(cat, req)
    if (req.target_iops or 0) > ceiling:
        return (f"; {req.outstanding:,} outstanding I/Os reach at most {ceiling:,.0f} IOPS on any {cat.cloud} "
                "volume type (Little's law over its fastest I/O): more I/Os in flight, not a bigger instance, "
                "would meet it")
    return ""


def _unpriced_reason(req: Requirements, cat: Catalog, space: SearchSpace) -> str | None:
    """When no option is left because every type the shape can attach lacks a price (GCP's Hyperdisk-only series):
    that reason, and how to plan them on performance (as --levels premium-v2 on Azure), instead of a capacity one."""
    if space.options:
        return None
    attachable = find_shape(cat, req.instance_shape).volume_types
    unpriced = [t for t in dict.fromkeys(o.type for o in selected_types(cat, req.levels, req.allow_hdd))
                if (not attachable or t in attachable) and t not in space.sizes]
    if not unpriced:
        return None
    return (f"none of the volume types {space.shape} can attach has a price in the {cat.cloud} catalog {cat.version} "
            f"({', '.join(unpriced)}): name one with --levels (e.g. --levels {unpriced[0]}) to plan it on "
            "performance alone, its cost unknown")


def _unattachable_reason(ev: Evaluator, space: SearchSpace) -> str | None:
    """When the shape, at its largest count, can attach none of the types left to plan (Hyperdisk Extreme on a C4
    under 96 vCPUs): the first type's reason as `model` gives it, not a capacity one."""
    reasons = []
    for option in space.options:
        try:
            ev.caps(space.ocpus[-1], option.type)
        except InputError as exc:
            reasons.append(str(exc))
            continue
        return None
    return reasons[0] if reasons else None


def _alternative_clause(alternatives: list[Candidate]) -> str:
    if not alternatives:
        return ""
    alt = alternatives[0]
    return f"; {alt.instance} would: {alt.layout} at {money(alt.cost)} a month"


def _bigger_shapes(req: Requirements, cat: Catalog, space: SearchSpace, limit: int = 3) -> list[Candidate]:
    """The cheapest other shapes (by total monthly cost, compute priced; the requested flexible shape with any OCPU
    count among them) on which the targets can be met. Shapes are tried cheapest compute first, and the walk stops
    once a shape's compute alone costs more than the limit-th best total found."""
    vtype = space.options[0].type if space.options else next(iter(cat.volume_types))
    if (req.target_iops or 0) > concurrency_ceiling(cat, req):
        return []   # no shape helps: the outstanding I/Os cannot carry the target on any type's fastest I/O

    def could(name: str) -> bool:   # the shape's caps, known, at its largest size reach the targets
        if any(f in find_shape(cat, name).unknown for f in ("iops", "mbps", "tiers")):
            return False            # unknown caps are not "no caps": never advise a shape we cannot bound
        iops, mbps = _top_caps(cat, name, vtype)
        return iops >= (req.target_iops or 0) and mbps >= (req.target_mbps or 0)
    bigger = [name for name in alternative_shapes(cat, space.shape) if monthly_known(cat, name) and could(name)]
    if req.instance_count is not None and cloud_of(cat.cloud).sized_by_count(find_shape(cat, space.shape)) and \
            cat.compute_prices.get(space.shape) is not None:
        bigger.append(space.shape)   # the same flexible shape with more OCPUs
    found: list[Candidate] = []
    for name in sorted(bigger, key=lambda n: _cheapest_compute(cat, n, req.memory_gb)):
        if len(found) >= limit and _cheapest_compute(cat, name, req.memory_gb) > found[limit - 1].ranked_cost:
            break
        alt = req.model_copy(update={"instance_shape": name, **OPEN_COUNT, "max_volumes": None, **NO_RANGE})
        alt_space = split_by_cap(default_space(cat, alt))[0]   # never advised on a cap it does not know
        points = tie_break(search(Evaluator(cat, alt, alt_space), alt_space, keep=4))
        if points:
            cand = _candidate(alt, cat, alt_space, points[0])
            if cand.cost.total is not None:
                found = sorted([*found, cand], key=lambda c: c.ranked_cost)[:limit]
    return found


def monthly_known(cat: Catalog, shape_name: str) -> bool:
    """Does the catalog price this shape's compute (a GCP machine type by its series)?"""
    return _cheapest_compute(cat, shape_name, None) < math.inf


def _smallest_count(cat: Catalog, shape_name: str) -> float | None:
    shape = find_shape(cat, shape_name)
    if machine_type(cat, shape_name) is not None or shape.kind == "fixed":   # n2-standard-16: the name fixes it
        return None
    if shape.kind == "vcpu_tiers":
        return min((t["vcpus_min"] for t in shape.tiers), default=None)
    return shape.ocpu_counts[0] if shape.ocpu_counts else shape.ocpus_min


def _cheapest_compute(cat: Catalog, shape_name: str, memory_gb: float | None) -> float:
    """The shape's compute price at its smallest size (a lower bound of any plan on it); inf when unpriced."""
    try:
        price = monthly(cat, shape_name, _smallest_count(cat, shape_name), memory_gb)
    except InputError:
        return math.inf
    return math.inf if price is None else price


def _top_caps(cat: Catalog, shape_name: str, vtype: str) -> tuple[float, float]:
    """A shape's instance (IOPS, MB/s) caps at its largest size; an unknown cap counts as reaching nothing (unknown is
    not unlimited: a shape is never advised on a cap it does not know)."""
    shape = find_shape(cat, shape_name)
    count = {"flex": shape.ocpus_max, "fixed": None}.get(shape.kind)
    if machine_type(cat, shape_name) is not None:   # n2-standard-16: the name fixes the count
        count = None
    elif shape.kind == "vcpu_tiers":
        count = max((t["vcpus_min"] for t in shape.tiers), default=None)
    try:
        caps = instance_caps(cat, instance_at(cat, shape_name, count), vtype)
    except InputError:   # a type this shape cannot attach
        return (0.0, 0.0)
    return (caps.iops if caps.iops is not None else 0.0, caps.mbps if caps.mbps is not None else 0.0)
