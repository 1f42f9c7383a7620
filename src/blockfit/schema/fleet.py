"""What `blockfit plan --from prometheus+http://…` writes: one plan per host, "now" beside "recommended", and the
fleet's summary (hosts under / within / over, the month's cost now against recommended, the largest savings and
shortfalls). Money is US dollars a month (730 h); IOPS at the small I/O size, MB/s = 10^6 B/s.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, PrivateAttr

from blockfit.schema.cost import Cost
from blockfit.schema.empty import empty_list
from blockfit.schema.history import DerivedTargets
from blockfit.schema.plan import Plan
from blockfit.schema.prediction import Prediction
from blockfit.schema.result import ResultEnvelope

FleetStatus = Literal["under", "within", "over", "unknown"]
# A host is over-provisioned when the cheapest layout meeting its targets costs at least this share less.
OVER_PCT = 10.0


class HostBurst(BaseModel):
    """Whether a layout lives on burst: the host's recorded demand per step, without headroom, run through the
    layout's credit buckets from full (docs/burst.md)."""

    layout: str = Field(description="the layout replayed (the recommended one)")
    instance: str
    lives_on_burst: bool = Field(description="the recorded demand rose above the layout's sustained rate: it "
                                             "depends on credits")
    budget_used_pct: float = Field(description="share of the fullest-spent bucket the worst stretch used, in % "
                                               "(100: the credits ran out)")
    credits_ran_out: bool = Field(description="the credits ran out while the history asked for more than the "
                                              "sustained rate")
    stretches: int = Field(description="stretches of demand above the sustained rate")
    summary: str = Field(description="the worst stretch and what it used, or where the credits ran out")


class HostNow(BaseModel):
    """The host's current layout on its current instance, predicted for its own workload (read share, I/O sizes)."""

    layout: str = Field(description="layout spec, from the mapping file or the blockfit_layout label")
    instance: str = Field(description="instance spec SHAPE[:COUNT]")
    max_iops: float
    max_mbps: float
    iops_limited_by: str
    mbps_limited_by: str
    cost: Cost
    burst: HostBurst | None = Field(default=None, description="the current layout's credit buckets replayed over the "
                                                              "host's recorded series (None: it does not burst)")
    # the model's prediction of it, kept for the replay (not part of the result)
    _prediction: Prediction | None = PrivateAttr(default=None)

    @property
    def prediction(self) -> Prediction | None:
        return self._prediction


class HostDetail(BaseModel):
    """A host's full series (query_range at the step), kept as the maximum per bucket for the figure."""

    step_s: int
    steps: int = Field(description="steps with data")
    bucket_s: int = Field(description="seconds per envelope point")
    iops_max: list[tuple[float, float]] = Field(description="(unix time, the bucket's highest total IOPS)")
    steps_above_now: int = Field(description="steps whose IOPS exceeded what the current layout delivers")


class FleetHost(BaseModel):
    """One host: its targets from history, its layout now, the recommended plan, and which side it is on."""

    host: str = Field(description="the host's instance label")
    status: FleetStatus = Field(description="under: the current layout delivers less than the targets; over: the "
                                            f"cheapest layout meeting them costs at least {OVER_PCT:g} % less; "
                                            "within: neither; unknown: no current layout given")
    targets: DerivedTargets
    now: HostNow | None = None
    plan: Plan | None = Field(default=None, description="the recommended layout (one candidate, no Pareto front)")
    infeasible: str | None = Field(default=None, description="why no layout meets the targets on this shape")
    shortfall_pct: float | None = Field(default=None, description="how far the targets exceed what the current "
                                                                  "layout delivers, in % (negative: headroom left)")
    savings: float | None = Field(default=None, description="now minus recommended total cost, dollars a month")
    notes: list[str] = Field(default_factory=empty_list)
    detail: HostDetail | None = None
    burst: HostBurst | None = Field(default=None, description="the recommendation's credit buckets replayed over the "
                                                              "host's recorded series (None: it does not burst)")

    @property
    def recommended_cost(self) -> Cost | None:
        return self.plan.candidates[0].cost if self.plan is not None and self.plan.candidates else None


class FleetProblem(BaseModel):
    """A host (or the whole query) that could not be planned, in one line; cause input = exit 2, server = exit 4."""

    host: str
    message: str
    cause: Literal["input", "server"]


class HostAmount(BaseModel):
    host: str
    value: float


class FleetSummary(BaseModel):
    hosts: int = Field(description="hosts planned plus hosts with a problem")
    planned: int
    under: int
    within: int
    over: int
    unknown: int
    problems: int
    on_burst: int = Field(default=0, description="hosts whose recommendation lives on burst")
    on_burst_now: int = Field(default=0, description="hosts whose current layout lives on burst")
    priced: int = Field(description="hosts with both a current and a recommended cost: the totals sum these")
    cost_now: Cost
    cost_recommended: Cost
    savings: float | None = Field(default=None, description="cost_now.total minus cost_recommended.total")
    largest_savings: list[HostAmount] = Field(default_factory=empty_list, description="dollars a month, largest first")
    largest_shortfalls: list[HostAmount] = Field(default_factory=empty_list, description="shortfall_pct, largest first")


class FleetResult(ResultEnvelope):
    """`blockfit plan --from prometheus+http://…`: every matched host's plan and the fleet's answer."""

    kind: Literal["fleet"] = "fleet"
    blockfit_version: str
    created: datetime
    cloud: str
    catalog_version: str
    source: str = Field(description="the Prometheus HTTP API queried (no credentials)")
    match: str = Field(description="the label selector of the hosts")
    devices: str | None = Field(default=None, description="the device rule (a regular expression), if one for all")
    mount: str | None = Field(default=None, description="or: the mount point whose device was summed")
    start: datetime
    end: datetime
    range_s: int
    step_s: int
    percentile: float
    headroom_pct: float
    hosts: list[FleetHost] = Field(description="largest shortfall first")
    problems: list[FleetProblem] = Field(default_factory=empty_list)
    summary: FleetSummary
    queries: int = Field(default=0, description="HTTP requests made to the server")
