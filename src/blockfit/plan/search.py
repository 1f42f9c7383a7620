"""Find the cheapest points of the search space that meet the requirements, exactly, by total monthly cost.

Feasibility only improves with a bigger member size or more OCPUs; storage cost only grows with size and
compute cost only with OCPUs. So for each (level option, member count) the cheapest point is on the lower
staircase of the feasible set (per OCPU count, the smallest feasible size), walked with bisections
(`cheapest_for`). Branch and bound skips (option, count) pairs whose cheapest conceivable storage plus the
cheapest compute already costs more than the k-th best found.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

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


# Totals within this factor of the cheapest count as a tie (planner.tie_break): a DBA would rather run 9 volumes than
# 23 to save $0.17 a month, so the search keeps every pair that close to the cheapest.
TIE_WINDOW = 1.01

RankKey = tuple[float, int, float, float, float, float, int]


def rank_key(p: Point) -> RankKey:
    """Cheapest first (known dollars: storage + compute); at equal cost more IOPS, then more MB/s, then fewer
    members. A point whose storage has no price costs its compute alone and, at that cost, ranks by the fewest
    members, then the fewest OCPUs, then the least bought (Point.units): with no storage price there is nothing
    to save by striping, so fewer volumes come first and the smallest provisioning that meets the targets wins."""
    if p.storage is None:
        return (round(p.cost, 6), p.members, p.ocpus or 0.0, round(p.units, 6), -p.iops, -p.mbps, p.members)
    return (round(p.cost, 6), 0, 0.0, 0.0, -p.iops, -p.mbps, p.members)


def tie_window(cheapest: Point) -> float:
    """The total up to which points tie with the cheapest (TIE_WINDOW of it, planner.tie_break); none when the
    cheapest has no storage price: its cost is compute alone, within 1 % of which every layout of the unpriced type
    would tie, and rank_key already puts the fewest volumes first."""
    return cheapest.cost * TIE_WINDOW + 1e-9 if cheapest.storage is not None else -math.inf


def cheapest_for(ev: Evaluator, space: SearchSpace, option: LevelOption, members: int,
                 bound: float = math.inf) -> Point | None:
    """The cheapest feasible point (storage + compute) for one option and member count (None if none, or
    dearer than bound).

    Storage grows with size, compute with OCPUs, and feasibility improves with both, so the feasible set is an
    up-set of the (size, OCPU) grid and its cheapest point lies on its lower staircase: for each OCPU count the
    smallest feasible size. The walk starts at the smallest size any count allows, on the fewest OCPUs that allow
    it, and steps down the OCPU counts one stair at a time (a bigger size on fewer OCPUs, each found by
    bisection), stopping when no fewer OCPUs work or the next stair's storage plus the cheapest compute cannot
    win. When the limits are separable (the usual case) that is one stair and one extra evaluation.
    """
    sizes = space.sizes[option.type]
    lo = bisect.bisect_left(sizes, math.ceil(ev.req.needed_gb / members - 1e-9))
    if lo >= len(sizes):
        return None
    j_floor = ev.instance_floor(option)
    if j_floor is None:
        return None
    stairs = _Stairs(ev, space, option, members, j_floor, ev.compute_or_zero(space.ocpus[j_floor]))
    if stairs.storage_floor_above(lo, bound):
        return None
    best = stairs.cheapest(lo, bound)
    return best if best is not None and best.cost <= bound else None


@dataclass
class _Stairs:
    """cheapest_for's walk for one option and member count: the (size, OCPU) grid's lower staircase."""

    ev: Evaluator
    space: SearchSpace
    option: LevelOption
    members: int
    j_floor: int                # the fewest OCPUs (index) the instance caps allow
    cheapest_compute: float     # the compute there

    @property
    def sizes(self) -> list[int]:
        return self.space.sizes[self.option.type]

    def feasible(self, i: int, j: int) -> bool:
        return self.ev.evaluate(self.option, self.members, self.sizes[i], self.space.ocpus[j]) is not None

    def storage_floor_above(self, lo: int, bound: float) -> bool:
        """Is the storage at the smallest size that holds the capacity, plus the cheapest compute, above BOUND?"""
        ev, option, members, sizes = self.ev, self.option, self.members, self.sizes
        floor_cost = ev.cost(option, members, sizes[lo])
        if floor_cost is None:   # provisioned figures too high for the smallest size (IOPS per GB): the smallest
            # valid size bounds instead (validity only improves with size); without it every such pair was searched
            first = _first_priced(ev, sizes, option)
            floor_cost = None if first is None else ev.cost(option, members, sizes[max(lo, first)])
        return floor_cost is not None and floor_cost + self.cheapest_compute > bound

    def cheapest(self, lo: int, bound: float) -> Point | None:
        """Down the staircase from the smallest size any OCPU count allows: the best-ranked point on it."""
        last, top = len(self.sizes) - 1, len(self.space.ocpus) - 1
        i = _first_true(lo, last, lambda k: self.feasible(k, top))   # smallest size any OCPU count allows
        if i is None:
            return None
        best: Point | None = None
        j_hi = top
        while True:
            j = _first_true(self.j_floor, j_hi, lambda k, size=i: self.feasible(size, k))   # fewest OCPUs for it
            assert j is not None
            point = self.ev.evaluate(self.option, self.members, self.sizes[i], self.space.ocpus[j])
            assert point is not None
            if best is None or rank_key(point) < rank_key(best):
                best = point
            if self._last_stair(i, j, best, bound):
                return best
            j_hi = j - 1
            i = _first_true(i + 1, last, lambda k, count=j_hi: self.feasible(k, count))   # the stair below
            assert i is not None

    def _last_stair(self, i: int, j: int, best: Point, bound: float) -> bool:
        """No fewer OCPUs work, or the next stair's storage plus the cheapest compute cannot win."""
        last = len(self.sizes) - 1
        if j == self.j_floor or i == last or not self.feasible(last, j - 1):
            return True
        nxt = self.ev.cost(self.option, self.members, self.sizes[i + 1])
        return nxt is None or nxt + self.cheapest_compute > min(bound, best.cost) + 1e-9


