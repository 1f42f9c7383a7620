"""`run_bench(request, progress) -> BenchResult`: set up a throwaway cluster per layout, load, warm each layout
until its state is steady, then measure interleaved and counterbalanced (A B, B A, A B …) with evidence until
the ratio's interval is narrow enough.

Order of work, and why (each phase is a function below; the Plan holds the steps the loop and the bar read):
1. Validate every --dir before creating anything (bad input leaves nothing behind).
2. Set up, per layout: a memory cgroup, initdb, the server inside the cgroup, the data every chosen workload
   needs. Loading happens for all layouts first, with whatever caps are in force (the lab lifts its caps for
   this), then a checkpoint and the cgroups' page cache dropped (it holds what loading wrote last).
3. Prime, for OLTP: a select-only run per layout, still before ``--before-measure`` (where the lab applies its
   caps): uncapped it fills shared buffers and the bounded page cache in seconds (capped at 50 IOPS a cold
   cache takes minutes to refill). A head start only: the warm-up decides when a layout is warm.
4. ``--before-measure`` runs once.
5. Per measure: a warm-up per layout by evidence (warmup.py: windows until throughput and device I/Os per
   unit of work hold steady, or its budget ends), then measured rounds A B, B A, A B … (an OLTP run as long as
   the profile's run_ios device I/Os take at the layout's warm rate: profiles.py says why) until the ratio's
   interval is within the precision target (stats.enough), --repeat rounds or the rounds' time budget. The
   order flips every round because a fixed order biases every pair the same way: with a drift (the cache
   still settling, a neighbour's load ramping) the layout that always runs second always looks faster. An A/A
   run of one directory against itself, in fixed order, read "B faster by 2 % [+1 %, +4 %]" in CI; flipped,
   such a drift adds to the spread of the pairs and cancels in their mean instead of posing as a difference.
6. The comparisons (compare.py): the ratio and its interval first, the precision reached, drifting runs, and
   the model's ratio from the known caps beside it.
Every resource lives in one ExitStack, so an error or Ctrl-C anywhere stops the servers, kills what is left
in their cgroups and deletes the clusters and temp dirs.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import get_args

from blockfit import proc
from blockfit.dbbench import cluster as pg
from blockfit.dbbench import dss, evidence, oltp, stats, warmup
from blockfit.dbbench.compare import Rounds, Stopped, compare, summarise
from blockfit.dbbench.janitor import Janitor
from blockfit.dbbench.memcg import memory_cgroup
from blockfit.dbbench.plan import Plan, Progress, round_order
from blockfit.dbbench.profiles import PROFILES, Profile
from blockfit.dbbench.runs import Layout, LayoutSpec, close, connect, measure_once
from blockfit.errors import EnvironmentProblem, InputError, ValueProblem
from blockfit.schema.bench import (
    BenchResult,
    BenchRun,
    BenchSettings,
    Comparison,
    KnownCaps,
    LayoutInfo,
    MeasureName,
    MeasureResult,
)
from blockfit.units import fmt_num

__all__ = ["BenchRequest", "LayoutSpec", "Progress", "checks", "parse_workloads", "round_order", "run_bench",
           "validate"]

WORKLOADS: dict[str, list[MeasureName]] = {
    "oltp": ["oltp-select", "oltp-tpcb"], "oltp-select": ["oltp-select"], "oltp-tpcb": ["oltp-tpcb"],
    "dss": ["dss"], "load": ["load"],
}
UNITS: dict[MeasureName, tuple[str, bool]] = {
    "oltp-select": ("TPS", True), "oltp-tpcb": ("TPS", True), "dss": ("seconds", False), "load": ("rows/s", True),
}


def parse_workloads(text: str, option: str = "--workload") -> list[MeasureName]:
    """'oltp,dss,load' → the measures in a fixed order (select-only before TPC-B, which changes the data)."""
    chosen: set[str] = set()
    for item in (w.strip() for w in text.split(",")):
        if item not in WORKLOADS:
            raise InputError(f"{option} {item!r}: expected a comma-separated list of {', '.join(WORKLOADS)}")
        chosen.update(WORKLOADS[item])
    return [m for m in get_args(MeasureName) if m in chosen]


@dataclass
class BenchRequest:
    layouts: list[LayoutSpec]
    measures: list[MeasureName]
    profile: Profile = field(default_factory=lambda: PROFILES["quick"])
    repeat: int | None = None
    before_measure: str | None = None
    bindir: Path | None = None
    precision_pct: float | None = None  # the ratio's interval within ± this percent; None: the profile's
    sequential: bool = True  # False: always --repeat rounds, no budget, one look at the end (bench_sequential)

    @property
    def repeats(self) -> int:
        return self.repeat or self.profile.repeat

    @property
    def precision(self) -> float | None:
        """The target in percent, or None when every planned round runs."""
        return (self.precision_pct or self.profile.precision_pct) if self.sequential else None


def validate(request: BenchRequest) -> list[Path]:
    """Every input checked before anything is created; returns each layout's cluster subdirectory."""
    for check in checks(request).values():
        check()
    return cluster_dirs(request)


