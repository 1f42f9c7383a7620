"""A fleet at once: each host's targets from Prometheus, its current layout beside the planner's recommendation,
and the fleet's answer (who is under- or over-provisioned, what the month costs now and recommended).

Each host is planned with `make_plan` (one candidate, no Pareto front) on its own instance, for its own targets
(the server's percentile of its total IOPS and MB/s per step, plus headroom) and read share. Its capacity is the
mapping file's, else what its current layout holds, else --capacity. Where no layout meets the targets on its
instance count, a flexible shape is planned again from that count up (the answer may be "more OCPUs").

The mapping file (--hosts, TOML) names each host's current layout and instance; [defaults] applies to every host
the file does not name. Series labels blockfit_layout / blockfit_instance serve where the file is silent:

    [defaults]
    instance = "VM.Standard.E4.Flex:8"

    [hosts."db-01:9100"]          # the instance label, or the host without :port
    layout = "4x1000G@balanced"
    instance = "VM.Standard.E4.Flex:16"
    capacity = "3T"               # usable capacity to plan for (default: what the current layout holds)
    devices = "dm-3"              # this host's devices (a regular expression), instead of --devices / --mount
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.pool
import os
import signal
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from blockfit import __version__, proc
from blockfit.catalog import Catalog
from blockfit.errors import BlockfitError, InfeasibleError, InputError
from blockfit.fleet.promapi import Client
from blockfit.fleet.query import (
    INSTANCE_LABEL,
    LAYOUT_LABEL,
    FleetQuery,
    HostHistory,
    HostProblem,
    envelope,
    fmt_span,
    host_series,
    lookup,
    prepare,
    stream,
)
from blockfit.history.targets import percentile_name
from blockfit.model import predict
from blockfit.model.instance import find_shape
from blockfit.plan.advice import workload
from blockfit.plan.evaluate import Evaluator
from blockfit.plan.planner import make_plan
from blockfit.plan.space import default_space
from blockfit.schema import Cost, DerivedTargets, Instance, Layout, Plan, Requirements
from blockfit.schema.cost import COPIES
from blockfit.schema.fleet import (
    OVER_PCT,
    FleetHost,
    FleetProblem,
    FleetResult,
    FleetStatus,
    FleetSummary,
    HostAmount,
    HostDetail,
    HostNow,
)
from blockfit.schema.history import HistorySource
from blockfit.specs import parse_instance, parse_layout
from blockfit.units import parse_volume_gb

MAPPING_KEYS = ("layout", "instance", "capacity", "devices")
DETAIL_HOSTS = 3          # hosts whose full series the result keeps (largest shortfall first)
DETAIL_POINTS = 720       # envelope points per detail series
TOP = 5                   # hosts named in the summary's largest savings / shortfalls
SAME_PCT = 1e-6           # a shortfall this small is rounding in the server's arithmetic, not a shortfall


@dataclass(frozen=True)
class HostConfig:
    """What the user says about one host (every field optional; [defaults] fills the gaps)."""

    layout: str | None = None
    instance: str | None = None
    capacity: str | None = None
    devices: str | None = None


@dataclass
class Mapping:
    path: Path | None = None
    defaults: HostConfig = field(default_factory=HostConfig)
    hosts: dict[str, HostConfig] = field(default_factory=dict)

    def config(self, host: str, labels: dict[str, str]) -> HostConfig:
        """The file's entry for HOST, then its series labels, then [defaults]."""
        own = lookup(self.hosts, host) or HostConfig()
        d = self.defaults
        return HostConfig(layout=own.layout or labels.get(LAYOUT_LABEL) or d.layout,
                          instance=own.instance or labels.get(INSTANCE_LABEL) or d.instance,
                          capacity=own.capacity or d.capacity, devices=own.devices or d.devices)


