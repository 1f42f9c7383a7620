"""A fleet at once: every host's history streamed from the server and planned as it arrives, in forked worker
processes while the server computes the next batches; then the full series of the hosts furthest short, and the
totals. The worker processes are terminated on any exit (Ctrl-C included)."""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.pool
import os
from collections.abc import Callable
from datetime import UTC, datetime

from blockfit import __version__, lifecycle, proc
from blockfit.catalog import Catalog
from blockfit.errors import BlockfitError
from blockfit.fleet.burst import bursts, host_burst
from blockfit.fleet.hosts import FleetOptions, PlanCache, plan_host
from blockfit.fleet.mapping import HostConfig, Mapping
from blockfit.fleet.promapi import Client
from blockfit.fleet.query import FleetQuery, HostHistory, HostProblem, envelope, host_series, prepare, stream
from blockfit.fleet.totals import sort_key, summarize
from blockfit.schema.fleet import FleetHost, FleetProblem, FleetResult, HostDetail

DETAIL_HOSTS = 3          # hosts whose full series the result keeps (largest shortfall first)
DETAIL_POINTS = 720       # envelope points per detail series


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
    for h in hosts:
        try:
            _burst(client, query, prepared.rules, h)
        except BlockfitError as exc:
            problems.append(FleetProblem(host=h.host, cause="server", message=f"{h.host}: burst series: {exc}"))
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
    lifecycle.in_worker()
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


def _burst(client: Client, query: FleetQuery, rules: dict[str, str], h: FleetHost) -> None:
    """Replay the host's recorded series through its recommended and current layouts' credit buckets, where
    either bursts (two range queries; none for a host whose layouts do not burst)."""
    best = h.plan.candidates[0] if h.plan is not None and h.plan.candidates else None
    now = h.now.prediction if h.now is not None else None
    rec = best.prediction if best is not None else None
    if not bursts(rec) and not bursts(now):
        return
    iops = host_series(client, query, rules, h.host, "iops")
    mbps = host_series(client, query, rules, h.host, "mbps")
    step = query.window.step_s
    if best is not None and rec is not None and rec.burst is not None:
        h.burst = host_burst(rec, best.instance, h.targets, iops, mbps, step)
    if h.now is not None and now is not None and now.burst is not None:
        h.now.burst = host_burst(now, h.now.instance, h.targets, iops, mbps, step)