def checks(request: BenchRequest) -> dict[str, Callable[[], object]]:
    """Each check by the field of the request it is about (the command line names the option that carried it)."""
    return {"layouts": lambda: _check_some(request), "repeat": lambda: _check_repeat(request.repeat),
            "precision_pct": lambda: _check_precision(request.precision_pct),
            "labels": lambda: _check_labels(request), "dirs": lambda: cluster_dirs(request)}


def _check_some(request: BenchRequest) -> None:
    if not request.layouts:
        raise ValueProblem("none given: expected at least one directory on the filesystem under test")


def _check_repeat(repeat: int | None) -> None:
    if repeat is not None and repeat < 1:
        raise ValueProblem(f"{repeat}: expected a whole number of at least 1")


def _check_precision(precision_pct: float | None) -> None:
    if precision_pct is not None and not 0 < precision_pct < 100:
        raise ValueProblem(f"{precision_pct:g}: expected a percentage more than 0 and less than 100")


def _check_labels(request: BenchRequest) -> None:
    labels = [s.label for s in request.layouts]
    if len(set(labels)) != len(labels):
        raise ValueProblem(f"{', '.join(labels)}: expected a different label per directory")


def cluster_dirs(request: BenchRequest) -> list[Path]:
    """Each layout's cluster subdirectory, every directory checked (`pg.check_dir`)."""
    subs: list[Path] = []
    for spec in request.layouts:
        sub = pg.check_dir(spec.path)
        while sub in subs:  # the same directory twice (A/A): a second cluster beside the first
            sub = sub.with_name(sub.name + "-2")
            if sub.exists() and any(sub.iterdir()):
                raise ValueProblem(f"{spec.path}: {sub} exists and is not empty")
        subs.append(sub)
    return subs


@dataclass
class _Bench:
    """What the phases share: the request, the plan, the layouts set up so far and what was measured."""

    request: BenchRequest
    plan: Plan[Layout]
    workdir: Path = Path()
    started: float = field(default_factory=time.monotonic)
    layouts: list[Layout] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def profile(self) -> Profile:
        return self.request.profile


def run_bench(request: BenchRequest, progress: Progress | None = None) -> BenchResult:
    """Run the whole bench; see the module docstring for the order of work."""
    subs = validate(request)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise EnvironmentProblem("psycopg 3 not installed (pip install 'blockfit[db]')") from None
    bindir = request.bindir or pg.find_bindir()
    specs = request.layouts
    repeat = request.repeats if len(specs) > 1 else min(request.repeats, stats.MIN_PAIRS)  # no ratio to narrow
    plan: Plan[Layout] = Plan.make(len(specs), request.measures, repeat, _primes(request), progress)
    bench = _Bench(request, plan)
    started_at = datetime.now(UTC).isoformat()
    stopped_by: str | None = None
    try:  # Ctrl-C (or SIGTERM): everything is cleaned up on the way out, and what was measured is kept
        with contextlib.ExitStack() as stack:
            _set_up(bench, stack, subs, bindir)
            _prime(bench)
            _before_measure(bench)
            for measure in request.measures:
                _warm_up(bench, measure)
                _rounds(bench, measure)
            plan.say("stopping servers")
    except KeyboardInterrupt:
        stopped_by = "interrupted"
    return _result(bench, bindir, started_at, stopped_by)


def _primes(request: BenchRequest) -> bool:
    return any(m.startswith("oltp") for m in request.measures)


