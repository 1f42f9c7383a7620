"""The fleet's answer: counts by status, the month's cost now against recommended, the hosts to look at first."""

from __future__ import annotations

import math
from collections.abc import Iterable

from blockfit.schema import Cost
from blockfit.schema.fleet import FleetHost, FleetProblem, FleetSummary, HostAmount

TOP = 5                   # hosts named in the summary's largest savings / shortfalls


def summarize(hosts: list[FleetHost], problems: list[FleetProblem]) -> FleetSummary:
    """Counts by status and the month's cost now against recommended, summed over hosts that have both."""
    priced = [h for h in hosts if h.now is not None and h.recommended_cost is not None]
    now = _sum([h.now.cost for h in priced if h.now is not None])
    rec = _sum([c for h in priced for c in [h.recommended_cost] if c is not None])
    by = {s: sum(1 for h in hosts if h.status == s) for s in ("under", "within", "over", "unknown")}
    savers = sorted((h for h in hosts if h.savings is not None and h.savings > 0), key=lambda h: -(h.savings or 0))
    short = sorted((h for h in hosts if h.shortfall_pct is not None and h.shortfall_pct > 0),
                   key=lambda h: -(h.shortfall_pct or 0))
    return FleetSummary(
        hosts=len(hosts) + len({p.host for p in problems if p.host}), planned=len(hosts), problems=len(problems),
        on_burst=sum(1 for h in hosts if h.burst is not None and h.burst.lives_on_burst),
        on_burst_now=sum(1 for h in hosts if h.now is not None and h.now.burst is not None
                         and h.now.burst.lives_on_burst),
        priced=len(priced), cost_now=now, cost_recommended=rec,
        savings=None if now.total is None or rec.total is None else round(now.total - rec.total, 2),
        largest_savings=[HostAmount(host=h.host, value=h.savings or 0) for h in savers[:TOP]],
        largest_shortfalls=[HostAmount(host=h.host, value=h.shortfall_pct or 0) for h in short[:TOP]], **by)


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
