"""One host planned: its targets from the server's reduced history, its layout now, the planner's recommendation
and how the two compare.

Each host is planned with `make_plan` (one candidate, no Pareto front) on its own instance, for its own targets
(the server's percentile of its total IOPS and MB/s per step, plus headroom) and read share. Its capacity is the
mapping file's, else what its current layout holds, else --capacity. Where no layout meets the targets on its
instance count, a flexible shape is planned again from that count up (the answer may be "more OCPUs").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime

from blockfit.catalog import Catalog
from blockfit.errors import InfeasibleError, InputError
from blockfit.fleet.mapping import HostConfig
from blockfit.fleet.query import INSTANCE_LABEL, HostHistory, fmt_span
from blockfit.history.targets import percentile_name
from blockfit.model import predict
from blockfit.model.instance import find_shape
from blockfit.model.kinds.clouds import cloud_of
from blockfit.plan import instance_allows, make_plan, workload
from blockfit.schema import DerivedTargets, Instance, Layout, Plan, Requirements
from blockfit.schema.cost import COPIES
from blockfit.schema.fleet import OVER_PCT, FleetHost, FleetProblem, FleetStatus, HostNow
from blockfit.schema.history import HistorySource
from blockfit.schema.plan import OPEN_COUNT
from blockfit.specs import parse_instance, parse_layout

SAME_PCT = 1e-6           # a shortfall this small is rounding in the server's arithmetic, not a shortfall


@dataclass
class FleetOptions:
    """Everything every host's plan shares: the template of its Requirements (targets, capacity, instance and
    history filled per host), the percentile and headroom, a fallback capacity and instance."""

    template: Requirements
    percentile: float
    headroom_pct: float
    capacity_gb: float | None = None
    instance: str | None = None


def _derived(h: HostHistory, opts: FleetOptions, source: str, step_s: int) -> DerivedTargets:
    grow = 1 + opts.headroom_pct / 100
    skipped = []
    if h.samples < h.expected:
        skipped.append(f"{h.expected - h.samples} of {h.expected} steps without data (scrapes missing, or fewer than "
                       f"two per {fmt_span(step_s)} step)")
    if h.resets:
        skipped.append(f"the counters restarted {h.resets} time{'s' if h.resets > 1 else ''} (a reboot or a re-created "
                       "device): rate() counts across a restart, nothing is lost")
    src = HistorySource(path=f"{source} instance={h.host!r}", format="prometheus", member_kind="device",
                        members=h.devices, interval_s=step_s, samples=h.samples)
    return DerivedTargets(sources=[src], samples=h.samples, interval_s=step_s, skipped=skipped,
                          percentile=opts.percentile, percentile_name=percentile_name(opts.percentile),
                          peak_factor=1.0, peak_factor_source="rates over each step (Prometheus has no finer maximum "
                                                              "here)",
                          headroom_pct=opts.headroom_pct, iops=h.iops, mbps=h.mbps, read_pct=h.read_pct,
                          read_pct_from="ios", target_iops=h.iops * grow, target_mbps=h.mbps * grow)


def plan_host(h: HostHistory, cfg: HostConfig, opts: FleetOptions, cat: Catalog, source: str,
              step_s: int, cache: PlanCache | None = None) -> FleetHost | FleetProblem:
    """One host's targets, its layout now and the recommended one; a mapping entry that is wrong is a problem."""
    targets = _derived(h, opts, source, step_s)
    where = "--hosts" if cfg.layout or cfg.instance else "labels"
    try:
        inst_spec = cfg.instance or opts.instance
        if inst_spec is None:
            return FleetProblem(host=h.host, cause="input",
                                message=f"{h.host}: no instance (add instance = \"SHAPE:OCPUS\" for it to --hosts, a "
                                        f"{INSTANCE_LABEL} label, or --instance)")
        inst = parse_instance(inst_spec, cat.cloud, cat, require_count=False, what=f"{h.host}: instance")
        layout = None
        if cfg.layout:
            layout = parse_layout(cfg.layout, cat.cloud, cat, manager=opts.template.manager)
            layout = layout.model_copy(update={"redundancy": opts.template.redundancy})
        capacity = _capacity(cfg, layout, opts)
    except InputError as exc:
        return FleetProblem(host=h.host, cause="input", message=f"{h.host} ({where}): {exc}")
    if capacity is None:
        return FleetProblem(host=h.host, cause="input",
                            message=f"{h.host}: no capacity (give it a layout or capacity in --hosts, or --capacity)")
    req = opts.template.model_copy(update={
        "capacity_gb": capacity, "target_iops": targets.target_iops if targets.target_iops > 0 else None,
        "target_mbps": targets.target_mbps if targets.target_mbps > 0 else None, "instance_shape": inst.shape,
        "instance_vcpus": inst.vcpus, "instance_ocpus": inst.ocpus,
        "read_pct": min(100.0, max(0.0, float(round(h.read_pct)))), "history": targets})
    notes: list[str] = []
    now = None
    if layout is not None:
        if inst.count is None and cloud_of(cat.cloud).sized_by_count(find_shape(cat, inst.shape)):
            return FleetProblem(host=h.host, cause="input",
                                message=f"{h.host} ({where}): instance {inst_spec!r}: give the running host's count "
                                        f"as SHAPE:OCPUS, e.g. {inst.shape}:8")
        try:
            now = _now(layout, inst, req, cat)
        except InputError as exc:
            return FleetProblem(host=h.host, cause="input", message=f"{h.host} ({where}): {exc}")
    plan, infeasible = _recommend(req, cat, notes, cache)
    return _host(h.host, targets, now, plan, infeasible, notes)