def _set_up(bench: _Bench, stack: contextlib.ExitStack, subs: list[Path], bindir: Path) -> None:
    """The janitor, a private work dir, and per layout: memory cgroup, cluster, server, session, data."""
    janitor = Janitor()  # cleans up should we be SIGKILLed; told to do nothing once we cleaned up ourselves
    stack.callback(janitor.close)
    bench.workdir = stack.enter_context(pg.private_dir(register=janitor.register))
    profile, measures = bench.profile, bench.request.measures
    for spec, sub in zip(bench.request.layouts, subs, strict=True):
        info = evidence.resolve(spec.path, spec.label)
        if spec.cap is not None:
            info.caps = KnownCaps(member_iops=spec.cap.iops, member_mbps=spec.cap.mbps,
                                  instance_iops=spec.cap.instance_iops, instance_mbps=spec.cap.instance_mbps)
        cgroup = stack.enter_context(memory_cgroup(profile.memory_limit_bytes, "bench", janitor.register))
        cl = stack.enter_context(pg.throwaway_cluster(spec.label, sub, bench.workdir, profile.server_settings(),
                                                     bindir, janitor.register))
        stack.callback(pg.stop, cl, cgroup)
        lay = Layout(spec=spec, info=info, cluster=cl, cgroup=cgroup)
        bench.layouts.append(lay)
        bench.plan.layouts.append(lay)
        bench.plan.step("setup", f"initdb {spec.label}")
        t0 = time.monotonic()
        pg.initdb(cl)
        pg.start(cl, cgroup)
        connect(lay, wait_s=30)
        stack.callback(close, lay)
        if lay.conn is None:
            raise EnvironmentProblem(lay.dead or f"cannot connect to the server on {spec.label}")
        bench.plan.step("setup", f"load {spec.label}")
        if "oltp-select" in measures or "oltp-tpcb" in measures:
            oltp.init(cl, profile.oltp_scale)
        if "dss" in measures:
            dss.prepare(lay.conn, profile.dss_rows, str(cl.temp_dir))
        lay.conn.execute("CHECKPOINT")
        info.load_seconds = time.monotonic() - t0


def _prime(bench: _Bench) -> None:
    """Checkpoint and drop each layout's page cache (it holds what loading wrote last), then for OLTP a select-only
    head start before the caps apply (see the module docstring)."""
    for lay in bench.layouts:
        lay.conn.execute("CHECKPOINT")
        lay.cgroup.drop_cache()
        if _primes(bench.request):
            bench.plan.step("prime", f"prime cache {lay.label}")
            oltp.run(lay.cluster, "select", bench.profile.oltp_clients, bench.profile.prime_seconds, bench.workdir)


def _before_measure(bench: _Bench) -> None:
    bench.plan.step("hook", "before-measure hook")
    command = bench.request.before_measure
    if command:
        hook = proc.run(["sh", "-c", command])
        if hook.returncode != 0:
            raise EnvironmentProblem(f"--before-measure exited {hook.returncode}: "
                                     f"{(hook.stderr or hook.stdout).strip()[-200:]}")


def _warm_up(bench: _Bench, measure: MeasureName) -> None:
    """Each layout in turn, until its own state is steady (warmup.py) or its budget is spent."""
    unit, higher = UNITS[measure]
    profile, stage = bench.profile, f"{measure}: warm-up"
    for lay in bench.layouts:
        lay.results[measure] = MeasureResult(measure=measure, unit=unit, higher_is_better=higher)
        bench.plan.step(stage, f"{measure}: warm-up on {lay.label}")

        def one(k: int, seconds: float, lay: Layout = lay) -> BenchRun:
            if k > 1:
                bench.plan.say(f"{measure}: warm-up on {lay.label}, window {k}")
            return measure_once(lay, measure, profile, bench.workdir, 0, bench.started, warmup=True,
                                seconds=seconds)

        mr, warm_started = lay.results[measure], time.monotonic() - bench.started
        mr.warmup = warmup.warm(one, measure, lay.info.fs_device, profile.steady_windows, profile.steady_pct,
                                profile.warmup_budget_s, profile.warmup_seconds, profile.window_ios,
                                profile.longest_window())
        mr.warmup.started_s = warm_started
        if measure in ("oltp-select", "oltp-tpcb"):  # long enough for run_ios device I/Os at the warm rate
            iops = warmup.rate(mr.warmup.windows[-profile.steady_windows:])
            mr.run_seconds = warmup.sized(profile.run_ios, iops, profile.run_seconds,
                                          profile.longest_run(len(bench.layouts)))
            mr.run_ios_short = iops is not None and iops * mr.run_seconds < 0.95 * profile.run_ios


def _rounds(bench: _Bench, measure: MeasureName) -> None:
    """Counterbalanced rounds until the interval is within the target, --repeat rounds, or the time budget."""
    request, plan, stage = bench.request, bench.plan, f"{measure}: rounds"
    precision = request.precision
    budget = bench.profile.rounds_budget_s if request.sequential else None
    t0, looks = time.monotonic(), 0
    stopped: Stopped = "rounds"
    for n, order in plan.rounds(measure):
        for lay in order:
            plan.step(stage, f"{measure}: run {n} of ≤{plan.repeat} on {lay.label}")
            mr = lay.results[measure]
            mr.runs.append(measure_once(lay, measure, bench.profile, bench.workdir, n, bench.started, warmup=False,
                                        seconds=mr.run_seconds))
            summarise(mr)
        looks += n >= stats.MIN_PAIRS
        elapsed = time.monotonic() - t0
        if any(r.failed for lay in bench.layouts for r in lay.results[measure].runs):
            stopped = "failed"
        elif len(bench.layouts) > 1 and all(stats.enough(ci, precision and precision / 100)
                                            for ci in _intervals(bench, measure)):
            stopped = "precision"
        elif budget is not None and n < plan.repeat and elapsed + elapsed / n > budget:
            stopped = "budget"
        else:
            continue
        break
    plan.close(stage)
    bench.comparisons.extend(_compare(bench, measure, Rounds(stopped, looks, precision, budget, plan.repeat)))


