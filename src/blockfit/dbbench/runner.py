"""`run_bench(request, progress) -> BenchResult`: set up a throwaway cluster per layout, load, then measure
interleaved and counterbalanced (A B, B A, A B …) with evidence, and stop each measure as soon as its comparison
is settled.

Order of work, and why:
1. Validate every --dir before creating anything (bad input leaves nothing behind).
2. Per layout: a memory cgroup, initdb, start the server inside the cgroup, load the data every chosen
   workload needs. Loading happens for all layouts first, with whatever caps are in force (the lab lifts its
   caps for this), then a checkpoint and the cgroups' page cache dropped (it holds what loading wrote last),
   then, for OLTP, a select-only run still before the caps: it fills shared buffers and the bounded page cache
   with the workload's own steady mix. Without it the capped warm-up cannot get there on the slower layout
   (at 300 IOPS refilling a 128 MiB cache takes ~50 s), so the slower layout starts colder, misses more per
   transaction, and the measured ratio exceeds the ratio of the caps (4.9 for caps 4x apart, measured).
3. ``--before-measure`` runs once (the lab applies its caps here), then per measure: one warm-up run per
   layout, then measured rounds A B, B A, A B … with a look at the planned run counts (stats.looks_at). The
   order flips every round because a fixed order biases every pair the same way: with a drift (the cache still
   settling, a neighbour's load ramping) the layout that always runs second always looks faster. An A/A run of
   one directory against itself, in fixed order, read "B faster by 2 % [+1 %, +4 %]" in CI; flipped, such a
   drift adds to the spread of the pairs and cancels in their mean instead of posing as a difference.
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
from typing import Any, TypeVar, get_args

from blockfit import proc
from blockfit.dbbench import cluster as pg
from blockfit.dbbench import dss, evidence, load, oltp, stats
from blockfit.dbbench.janitor import Janitor
from blockfit.dbbench.memcg import MemoryCgroup, memory_cgroup
from blockfit.dbbench.profiles import PROFILES, Profile
from blockfit.errors import EnvironmentProblem, InputError
from blockfit.schema.bench import (
    BenchResult,
    BenchRun,
    BenchSettings,
    Comparison,
    LayoutInfo,
    MeasureName,
    MeasureResult,
    MemoryEvidence,
)

_T = TypeVar("_T")
Progress = Callable[[str, int, int], None]  # (phase, steps done, steps planned)

WORKLOADS: dict[str, list[MeasureName]] = {
    "oltp": ["oltp-select", "oltp-tpcb"], "oltp-select": ["oltp-select"], "oltp-tpcb": ["oltp-tpcb"],
    "dss": ["dss"], "load": ["load"],
}
UNITS: dict[MeasureName, tuple[str, bool]] = {
    "oltp-select": ("TPS", True), "oltp-tpcb": ("TPS", True), "dss": ("seconds", False), "load": ("rows/s", True),
}
SETTLED = ("faster", "slower", "cpu-bound", "failed")


def parse_workloads(text: str, option: str = "--workload") -> list[MeasureName]:
    """'oltp,dss,load' → the measures in a fixed order (select-only before TPC-B, which changes the data)."""
    chosen: set[str] = set()
    for item in (w.strip() for w in text.split(",")):
        if item not in WORKLOADS:
            raise InputError(f"{option} {item!r}: expected a comma-separated list of {', '.join(WORKLOADS)}")
        chosen.update(WORKLOADS[item])
    return [m for m in get_args(MeasureName) if m in chosen]


@dataclass
class LayoutSpec:
    path: Path
    label: str
    cap: evidence.KnownCap | None = None


@dataclass
class BenchRequest:
    layouts: list[LayoutSpec]
    measures: list[MeasureName]
    profile: Profile = field(default_factory=lambda: PROFILES["quick"])
    repeat: int | None = None
    before_measure: str | None = None
    bindir: Path | None = None
    sequential: bool = True  # False: always --repeat runs and one look at the end (bench/bench_sequential.py)

    @property
    def repeats(self) -> int:
        return self.repeat or self.profile.repeat


def validate(request: BenchRequest) -> list[Path]:
    """Every input checked before anything is created; returns each layout's cluster subdirectory."""
    if not request.layouts:
        raise InputError("--dir: expected at least one directory on the filesystem under test")
    if request.repeat is not None and request.repeat < 1:
        raise InputError(f"--repeat {request.repeat}: expected a whole number of at least 1")
    labels = [s.label for s in request.layouts]
    if len(set(labels)) != len(labels):
        raise InputError(f"--label: {', '.join(labels)}: expected a different label per --dir")
    subs: list[Path] = []
    for spec in request.layouts:
        sub = pg.check_dir(spec.path)
        while sub in subs:  # the same directory twice (A/A): a second cluster beside the first
            sub = sub.with_name(sub.name + "-2")
            if sub.exists() and any(sub.iterdir()):
                raise InputError(f"--dir {spec.path}: {sub} exists and is not empty")
        subs.append(sub)
    return subs