def load_mapping(path: Path) -> Mapping:
    """Read --hosts FILE (TOML: [defaults] and [hosts."NAME"] tables of layout, instance, capacity, devices)."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"--hosts {path}: file not found (expected a TOML mapping of hosts to layouts)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--hosts {path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"--hosts {path}: not TOML ({exc})") from None
    unknown = [k for k in doc if k not in ("defaults", "hosts")]
    if unknown:
        raise InputError(f"--hosts {path}: unknown table {unknown[0]!r}; expected [defaults] and [hosts.\"NAME\"]")
    hosts = doc.get("hosts", {})
    if not isinstance(hosts, dict):
        raise InputError(f"--hosts {path}: 'hosts' must be a table of [hosts.\"NAME\"] entries")
    return Mapping(path=path, defaults=_entry(path, "defaults", doc.get("defaults", {})),
                   hosts={name: _entry(path, f'hosts."{name}"', entry) for name, entry in hosts.items()})


def _entry(path: Path, where: str, entry: object) -> HostConfig:
    if not isinstance(entry, dict):
        raise InputError(f"--hosts {path}: [{where}] must be a table of {', '.join(MAPPING_KEYS)}")
    for key, value in entry.items():
        if key not in MAPPING_KEYS:
            raise InputError(f"--hosts {path}: [{where}] unknown key {key!r}; expected {', '.join(MAPPING_KEYS)}")
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"--hosts {path}: [{where}] {key} must be a non-empty string, e.g. "
                             f"{_EXAMPLES[key]}")
    return HostConfig(**{k: str(v).strip() for k, v in entry.items()})


_EXAMPLES = {"layout": '"4x1000G@balanced"', "instance": '"VM.Standard.E4.Flex:8"', "capacity": '"3T"',
             "devices": '"dm-3"'}


@dataclass
class FleetOptions:
    """Everything every host's plan shares: the template of its Requirements (targets, capacity, instance and
    history filled per host), the percentile and headroom, a fallback capacity and instance."""

    template: Requirements
    percentile: float
    headroom_pct: float
    capacity: str | None = None
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
        capacity = _capacity(h.host, cfg, layout, opts)
    except InputError as exc:
        return FleetProblem(host=h.host, cause="input", message=f"{h.host} ({where}): {exc}")
    if capacity is None:
        return FleetProblem(host=h.host, cause="input",
                            message=f"{h.host}: no capacity (give it a layout or capacity in --hosts, or --capacity)")
    req = opts.template.model_copy(update={
        "capacity_gb": capacity, "target_iops": targets.target_iops if targets.target_iops > 0 else None,
        "target_mbps": targets.target_mbps if targets.target_mbps > 0 else None, "instance_shape": inst.shape,
        "instance_ocpus": inst.ocpus, "read_pct": min(100.0, max(0.0, float(round(h.read_pct)))),
        "history": targets})
    notes: list[str] = []
    now = None
    if layout is not None:
        if inst.ocpus is None and find_shape(cat, inst.shape).kind == "flex":
            return FleetProblem(host=h.host, cause="input",
                                message=f"{h.host} ({where}): instance {inst_spec!r}: give the running host's count "
                                        f"as SHAPE:OCPUS, e.g. {inst.shape}:8")
        try:
            now = _now(layout, inst, req, cat)
        except InputError as exc:
            return FleetProblem(host=h.host, cause="input", message=f"{h.host} ({where}): {exc}")
    plan, infeasible = _recommend(req, cat, notes, cache)
    return _host(h.host, targets, now, plan, infeasible, notes)


def _capacity(host: str, cfg: HostConfig, layout: Layout | None, opts: FleetOptions) -> float | None:
    if cfg.capacity:
        return parse_volume_gb(cfg.capacity, f"{host}: capacity")
    if layout is not None:
        return layout.members * layout.volume.size_gb / COPIES[layout.redundancy]
    if opts.capacity:
        return parse_volume_gb(opts.capacity, "--capacity")
    return None


def _now(layout: Layout, inst: Instance, req: Requirements, cat: Catalog) -> HostNow:
    pred = predict(layout, inst, workload(req), cat, with_curve=False, memory_gb=req.memory_gb)
    return HostNow(layout=pred.layout, instance=inst.spec, max_iops=pred.max_iops, max_mbps=pred.max_mbps,
                   iops_limited_by=pred.iops_limited_by, mbps_limited_by=pred.mbps_limited_by, cost=pred.cost)


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


def _instance_allows(req: Requirements, cat: Catalog) -> bool:
    """Could the instance alone (volumes unlimited) carry the targets with any volume type?"""
    space = default_space(cat, req)
    ev = Evaluator(cat, req, space)
    return any(ev.instance_floor(option) is not None for option in space.options)


def _recommend(req: Requirements, cat: Catalog, notes: list[str],
               cache: PlanCache | None = None) -> tuple[Plan | None, str | None]:
    """The cheapest layout on the host's instance; failing that (a flexible shape), on more OCPUs of it. When the
    instance's own caps rule every layout out, the wider search starts at once (the planner's explanation of an
    infeasible plan searches the bigger shapes: seconds a host, spent for nothing here)."""
    flex = req.instance_ocpus is not None and find_shape(cat, req.instance_shape).kind == "flex"
    if flex and not _instance_allows(req, cat):
        first = (f"the instance's own caps at {req.instance_ocpus:g} OCPUs are below "
                 f"{req.target_iops or 0:,.0f} IOPS or {req.target_mbps or 0:,.0f} MB/s")
    else:
        try:
            return _plan(req, cat, cache), None
        except InfeasibleError as exc:
            first = str(exc)
    if not flex:
        return None, first
    wider = req.model_copy(update={"instance_ocpus": None, "ocpus_min": req.instance_ocpus})
    try:
        plan = _plan(wider, cat, cache)
    except InfeasibleError as exc:
        return None, str(exc)
    notes.append(f"No layout meets the targets on {req.instance_ocpus:g} OCPUs of {req.instance_shape} ({first}); "
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


Progress = Callable[[str], None]


def plan_fleet(client: Client, query: FleetQuery, mapping: Mapping, opts: FleetOptions, cat: Catalog,
               progress: Progress | None = None, workers: int | None = None) -> FleetResult:
    """Stream every host's history from the server and plan each as it arrives (in worker processes, one per CPU,
    while the server computes the next batches), then fetch the full series of the hosts furthest short and sum
    the fleet."""
    prepared = prepare(client, query)
    problems = [_problem(p) for p in prepared.problems]
    hosts: list[FleetHost] = []
    source, step_s = client.source.display, query.window.step_s
    count = workers if workers is not None else (len(os.sched_getaffinity(0)) if len(prepared.rules) >= 8 else 1)
    with Planner(cat, count) as planner:   # forked before the query threads start
        for item in stream(client, query, prepared):
            if isinstance(item, HostProblem):
                problems.append(_problem(item))
            else:
                planner.submit(item, mapping.config(item.host, item.labels), opts, source, step_s)
            for got in planner.ready():
                _collect(got, hosts, problems)
                if progress is not None:
                    progress(f"{len(hosts) + len(problems)} of {len(prepared.found)} hosts")
        for got in planner.rest():
            _collect(got, hosts, problems)
    hosts.sort(key=sort_key)
    for h in [h for h in hosts if h.status == "under"][:DETAIL_HOSTS]:
        try:
            h.detail = _detail(client, query, prepared.rules, h)
        except BlockfitError as exc:
            problems.append(FleetProblem(host=h.host, cause="server", message=f"{h.host}: detail series: {exc}"))
    w = query.window
    return FleetResult(
        blockfit_version=__version__, created=datetime.now(UTC), cloud=cat.cloud,
        catalog_version=cat.version.isoformat(), source=source, match=query.match,
        devices=query.devices, mount=query.mount, start=datetime.fromtimestamp(w.start, UTC),
        end=datetime.fromtimestamp(w.end, UTC), range_s=w.range_s, step_s=w.step_s, percentile=opts.percentile,
        headroom_pct=opts.headroom_pct, hosts=hosts, problems=sorted(problems, key=lambda p: p.host),
        summary=summarize(hosts, problems), queries=client.requests)


def _collect(got: FleetHost | FleetProblem, hosts: list[FleetHost], problems: list[FleetProblem]) -> None:
    if isinstance(got, FleetProblem):
        problems.append(got)
    else:
        hosts.append(got)


def _problem(p: HostProblem) -> FleetProblem:
    return FleetProblem(host=p.host, message=p.message, cause="server" if p.cause == "server" else "input")


# ---- planning in worker processes -------------------------------------------------------------------------------

_worker_cat: Catalog | None = None
_worker_cache = PlanCache()


def _worker_init(cat: Catalog) -> None:
    """In a forked planner: Ctrl-C is the parent's to handle, and the kernel ends us if the parent dies."""
    global _worker_cat
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    proc.set_parent_death_signal()
    _worker_cat = cat