def _intervals(bench: _Bench, measure: MeasureName) -> list[stats.RatioCI]:
    base = bench.layouts[0].results[measure]
    return [stats.ratio_ci([r.score for r in base.runs], [r.score for r in lay.results[measure].runs],
                           base.higher_is_better) for lay in bench.layouts[1:]]


def _compare(bench: _Bench, measure: MeasureName, rounds: Rounds) -> list[Comparison]:
    sides = [(lay.label, lay.info, lay.results[measure]) for lay in bench.layouts]
    return compare(sides[0], sides[1:], rounds) if len(sides) > 1 else []


def _result(bench: _Bench, bindir: Path, started_at: str, stopped_by: str | None) -> BenchResult:
    request, profile = bench.request, bench.profile
    if stopped_by is not None:  # the measure that was interrupted: compared over the rounds it finished
        done = {c.measure for c in bench.comparisons}
        for m in (m for m in request.measures if m not in done and all(m in lay.results for lay in bench.layouts)):
            if all(lay.results[m].runs for lay in bench.layouts):
                bench.comparisons.extend(_compare(bench, m, Rounds("interrupted", 0, request.precision, None,
                                                                   bench.plan.repeat)))
    return BenchResult(
        started=started_at, duration_s=time.monotonic() - bench.started,
        postgres_version=_server_version(bindir), measures=request.measures,
        settings=BenchSettings(profile=profile.name, repeat=bench.plan.repeat, precision_pct=request.precision,
                               confidence=stats.LEVEL, min_pairs=stats.MIN_PAIRS,
                               rounds_budget_s=profile.rounds_budget_s if request.sequential else None,
                               steady_windows=profile.steady_windows, steady_pct=profile.steady_pct,
                               warmup_budget_s=profile.warmup_budget_s, prime_seconds=profile.prime_seconds,
                               memory_limit_bytes=profile.memory_limit_bytes, postgres=profile.server_settings(),
                               oltp_scale=profile.oltp_scale, oltp_clients=profile.oltp_clients,
                               run_seconds=profile.run_seconds, warmup_seconds=profile.warmup_seconds,
                               run_ios=profile.run_ios, window_ios=profile.window_ios,
                               longest_run_s=profile.longest_run(len(bench.layouts)),
                               longest_window_s=profile.longest_window(),
                               dss_rows=profile.dss_rows, load_steps=list(profile.load_steps)),
        layouts=[_finish(lay, request.measures) for lay in bench.layouts], comparisons=bench.comparisons,
        warnings=_warnings(bench.layouts, profile), partial=stopped_by is not None, stopped_by=stopped_by,
    )


def _server_version(bindir: Path) -> str:
    out = proc.run([str(bindir / "postgres"), "--version"], timeout=60)
    return out.stdout.strip()


def _finish(lay: Layout, measures: list[MeasureName]) -> LayoutInfo:
    """The layout with its measures (those started; a partial result may lack the rest)."""
    lay.info.measures = [lay.results[m] for m in measures if m in lay.results]
    return lay.info


def _warnings(layouts: list[Layout], profile: Profile) -> list[str]:
    out = []
    for lay in layouts:
        if not lay.info.devices:
            out.append(f"{lay.label}: {lay.spec.path} is not on a block device ({lay.info.fstype}); "
                       "no device evidence")
        for mr in lay.info.measures:
            hits = [r.evidence.db.hit_ratio for r in mr.runs if r.evidence and r.evidence.db.hit_ratio is not None]
            if mr.measure == "oltp-select" and hits and statistics.median(hits) > 0.99:
                out.append(f"{lay.label} {mr.measure}: buffer hit ratio {statistics.median(hits):.1%}: the data "
                           "fits in memory, so this measured memory, not the layout")
            if mr.run_ios_short and mr.run_seconds is not None:
                out.append(f"{lay.label} {mr.measure}: runs of {fmt_num(mr.run_seconds)} s, the most the rounds' "
                           f"budget holds, read fewer than the {fmt_num(profile.run_ios)} device I/Os that average "
                           "the cache's state: expect more noise per run (the standard profile runs longer)")
            if mr.warmup is not None and mr.warmup.outcome == "budget":
                out.append(f"{lay.label} {mr.measure}: warm-up {mr.warmup.text}")
    return out