@dataclass
class _Layout:
    spec: LayoutSpec
    info: LayoutInfo
    cluster: pg.Cluster
    cgroup: MemoryCgroup
    conn: Any = None
    dead: str | None = None
    results: dict[str, MeasureResult] = field(default_factory=dict)


def _connect(lay: _Layout, wait_s: float = 120.0) -> None:
    """(Re)connect the admin session; after a crash the server may be in recovery for a while."""
    import psycopg

    if lay.conn is not None:
        with contextlib.suppress(Exception):
            lay.conn.close()
    deadline = time.monotonic() + wait_s
    while True:
        try:
            lay.conn = psycopg.connect(lay.cluster.conninfo, autocommit=True, connect_timeout=10)
            return
        except psycopg.OperationalError:
            if not lay.cluster.alive() or time.monotonic() > deadline:
                lay.conn = None
                lay.dead = f"server on {lay.spec.label} gone: {lay.cluster.log_tail(3)}"
                return
            time.sleep(0.5)


def _close(lay: _Layout) -> None:
    if lay.conn is not None:
        with contextlib.suppress(Exception):
            lay.conn.close()


def _server_version(bindir: Path) -> str:
    out = proc.run([str(bindir / "postgres"), "--version"], timeout=60)
    return out.stdout.strip()


def _measure_once(lay: _Layout, measure: MeasureName, profile: Profile, workdir: Path, index: int,
                  started: float, warmup: bool) -> BenchRun:
    """One run of one measure on one layout, with the devices sampled and the database counters diffed."""
    import psycopg

    seconds = profile.warmup_seconds if warmup else profile.run_seconds
    if lay.dead or lay.conn is None:
        return BenchRun(index=index, started_s=time.monotonic() - started, seconds=0, score=0,
                        failed=lay.dead or "no connection")
    sampler = evidence.DeviceSampler(lay.info.devices).start()
    before = evidence.db_snapshot(lay.conn)
    oom0 = lay.cgroup.oom_kills()
    t0 = time.monotonic()
    run = BenchRun(index=index, started_s=t0 - started, seconds=0, score=0)
    try:
        if measure in ("oltp-select", "oltp-tpcb"):
            run.figures = oltp.run(lay.cluster, "select" if measure == "oltp-select" else "tpcb",
                                   profile.oltp_clients, seconds, workdir)
            run.score = run.figures["tps"]
        elif measure == "dss":
            run.score, run.queries = dss.run(lay.conn, "group by" if warmup else None)
            run.figures = {"temp_written_bytes": float(sum(q.temp_written_bytes for q in run.queries))}
        else:
            steps = list(profile.load_steps[:1] if warmup else profile.load_steps)
            run.score, run.steps = load.run(lay.conn, steps)
    except (EnvironmentProblem, psycopg.Error) as exc:
        run.failed = str(exc).splitlines()[0][:300]
    finally:
        capture, cpu = sampler.stop()
    run.seconds = time.monotonic() - t0
    ooms = lay.cgroup.oom_kills() - oom0
    if ooms:
        run.failed = (f"server OOM-killed {ooms}x in its {lay.cgroup.limit_bytes // 2**20} MiB memory cgroup "
                      "(a failed run, not a slow one)")
    if run.failed:
        _connect(lay)
    after = evidence.db_snapshot(lay.conn) if lay.conn is not None else before
    memory = MemoryEvidence(limit_bytes=lay.cgroup.limit_bytes, peak_bytes=lay.cgroup.peak_bytes(), oom_kills=ooms,
                            cgroup_version=lay.cgroup.version)
    run.evidence = evidence.judge(capture, cpu, lay.spec.cap, evidence.db_delta(before, after), memory,
                                  lay.info.fs_device)
    return run