def _first_priced(ev: Evaluator, sizes: list[int], option: LevelOption) -> int | None:
    """Index of the smallest size the option is valid and priced at (kept with the catalog: it does not depend on the
    shape, the member count or the targets)."""
    return ev.cat.derived(("first-priced-size", option, len(sizes), sizes[0]), lambda: _first_true(
        0, len(sizes) - 1, lambda i: ev.cost(option, 1, sizes[i]) is not None))



def search(ev: Evaluator, space: SearchSpace, keep: int = 10, bound: float = math.inf,
           screen: bool = True) -> list[Point]:
    """The `keep` best-ranked (option, member count) pairs at their cheapest feasible size, and every pair within
    the tie window of the cheapest (tie_window), ranked by rank_key; none dearer than `bound` (total cost;
    plan/shapes.py passes the best total found on other shapes).

    `screen`: pass over a pair whose storage floor plus its cheapest compute is above the bound without entering
    cheapest_for, whose first test that is (the floors are kept with the catalog, see pair_floors). A provisioned
    type makes thousands of pairs (Azure Premium SSD v2: 325 options x 64 counts) and nearly all of them end at
    that test; reaching it through cheapest_for cost 1.2 s a search. False walks every pair through cheapest_for
    (tests and bench/plan_search_screen.py compare the two: the same points, in the same order)."""
    best: list[Point] = []
    outer = bound
    kth: RankKey | None = None
    window = -math.inf
    changed = True
    floors = _FloorTable(ev, space) if screen else None
    for option, counts in _pairs(ev, space):
        for members in counts:
            if changed:   # the bound only moves when a point is found
                changed = False
                kth, window, bound = _bounds(best, keep, outer)
            verdict = _screened(ev, space, floors, (option, members), kth, window, bound)
            if verdict == _ABOVE_FROM_HERE:
                break
            if verdict == _ABOVE:
                continue
            point = cheapest_for(ev, space, option, members, bound)
            if point is not None:
                changed = True
                best = _inserted(best, point, keep)
    return best


def _bounds(best: list[Point], keep: int, outer: float) -> tuple[RankKey | None, float, float]:
    """(the keep-th rank, the tie window, the bound) once `keep` points are found; before, the caller's bound."""
    if len(best) < keep:
        return None, -math.inf, outer
    window = tie_window(best[0])
    return rank_key(best[keep - 1]), window, max(best[keep - 1].cost, window) + 1e-9


def _screened(ev: Evaluator, space: SearchSpace, floors: _FloorTable | None, pair: tuple[LevelOption, int],
              kth: RankKey | None, window: float, bound: float) -> int:
    """Search the pair (_GO), pass it (_ABOVE) or pass the option's larger counts too (_ABOVE_FROM_HERE)."""
    option, members = pair
    if kth is not None and option.type in space.unknown_price and _behind(ev, space, option, members, kth, window):
        return _ABOVE
    return _GO if floors is None else floors.above(option, members, bound)


def _inserted(best: list[Point], point: Point, keep: int) -> list[Point]:
    """BEST with POINT in rank order, past `keep` only the points within the tie window of the cheapest."""
    # ranked by insertion (after equal keys, as a stable sort would): thousands of pairs of a provisioned
    # type can be found, and re-sorting after each took minutes
    i = bisect.bisect_right(best, rank_key(point), key=rank_key)
    best.insert(i, point)
    window = tie_window(best[0])
    if i == 0:   # a new cheapest: the window narrows, every point past `keep` is checked again
        return best[:keep] + [p for p in best[keep:] if p.cost <= window]
    if max(i, keep) < len(best) and best[max(i, keep)].cost > window:
        del best[max(i, keep)]   # the one point past `keep` not yet checked: the new one or the one it pushed
    return best


_NO_SIZE = -1.0   # a pair floor: no size holds the capacity at this member count (cheapest_for finds nothing)
_GO, _ABOVE, _ABOVE_FROM_HERE = 0, 1, 2   # _FloorTable.above: search the pair, pass it, pass the option's rest


