"""The fleet's answer: counts by status, the month's cost now against recommended, the hosts to look at first."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from blockfit.schema import Cost
from blockfit.schema.fleet import FleetHost, FleetProblem, FleetSummary, HostAmount

TOP = 5                   # hosts named in the summary's largest savings / shortfalls


def summarize(hosts: list[FleetHost], problems: list[FleetProblem]) -> FleetSummary:
    """Counts by status and the month's cost now against recommended, summed over hosts that have both."""
    priced, now, rec = _costs(hosts)
    by = {s: sum(1 for h in hosts if h.status == s) for s in ("under", "within", "over", "unknown")}
    return FleetSummary(
        hosts=len(hosts) + len({p.host for p in problems if p.host}), planned=len(hosts), problems=len(problems),
        on_burst=sum(1 for h in hosts if _lives_on_burst(h)), on_burst_now=sum(1 for h in hosts if _now_on_burst(h)),
        priced=priced, cost_now=now, cost_recommended=rec, savings=_savings(now, rec),
        largest_savings=_largest(hosts, lambda h: h.savings),
        largest_shortfalls=_largest(hosts, lambda h: h.shortfall_pct), **by)


def _costs(hosts: list[FleetHost]) -> tuple[int, Cost, Cost]:
    """How many hosts have both a cost now and a recommended one, and the two summed over them."""
    pairs = [(h.now.cost, h.recommended_cost) for h in hosts if h.now is not None and h.recommended_cost is not None]
    return len(pairs), _sum([now for now, _ in pairs]), _sum([rec for _, rec in pairs])


def _savings(now: Cost, rec: Cost) -> float | None:
    return None if now.total is None or rec.total is None else round(now.total - rec.total, 2)


def _lives_on_burst(h: FleetHost) -> bool:
    return h.burst is not None and h.burst.lives_on_burst


def _now_on_burst(h: FleetHost) -> bool:
    return h.now is not None and h.now.burst is not None and h.now.burst.lives_on_burst


def _largest(hosts: list[FleetHost], amount: Callable[[FleetHost], float | None]) -> list[HostAmount]:
    """The TOP hosts with the largest positive AMOUNT, largest first (ties in the hosts' order)."""
    found = [(value, h.host) for h in hosts if (value := amount(h)) is not None and value > 0]
    ranked = sorted(found, key=lambda pair: -pair[0])
    return [HostAmount(host=host, value=value) for value, host in ranked[:TOP]]


def _sum(costs: Iterable[Cost]) -> Cost:
    items = list(costs)

    def total(values: list[float | None]) -> float | None:
        return None if any(v is None for v in values) else round(sum(v or 0.0 for v in values), 2)
    regions = {c.region for c in items}
    return Cost(storage=total([c.storage for c in items]), compute=total([c.compute for c in items]),
                total=total([c.total for c in items]), region=regions.pop() if len(regions) == 1 else None)


def sort_key(h: FleetHost) -> tuple[float, str]:
    """Largest shortfall first; hosts without a current layout last."""
    return (-(h.shortfall_pct if h.shortfall_pct is not None else -math.inf), h.host)
