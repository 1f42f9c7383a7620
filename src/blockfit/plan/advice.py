"""What the money buys, in the plan's notes and Pareto table: storage + compute per month, one big volume versus
the chosen stripe, what more OCPUs would buy, and the front of total cost against IOPS and MB/s."""

from __future__ import annotations

import bisect
import dataclasses
import math

from blockfit.catalog import Catalog
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.model.compute import HOURS_PER_MONTH, monthly
from blockfit.model.instance import find_shape, instance_at
from blockfit.model.kinds.clouds import cloud_of
from blockfit.plan.evaluate import Evaluator, Point
from blockfit.plan.search import _first_true, search
from blockfit.plan.space import SearchSpace
from blockfit.schema import Candidate, Cost, Layout, Requirements, Workload
from blockfit.schema.cost import COPIES

VOLUME_LIMITS = ("volume_",)


def money(cost: Cost) -> str:
    """'$195.84 storage + $232.14 compute = $427.98' (a part unknown: said so)."""
    s = "unknown" if cost.storage is None else f"${cost.storage:,.2f}"
    if cost.compute is None:
        return f"{s} storage + compute unknown"
    total = "unknown" if cost.total is None else f"${cost.total:,.2f}"
    return f"{s} storage + ${cost.compute:,.2f} compute = {total}"


def workload(req: Requirements) -> Workload:
    """The workload plan predicts for, at the model's default host settings (model/host.py: what build sets), so
    that `model` of a candidate at its defaults returns the candidate's figures."""
    return Workload(small_io=req.small_io, large_io=req.large_io, read_pct=req.read_pct,
                    host_queue_depth=req.queue_depth, outstanding=req.outstanding)


def single_volume_notes(req: Requirements, cat: Catalog, space: SearchSpace, first: Candidate) -> list[str]:
    """One volume of the same level holding everything, on the same shape (the seed's 'same price, N x IOPS'),
    and the cheapest single volume that meets the targets on this shape, both in storage + compute dollars."""
    if first.layout_detail.members == 1 or COPIES[req.redundancy] > 1:   # a mirror is never one volume
        return []
    versus = _versus_one_volume(req, cat, first)
    return ([versus] if versus else []) + [_cheapest_single(req, cat, space, first)]


def _versus_one_volume(req: Requirements, cat: Catalog, first: Candidate) -> str | None:
    """The recommendation against one volume of its level holding all of it, on the same instance."""
    vol = first.layout_detail.volume.model_copy(update={"size_gb": first.layout_detail.total_gb})
    inst = first.instance_detail
    try:
        one = predict(Layout(members=1, volume=vol, redundancy=req.redundancy), inst, workload(req), cat,
                      with_curve=False, memory_gb=req.memory_gb)
    except InputError:
        return None
    if not one.cost.storage:
        return None
    mine = first.cost.total if first.cost.total is not None else first.cost.storage
    theirs = one.cost.total if one.cost.total is not None else one.cost.storage
    assert mine is not None and theirs is not None
    return (f"Versus one {one.layout} volume on {inst.spec} ({one.max_iops:,.0f} IOPS / {one.max_mbps:,.0f} "
            f"MB/s; {money(one.cost)}): {first.max_iops / one.max_iops:.1f}x the "
            f"IOPS and {first.max_mbps / one.max_mbps:.1f}x the MB/s at {100 * (mine / theirs - 1):+.1f}% "
            f"total cost.")


def _cheapest_single(req: Requirements, cat: Catalog, space: SearchSpace, first: Candidate) -> str:
    """The cheapest single volume that meets the targets on this shape, or that none does."""
    # the same group as the recommendation: a priced one is compared with priced single volumes only (an unpriced
    # one "costing" its compute alone read "$-1,474.56 more than 12x1T@premium-v1")
    same = [o for o in space.options if (o.type in space.unknown_price) == (first.cost.storage is None)
            and (o.type in space.unknown_cap) == (not first.cap_known)]   # nor one whose cap is unknown
    alone = dataclasses.replace(space, members=[1], options=same)
    found = search(Evaluator(cat, req, space), alone, keep=1)
    if not found:
        which = "priced " if first.cost.storage is not None and space.unknown_price else ""
        which += "known-cap " if first.cap_known and space.unknown_cap else ""
        return (f"No single {which}volume meets the targets on {req.instance_shape}"
                f"{'' if req.instance_count is None else f':{req.instance_count:g}'}: the stripe is the only way.")
    p = found[0]
    single = predict(Layout(members=1, volume=p.option.volume(cat.cloud, p.size_gb), redundancy=req.redundancy),
                     instance_at(cat, space.shape, p.ocpus), workload(req), cat,
                     with_curve=False, memory_gb=req.memory_gb)
    more = _ranked(single.cost) - _ranked(first.cost)
    return (f"The cheapest single volume that meets the targets, {single.layout} on {single.instance}, costs "
            f"{money(single.cost)} a month: ${more:,.2f} more than {first.layout}.")