def _worker_plan(h: HostHistory, cfg: HostConfig, opts: FleetOptions, source: str,
                 step_s: int) -> FleetHost | FleetProblem:
    assert _worker_cat is not None
    return plan_host(h, cfg, opts, _worker_cat, source, step_s, _worker_cache)


class Planner:
    """Plans hosts in COUNT forked worker processes (in this process when COUNT is 1); terminated on any exit."""

    def __init__(self, cat: Catalog, count: int) -> None:
        self.cat, self.count = cat, count
        self.pool: multiprocessing.pool.Pool | None = None
        self.pending: list[multiprocessing.pool.AsyncResult[FleetHost | FleetProblem]] = []
        self.done: list[FleetHost | FleetProblem] = []
        self.cache = PlanCache()

    def __enter__(self) -> Planner:
        if self.count > 1:
            self.pool = multiprocessing.get_context("fork").Pool(self.count, _worker_init, (self.cat,))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()

    def submit(self, h: HostHistory, cfg: HostConfig, opts: FleetOptions, source: str, step_s: int) -> None:
        if self.pool is None:
            self.done.append(plan_host(h, cfg, opts, self.cat, source, step_s, self.cache))
        else:
            self.pending.append(self.pool.apply_async(_worker_plan, (h, cfg, opts, source, step_s)))

    def ready(self) -> list[FleetHost | FleetProblem]:
        out, self.done = self.done, []
        still = []
        for r in self.pending:
            if r.ready():
                out.append(r.get())
            else:
                still.append(r)
        self.pending = still
        return out

    def rest(self) -> list[FleetHost | FleetProblem]:
        out = self.ready()
        for r in self.pending:
            while not r.ready():   # short waits: Ctrl-C reaches this thread promptly
                r.wait(0.2)
            out.append(r.get())
        self.pending = []
        return out


def _detail(client: Client, query: FleetQuery, rules: dict[str, str], h: FleetHost) -> HostDetail:
    values = host_series(client, query, rules, h.host, "iops")
    limit = h.now.max_iops if h.now is not None else math.inf
    bucket = max(1, math.ceil(len(values) / DETAIL_POINTS))
    return HostDetail(step_s=query.window.step_s, steps=len(values), bucket_s=bucket * query.window.step_s,
                      iops_max=envelope(values, DETAIL_POINTS), steps_above_now=sum(1 for _, v in values if v > limit))


def with_defaults(query: FleetQuery, mapping: Mapping) -> FleetQuery:
    """The query with the mapping's per-host device rules and the hosts it names."""
    overrides = {name: c.devices for name, c in mapping.hosts.items() if c.devices}
    return replace(query, overrides=overrides, wanted=sorted(mapping.hosts),
                   devices=query.devices or mapping.defaults.devices)