def _capacity(cfg: HostConfig, layout: Layout | None, opts: FleetOptions) -> float | None:
    if cfg.capacity_gb is not None:
        return cfg.capacity_gb
    if layout is not None:
        return layout.members * layout.volume.size_gb / COPIES[layout.redundancy]
    return opts.capacity_gb


def _now(layout: Layout, inst: Instance, req: Requirements, cat: Catalog) -> HostNow:
    pred = predict(layout, inst, workload(req), cat, with_curve=False, memory_gb=req.memory_gb)
    now = HostNow(layout=pred.layout, instance=inst.spec, max_iops=pred.max_iops, max_mbps=pred.max_mbps,
                  iops_limited_by=pred.iops_limited_by, mbps_limited_by=pred.mbps_limited_by, cost=pred.cost)
    now._prediction = pred   # for the burst replay (fleet/burst.py), once the series is fetched
    return now


class PlanCache:
    """Exact reuse of a plan between hosts whose requirements differ only in their targets.

    If host A's cheapest layout P also meets host B's targets and B's targets are at least A's, P is B's cheapest
    too: every layout that meets B's targets meets A's, none of those is cheaper than P (nor ranks before it at
    the same cost), and P meets B's. A fleet of standard layouts has many such pairs (every host whose demand the
    capacity alone covers). Not with a latency bound, whose feasibility the candidate's figures do not show."""

    def __init__(self) -> None:
        self.entries: dict[str, list[tuple[float, float, Plan]]] = {}
        self.hits = 0

    @staticmethod
    def _key(req: Requirements) -> str | None:
        if req.max_latency_ms is not None:
            return None
        return req.model_copy(update={"target_iops": None, "target_mbps": None, "history": None}).model_dump_json()

    def get(self, req: Requirements) -> Plan | None:
        key = self._key(req)
        want_iops, want_mbps = req.target_iops or 0.0, req.target_mbps or 0.0
        for iops, mbps, plan in self.entries.get(key, []) if key else []:
            best = plan.candidates[0]
            if iops <= want_iops <= best.max_iops and mbps <= want_mbps <= best.max_mbps:
                self.hits += 1
                return plan.model_copy(update={"requirements": req, "created": datetime.now(UTC)})
        return None

    def put(self, req: Requirements, plan: Plan) -> None:
        key = self._key(req)
        if key is not None:
            self.entries.setdefault(key, []).append((req.target_iops or 0.0, req.target_mbps or 0.0, plan))


def _plan(req: Requirements, cat: Catalog, cache: PlanCache | None) -> Plan:
    plan = cache.get(req) if cache is not None else None
    if plan is None:
        plan = make_plan(req, cat, keep=1, brief=True)
        if not plan.feasible:
            assert plan.infeasible is not None
            raise InfeasibleError(plan.infeasible.reason)
        if cache is not None:
            cache.put(req, plan)
    return plan


def _recommend(req: Requirements, cat: Catalog, notes: list[str],
               cache: PlanCache | None = None) -> tuple[Plan | None, str | None]:
    """The cheapest layout on the host's instance; failing that (a flexible shape), on more OCPUs of it. When the
    instance's own caps rule every layout out, the wider search starts at once (the planner's explanation of an
    infeasible plan searches the bigger shapes: seconds a host, spent for nothing here)."""
    unit = cloud_of(cat.cloud).compute_unit
    flex = req.instance_count is not None and cloud_of(cat.cloud).sized_by_count(find_shape(cat, req.instance_shape))
    if flex and not instance_allows(req, cat):
        first = (f"the instance's own caps at {req.instance_count:g} {unit}s are below "
                 f"{req.target_iops or 0:,.0f} IOPS or {req.target_mbps or 0:,.0f} MB/s")
    else:
        try:
            return _plan(req, cat, cache), None
        except InfeasibleError as exc:
            first = str(exc)
    if not flex:
        return None, first
    from_here = cloud_of(cat.cloud).range_fields(req.instance_count, req.count_max)   # this count and up
    wider = req.model_copy(update={**OPEN_COUNT, **from_here})
    try:
        plan = _plan(wider, cat, cache)
    except InfeasibleError as exc:
        return None, str(exc)
    notes.append(f"No layout meets the targets on {req.instance_count:g} {unit}s of {req.instance_shape} ({first}); "
                 f"the recommendation runs on {plan.candidates[0].instance}.")
    return plan, None


def _host(host: str, targets: DerivedTargets, now: HostNow | None, plan: Plan | None, infeasible: str | None,
          notes: list[str]) -> FleetHost:
    shortfall = None
    status: FleetStatus = "unknown"
    savings = None
    rec = plan.candidates[0].cost if plan is not None else None
    if now is not None:
        ratios = [targets.target_iops / now.max_iops if now.max_iops > 0 else math.inf,
                  targets.target_mbps / now.max_mbps if now.max_mbps > 0 else math.inf]
        shortfall = 100 * (max(ratios) - 1)
        if rec is not None and now.cost.total is not None and rec.total is not None:
            savings = round(now.cost.total - rec.total, 2)
        if shortfall > SAME_PCT:
            status = "under"
        elif savings is not None and now.cost.total and savings >= now.cost.total * OVER_PCT / 100:
            status = "over"
        else:
            status = "within"
    return FleetHost(host=host, status=status, targets=targets, now=now, plan=plan, infeasible=infeasible,
                     shortfall_pct=shortfall, savings=savings, notes=notes)