def _ranked(cost: Cost) -> float:
    """What plan ranks by: storage + compute (0 when unknown)."""
    return (cost.storage or 0.0) + (cost.compute or 0.0)


def upgrade_note(req: Requirements, cat: Catalog, space: SearchSpace, first: Candidate) -> str | None:
    """With the OCPU count fixed and the instance network binding: how many more OCPUs let the volumes take over,
    what that buys and what it costs a month (730 h)."""
    shape = find_shape(cat, space.shape)
    if not cloud_of(cat.cloud).sized_by_count(shape) or req.instance_count is None or \
            not first.limited_by(req).startswith("instance"):
        return None
    assert shape.ocpus_max is not None
    here = req.instance_count
    wl = first.prediction.workload

    def at(ocpus: float) -> tuple[float, float, str]:
        p = predict(first.layout_detail, instance_at(cat, shape.name, ocpus), wl, cat,
                    with_curve=False)
        return p.max_iops, p.max_mbps, p.mbps_limited_by

    counts = [c for c in range(int(here) + 1, int(shape.ocpus_max) + 1)
              if not shape.ocpu_counts or c in shape.ocpu_counts]   # DenseIO Flex: only the counts sold
    if not counts:
        return None
    k = _first_true(0, len(counts) - 1, lambda i: at(counts[i])[2].startswith(VOLUME_LIMITS))
    if k is None:
        return None
    more = float(counts[k])
    iops, mbps, _ = at(more)
    before, after = monthly(cat, shape.name, here, req.memory_gb), monthly(cat, shape.name, more, req.memory_gb)
    price = "at an unknown compute price" if before is None or after is None else \
        f"for ${after - before:,.2f}/month more compute ({HOURS_PER_MONTH:g} h)"
    return (f"{more - here:g} more OCPUs ({shape.name}:{more:g}, where the volumes take over) would buy "
            f"{iops:,.0f} IOPS / {mbps:,.0f} MB/s instead of {first.max_iops:,.0f} / {first.max_mbps:,.0f} "
            f"(+{100 * (iops / first.max_iops - 1):.0f}% IOPS, +{100 * (mbps / first.max_mbps - 1):.0f}% MB/s) "
            f"{price}.")


def pareto_points(req: Requirements, cat: Catalog, space: SearchSpace) -> list[Point]:
    """For each option and member count at the smallest size that holds the capacity: the layout on the fewest
    OCPUs that give it its full performance (more OCPUs only add cost). Total cost decides, so a 64-OCPU row
    survives the front only when it buys something cheaper rows do not."""
    relaxed = req.model_copy(update={"target_iops": None, "target_mbps": None, "max_latency_ms": None})
    rev = Evaluator(cat, relaxed, space)
    pts: list[Point] = []
    cache: dict[str, list[tuple[float, float]]] = {}

    def links(vtype: str) -> list[tuple[float, float]]:
        """The instance's own ceilings at each OCPU count: a layout gets its full performance at the first count
        whose link carries what its volumes deliver at the top count."""
        if vtype not in cache:
            cache[vtype] = [rev.instance_ceilings(o, vtype) for o in space.ocpus]
        return cache[vtype]
    for option in space.options:
        sizes = space.sizes[option.type]
        for members in space.members:
            i = bisect.bisect_left(sizes, math.ceil(relaxed.needed_gb / members - 1e-9))
            if i >= len(sizes):
                continue
            top = rev.evaluate(option, members, sizes[i], space.ocpus[-1])
            if top is None:
                continue
            reach = [k for k, (iops, mbps) in enumerate(links(option.type))
                     if iops >= top.iops * 0.999 and mbps >= top.mbps * 0.999]
            j = reach[0] if reach else len(space.ocpus) - 1
            # the top count is often the first that reaches (a fixed size has only it): evaluated once
            p = top if j == len(space.ocpus) - 1 else rev.evaluate(option, members, sizes[i], space.ocpus[j])
            if p is not None:
                pts.append(p)
    return pts