def _compare(layouts: list[_Layout], measure: MeasureName, looks_total: int, looks_taken: int) -> list[Comparison]:
    base = layouts[0]
    unit, higher = UNITS[measure]
    out = []
    for other in layouts[1:]:
        ra, rb = base.results[measure].runs, other.results[measure].runs
        ci = stats.ratio_ci([r.score for r in ra], [r.score for r in rb], higher, looks_total)
        common = dict(measure=measure, baseline=base.spec.label, other=other.spec.label, ratio=ci.ratio,
                      ci_low=ci.low, ci_high=ci.high, confidence=ci.confidence,
                      baseline_median=base.results[measure].median, other_median=other.results[measure].median,
                      runs_used=min(len(ra), len(rb)), looks=looks_taken)
        failed = [r.failed for r in ra + rb if r.failed]
        cpu = [lay.spec.label for lay in (base, other) if lay.results[measure].binding == "cpu"]
        if failed:
            out.append(Comparison(**common, verdict="failed", text=f"failed run: {failed[0]}"))
        elif cpu:
            _, text = stats.verdict_text(ci, other.spec.label, base.spec.label)
            out.append(Comparison(**common, verdict="cpu-bound",
                                  text=f"CPU-bound on {', '.join(cpu)}: the layouts were not what held these runs, "
                                       f"so no winner is called (measured: {text})"))
        else:
            verdict, text = stats.verdict_text(ci, other.spec.label, base.spec.label)
            out.append(Comparison(**common, verdict=verdict, text=text))
    return out


def round_order(layouts: list[_T], n: int) -> list[_T]:
    """Round n's order (n from 1): as given in odd rounds, reversed in even ones (counterbalanced; see above)."""
    return list(layouts) if n % 2 else list(reversed(layouts))


def _summarise(mr: MeasureResult) -> None:
    good = [r for r in mr.runs if not r.failed]
    mr.median = statistics.median([r.score for r in good]) if good else None
    mr.binding = evidence.most_common([r.evidence.binding for r in good if r.evidence is not None])


