"""Find the cheapest points of the search space that meet the requirements, exactly.

Feasibility only improves with a bigger member size or more OCPUs, and storage cost only grows with
size (OCPUs are not storage cost), so for each (level option, member count) the cheapest feasible
point is at the smallest feasible size, found by bisection with the OCPU count at its most permissive;
the smallest OCPU count for that size is found the same way. Branch and bound skips (option, count)
pairs whose cheapest conceivable size already costs more than the k-th best found.
"""

from __future__ import annotations

import bisect
import math

from blockfit.plan.evaluate import Evaluator, Point
from blockfit.plan.space import LevelOption, SearchSpace


def _first_true(lo: int, hi: int, pred: object) -> int | None:
    """Smallest i in [lo, hi] with pred(i) true, for a monotone pred; None if pred(hi) is false."""
    assert callable(pred)
    if lo > hi or not pred(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def rank_key(p: Point) -> tuple[float, float, float, int]:
    """Cheapest first; at equal cost more IOPS, then more MB/s, then fewer members."""
    return (round(p.cost, 6), -p.iops, -p.mbps, p.members)


def cheapest_for(ev: Evaluator, space: SearchSpace, option: LevelOption, members: int,
                 bound: float = math.inf) -> Point | None:
    """The cheapest feasible point for one option and member count (None if none, or dearer than bound)."""
    sizes = space.sizes[option.type]
    lo = bisect.bisect_left(sizes, math.ceil(ev.req.needed_gb / members - 1e-9))
    if lo >= len(sizes):
        return None
    floor_cost = ev.cost(option, members, sizes[lo])
    if floor_cost is not None and floor_cost > bound:
        return None
    top_ocpu = space.ocpus[-1]
    i = _first_true(lo, len(sizes) - 1, lambda k: ev.evaluate(option, members, sizes[k], top_ocpu) is not None)
    if i is None:
        return None
    size = sizes[i]
    j = _first_true(0, len(space.ocpus) - 1,
                    lambda k: ev.evaluate(option, members, size, space.ocpus[k]) is not None)
    assert j is not None
    return ev.evaluate(option, members, size, space.ocpus[j])


def search(ev: Evaluator, space: SearchSpace, keep: int = 10) -> list[Point]:
    """The `keep` cheapest (option, member count) pairs at their cheapest feasible size, ranked."""
    best: list[Point] = []
    for option in _cheap_first(ev, space):
        for members in space.members:
            bound = best[keep - 1].cost + 1e-9 if len(best) >= keep else math.inf
            point = cheapest_for(ev, space, option, members, bound)
            if point is not None:
                best.append(point)
                best.sort(key=rank_key)
                del best[keep:]
    return best


def _cheap_first(ev: Evaluator, space: SearchSpace) -> list[LevelOption]:
    """Options ordered by the price of one member holding the capacity, so the bound tightens early."""
    def floor(option: LevelOption) -> float:
        sizes = space.sizes[option.type]
        i = min(bisect.bisect_left(sizes, math.ceil(ev.req.needed_gb - 1e-9)), len(sizes) - 1)
        cost = ev.cost(option, 1, sizes[i])
        return math.inf if cost is None else cost
    return sorted(space.options, key=floor)


def brute_force(ev: Evaluator, space: SearchSpace) -> list[Point]:
    """Every feasible point of the space (testing and benchmarking only: it is exhaustive)."""
    out = []
    for option in space.options:
        for members in space.members:
            for size in space.sizes[option.type]:
                for ocpus in space.ocpus:
                    p = ev.evaluate(option, members, size, ocpus)
                    if p is not None:
                        out.append(p)
    return out