class _FloorTable:
    """cheapest_for's first tests, answered from tables: per option its cheapest compute (None: the instance caps
    alone cannot meet the targets) and the price of one member at its smallest priced size, and per member count
    the storage floor (pair_floor). Storage cost grows with size (cheapest_for's staircase assumes it too), so
    members x the smallest member's price is at most the floor: a pair above the bound by it is above by the floor,
    and the floor (a member cost at a size of its own, new for every capacity) is computed only when it decides.
    That bound grows with the member count and the search's bound never grows, so once it is above, every larger
    count of the option is too: the search leaves the option there (the counts come in ascending order)."""

    def __init__(self, ev: Evaluator, space: SearchSpace) -> None:
        self.ev, self.space = ev, space
        self._option: LevelOption | None = None
        self._compute: float | None = None
        self._least: float | None = None
        self._floors: dict[int, float | None] = {}

    def above(self, option: LevelOption, members: int, bound: float) -> int:
        """_ABOVE when cheapest_for(option, members, bound) would return None at its first tests (no size, no OCPU
        count, or the floor storage plus the cheapest compute above the bound), _ABOVE_FROM_HERE when every larger
        count would too, else _GO."""
        if option is not self._option:   # the pairs come option by option: one lookup per option
            self._option = option
            j_floor = self.ev.instance_floor(option)
            self._compute = None if j_floor is None else self.ev.compute_or_zero(self.space.ocpus[j_floor])
            self._least, self._floors = pair_floors(self.ev, self.space, option)
        if self._compute is None:
            return _ABOVE_FROM_HERE
        if self._least is not None and members * self._least + self._compute > bound:
            return _ABOVE_FROM_HERE
        floor = self._floors.get(members)
        if floor is None and members not in self._floors:
            floor = self._floors[members] = _pair_floor(self.ev, self.space.sizes[option.type], option, members)
        if floor is None:
            return _GO
        return _ABOVE if floor == _NO_SIZE or floor + self._compute > bound else _GO


def pair_floors(ev: Evaluator, space: SearchSpace, option: LevelOption) -> tuple[float | None, dict[int, float | None]]:
    """OPTION's smallest member price (None: no size priced) and its pairs' storage floors by member count, filled
    as the search asks (_pair_floor). They depend on the catalog, the capacity, the option and its sizes only, so
    they are kept with the catalog: every shape of a search over shapes shares them."""
    sizes = space.sizes[option.type]
    table: dict[tuple, tuple[float | None, dict[int, float | None]]] = ev.cat.derived(
        ("pair-floors", frozenset(space.unknown_price)), dict)
    key = (option, ev.req.needed_gb, len(sizes), sizes[0], sizes[-1])
    found = table.get(key)
    if found is None:
        first = _first_priced(ev, sizes, option)
        least = None if first is None else ev.cost(option, 1, sizes[first])
        found = table[key] = (least if least is not None and least >= 0 else None, {})
    return found


def _pair_floor(ev: Evaluator, sizes: list[int], option: LevelOption, members: int) -> float | None:
    """cheapest_for's floor_cost, computed as it computes it: the members at the smallest size that holds the
    capacity (or the smallest priced size above it); None where no size is priced (nothing bounds the pair),
    _NO_SIZE where no size holds it."""
    lo = bisect.bisect_left(sizes, math.ceil(ev.req.needed_gb / members - 1e-9))
    if lo >= len(sizes):
        return _NO_SIZE
    floor_cost = ev.cost(option, members, sizes[lo])
    if floor_cost is None:
        first = _first_priced(ev, sizes, option)
        floor_cost = None if first is None else ev.cost(option, members, sizes[max(lo, first)])
    return floor_cost


def _behind(ev: Evaluator, space: SearchSpace, option: LevelOption, members: int, kth: RankKey,
            window: float) -> bool:
    """Can no point of this pair of a type without a price enter the result? Its cost is at least the compute of
    the fewest OCPUs whose caps could meet the targets, and at that cost it ranks by its member count: behind the
    k-th best already found when (that cost, members) comes after the k-th's, and outside the tie window."""
    j = ev.instance_floor(option)
    if j is None:
        return True
    least = ev.compute_or_zero(space.ocpus[j])
    return least > window and (round(least, 6), members) > kth[:2]


def _pairs(ev: Evaluator, space: SearchSpace) -> list[tuple[LevelOption, list[int]]]:
    """The (option, member count) pairs in the order that tightens the bound soonest, as runs of one option's
    counts in ascending order: the types without a price by member count (the fewest volumes rank first among them,
    so once `keep` are found every pair with more volumes is passed over without a search), then the priced options
    cheapest first, each over its counts."""
    unpriced = [o for o in space.options if o.type in space.unknown_price]
    priced = [o for o in _cheap_first(ev, space) if o.type not in space.unknown_price]
    return [(o, [m]) for m in space.members for o in unpriced] + [(o, space.members) for o in priced]


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