def run_bench(request: BenchRequest, progress: Progress | None = None) -> BenchResult:
    """Run the whole bench; see the module docstring for the order of work."""
    subs = validate(request)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise EnvironmentProblem("psycopg 3 not installed (pip install 'blockfit[db]')") from None
    bindir = request.bindir or pg.find_bindir()
    profile, repeat, measures = request.profile, request.repeats, request.measures
    looks = stats.looks_at(repeat) if request.sequential else [repeat]
    total = (3 if any(m.startswith("oltp") for m in measures) else 2) * len(subs) + 1 \
        + len(measures) * len(subs) * (1 + repeat)
    done = 0

    def step(phase: str, advance: int = 1) -> None:
        nonlocal done
        if progress is not None:
            progress(phase, done, total)
        done += advance

    started = time.monotonic()
    result_started = datetime.now(UTC).isoformat()
    settings = profile.server_settings()
    layouts: list[_Layout] = []
    comparisons: list[Comparison] = []
    stopped_by: str | None = None
    try:  # Ctrl-C (or SIGTERM): everything is cleaned up on the way out, and what was measured is kept
        with contextlib.ExitStack() as stack:
            janitor = Janitor()  # cleans up should we be SIGKILLed; told to do nothing once we cleaned up ourselves
            stack.callback(janitor.close)
            workdir = stack.enter_context(pg.private_dir(register=janitor.register))
            for spec, sub in zip(request.layouts, subs, strict=True):
                info = evidence.resolve(spec.path, spec.label)
                cgroup = stack.enter_context(memory_cgroup(profile.memory_limit_bytes, "bench", janitor.register))
                cl = stack.enter_context(pg.throwaway_cluster(spec.label, sub, workdir, settings, bindir,
                                                             janitor.register))
                stack.callback(pg.stop, cl, cgroup)
                lay = _Layout(spec=spec, info=info, cluster=cl, cgroup=cgroup)
                layouts.append(lay)
                step(f"initdb {spec.label}")
                t0 = time.monotonic()
                pg.initdb(cl)
                pg.start(cl, cgroup)
                _connect(lay, wait_s=30)
                stack.callback(_close, lay)
                if lay.conn is None:
                    raise EnvironmentProblem(lay.dead or f"cannot connect to the server on {spec.label}")
                step(f"load {spec.label}")
                if "oltp-select" in measures or "oltp-tpcb" in measures:
                    oltp.init(cl, profile.oltp_scale)
                if "dss" in measures:
                    dss.prepare(lay.conn, profile.dss_rows, str(cl.temp_dir))
                lay.conn.execute("CHECKPOINT")
                info.load_seconds = time.monotonic() - t0
            oltp_measures = [m for m in measures if m.startswith("oltp")]
            for lay in layouts:
                lay.conn.execute("CHECKPOINT")
                lay.cgroup.drop_cache()
                if oltp_measures:  # reach the workload's steady cache before caps apply (see the module docstring)
                    step(f"prime cache {lay.spec.label}")
                    oltp.run(lay.cluster, "select", profile.oltp_clients, profile.warmup_seconds, workdir)
            step("before-measure hook")
            if request.before_measure:
                hook = proc.run(["sh", "-c", request.before_measure])
                if hook.returncode != 0:
                    raise EnvironmentProblem(f"--before-measure exited {hook.returncode}: "
                                             f"{(hook.stderr or hook.stdout).strip()[-200:]}")
            for measure in measures:
                unit, higher = UNITS[measure]
                for lay in layouts:
                    lay.results[measure] = MeasureResult(measure=measure, unit=unit, higher_is_better=higher)
                    step(f"{measure}: warm-up on {lay.spec.label}")
                    lay.results[measure].warmup = _measure_once(lay, measure, profile, workdir, 0, started, warmup=True)
                n, taken, measure_comps = 0, 0, []
                while n < repeat:
                    n += 1
                    for lay in round_order(layouts, n):
                        step(f"{measure}: run {n} of ≤{repeat} on {lay.spec.label}")
                        lay.results[measure].runs.append(_measure_once(lay, measure, profile, workdir, n, started,
                                                                       warmup=False))
                        _summarise(lay.results[measure])
                    failed = any(r.failed for lay in layouts for r in lay.results[measure].runs)
                    if n in looks or failed:
                        taken += 1
                        measure_comps = _compare(layouts, measure, len(looks), taken)
                        if len(layouts) > 1 and all(c.verdict in SETTLED for c in measure_comps):
                            break
                        if failed:
                            break
                done += (repeat - n) * len(layouts)
                comparisons.extend(measure_comps)
            step("stopping servers", 0)
    except KeyboardInterrupt:
        stopped_by = "interrupted"
    return BenchResult(
        started=result_started, duration_s=time.monotonic() - started, postgres_version=_server_version(bindir),
        measures=measures,
        settings=BenchSettings(profile=profile.name, repeat=repeat, looks_at=looks,
                               memory_limit_bytes=profile.memory_limit_bytes, postgres=settings,
                               oltp_scale=profile.oltp_scale, oltp_clients=profile.oltp_clients,
                               run_seconds=profile.run_seconds, warmup_seconds=profile.warmup_seconds,
                               dss_rows=profile.dss_rows, load_steps=list(profile.load_steps)),
        layouts=[_finish(lay, measures) for lay in layouts], comparisons=comparisons,
        warnings=_warnings(layouts), partial=stopped_by is not None, stopped_by=stopped_by,
    )


def _finish(lay: _Layout, measures: list[MeasureName]) -> LayoutInfo:
    """The layout with its measures (those started; a partial result may lack the rest)."""
    lay.info.measures = [lay.results[m] for m in measures if m in lay.results]
    return lay.info


def _warnings(layouts: list[_Layout]) -> list[str]:
    out = []
    for lay in layouts:
        if not lay.info.devices:
            out.append(f"{lay.spec.label}: {lay.spec.path} is not on a block device ({lay.info.fstype}); "
                       "no device evidence")
        for mr in lay.info.measures:
            hits = [r.evidence.db.hit_ratio for r in mr.runs if r.evidence and r.evidence.db.hit_ratio is not None]
            if mr.measure == "oltp-select" and hits and statistics.median(hits) > 0.99:
                out.append(f"{lay.spec.label} {mr.measure}: buffer hit ratio {statistics.median(hits):.1%}: the data "
                           "fits in memory, so this measured memory, not the layout")
    return out

