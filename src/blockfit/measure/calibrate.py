"""``calibrate(targets, options) -> Measurement``: CALIBRATE_IO's triplet, measured with fio, with the evidence.

Flow: check and describe the targets → pick the fio engine → lay out a test file if we create one → run the
search (search.py), one fio run per data point → summarize. Temporary files (job files, fio output, a test file
we created) live in one temp directory / are deleted in ``finally``; fio runs in its own process group that
fio_run kills on any exception. On Ctrl-C or a fio failure after the first point, the partial curve is
returned with ``partial=True`` and the reason in ``stopped_by``.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from blockfit.devices import diskstats
from blockfit.devices.facts import device_facts
from blockfit.errors import EnvironmentProblem, ValueProblem
from blockfit.inputs import named_twice
from blockfit.measure.fio_job import JobSpec, layout_args, probe_args, render_job, split_outstanding
from blockfit.measure.fio_run import FioFailed, fio_binary, fio_version, run_fio
from blockfit.measure.histogram import LatencyHistogram
from blockfit.measure.multihost import Host, check_reachable, client_args, host_index, parse_host
from blockfit.measure.results import JobStats, job_stats
from blockfit.measure.search import Search, SearchPlan, summarize
from blockfit.measure.targets import Target, resolve_targets
from blockfit.schema.measurement import DeviceFacts, MeasuredPoint, Measurement
from blockfit.units import GIB, MB, MIB

ProgressFn = Callable[[float, float, str], None]  # (elapsed seconds, budget seconds, what is running)

MEMORY_SPEED_NS = 50_000  # a median read latency under 50 µs at one outstanding I/O is not a disk


@dataclass
class CalibrateOptions:
    max_latency_ms: float = 20.0
    percentile: float = 95.0
    small_io: int = 8 * 1024
    large_io: int = MIB
    duration_s: float = 60.0
    size_bytes: int = 4 * GIB
    allow_write: bool = False
    write_pct: int = 0
    hosts: list[str] = field(default_factory=list)
    engine: str | None = None  # None: io_uring if it works on the target, else libaio
    launcher: list[str] = field(default_factory=list)  # prefix for fio's command line (e.g. a cgroup wrapper)
    max_small_outstanding: int = 256
    max_large_outstanding: int = 64
    fio: str = "fio"
    drain_s: float = 0.0  # --sustained: saturate this long first, so a bursting volume's credits are spent

    def validate(self) -> None:
        """Every option's value, one check each (the command line runs each under its option's name)."""
        for check in self.checks().values():
            check()

    def checks(self) -> dict[str, Callable[[], None]]:
        """Each check by the field it is about ('small_io,large_io': the two sizes together)."""
        return {"percentile": self._check_percentile, "max_latency_ms": self._check_latency,
                "write_pct": self._check_write, "duration_s": self._check_duration,
                "small_io,large_io": self._check_io_sizes, "engine": self._check_engine, "hosts": self._check_hosts}

    def _check_percentile(self) -> None:
        if not 0 < self.percentile < 100:
            raise ValueProblem(f"{self.percentile}: expected a number between 0 and 100 (e.g. 95, 99.9)")

    def _check_latency(self) -> None:
        if self.max_latency_ms <= 0:
            raise ValueProblem(f"{self.max_latency_ms} ms: expected a positive duration")

    def _check_write(self) -> None:
        if not 0 <= self.write_pct <= 100:
            raise ValueProblem(f"{self.write_pct}: expected a percentage from 0 to 100")

    def _check_duration(self) -> None:
        if self.duration_s < 5:
            raise ValueProblem(f"{self.duration_s:g}s: expected at least 5s")

    def _check_io_sizes(self) -> None:
        if self.small_io > self.large_io:
            raise ValueProblem(f"{self.small_io},{self.large_io}: expected SMALL no larger than LARGE")

    def _check_hosts(self) -> None:
        hosts = [parse_host(h) for h in self.hosts]
        twice = named_twice(hosts)
        if twice is not None:
            raise ValueProblem(f"{twice.label} is named twice")

    def _check_engine(self) -> None:
        if self.engine not in (None, "io_uring", "libaio", "psync"):
            raise ValueProblem(f"{self.engine!r}: expected io_uring, libaio or psync")


def _diskstats() -> dict[str, int]:
    """Completed reads + writes per block device name (the diskstats fast path)."""
    with contextlib.suppress(OSError):
        return {name: reads + writes for name, (reads, writes, _, _, _) in diskstats.read_counters().items()}
    return {}


@dataclass
class Runner:
    """Runs one data point with fio and turns its JSON into a MeasuredPoint."""

    targets: list[Target]
    options: CalibrateOptions
    hosts: list[Host]
    engine: str
    direct: bool
    workdir: Path
    large_engine: str = ""  # "" = engine
    job_files: dict[tuple[str, int], str] = field(default_factory=dict)
    progress: ProgressFn | None = None
    clock_start: float = field(default_factory=time.monotonic)
    runs: int = 0

    def _spec(self, phase: str, outstanding: int, ramp_s: float, runtime_s: float) -> JobSpec:
        return JobSpec(phase=phase, files=[t.path for t in self.targets],
                       io_size=self.options.small_io if phase == "small" else self.options.large_io,
                       outstanding=outstanding, engine=(self.large_engine or self.engine) if phase == "large"
                       else self.engine, direct=self.direct, ramp_s=ramp_s,
                       runtime_s=runtime_s, write_pct=self.options.write_pct)

    def measure(self, phase: str, outstanding: int, ramp_s: float, runtime_s: float) -> MeasuredPoint:
        if self.progress:
            self.progress(time.monotonic() - self.clock_start, self.options.duration_s,
                          f"{phase} I/O, {outstanding} outstanding")
        self.runs += 1
        tag = f"p{self.runs:03d}-{phase}-{outstanding}"
        if self.hosts:
            files, texts = [], []
            for i, share in enumerate(split_outstanding(outstanding, len(self.hosts))):
                spec = self._spec(phase, share, ramp_s, runtime_s)
                spec.name_prefix = f"h{i}-"
                text = render_job(spec)
                path = self.workdir / f"{tag}-h{i}.fio"
                path.write_text(text)
                files.append(path)
                texts.append(f"# host {self.hosts[i].label}\n{text}")
            # hosts beyond the outstanding count get no job; drive only those with a share
            args = client_args(self.hosts[: len(files)], files)
            self.job_files[(phase, outstanding)] = "\n".join(texts)
        else:
            text = render_job(self._spec(phase, outstanding, ramp_s, runtime_s))
            path = self.workdir / f"{tag}.fio"
            path.write_text(text)
            args = [str(path)]
            self.job_files[(phase, outstanding)] = text
            if self.options.write_pct == 0:
                args.insert(0, "--readonly")
        members = {t.path: os.path.basename(os.path.realpath(t.path)) for t in self.targets if t.kind == "block"}
        before = _diskstats() if len(members) > 1 else {}
        timeout = 60 + 3 * (ramp_s + runtime_s)
        out = run_fio(args, self.workdir, tag=tag, launcher=self.options.launcher, fio=self.options.fio,
                      timeout=timeout)
        after = _diskstats() if len(members) > 1 else {}
        return self._point(phase, outstanding, out.data, before, after, members)

    def _point(self, phase: str, outstanding: int, data: dict, before: dict[str, int], after: dict[str, int],
               members: dict[str, str]) -> MeasuredPoint:
        stats = job_stats(data)
        if not stats:
            raise FioFailed("fio reported no jobs")
        hist = LatencyHistogram.merged(s.histogram for s in stats)
        iops = sum(s.iops for s in stats)
        mean = sum(s.iops_mean for s in stats)
        sd = sum(s.iops_stddev**2 for s in stats) ** 0.5
        ms = 1e-6
        return MeasuredPoint(
            phase=phase, outstanding=outstanding,
            io_size=self.options.small_io if phase == "small" else self.options.large_io,
            iops=iops, mbps=sum(s.bw_bytes for s in stats) / MB,
            p50_ms=hist.percentile_ns(50) * ms, p95_ms=hist.percentile_ns(95) * ms,
            p99_ms=hist.percentile_ns(99) * ms, percentile_ms=hist.percentile_ns(self.options.percentile) * ms,
            avg_ms=hist.mean_ns() * ms, steady=True, iops_cv=(sd / mean) if mean > 0 else 0.0,
            seconds=max(s.runtime_ms for s in stats) / 1000, ios=hist.count,
            member_share=_member_share(before, after, members), host_iops=self._host_iops(stats))

    def _host_iops(self, stats: list[JobStats]) -> dict[str, float]:
        """IOPS per host of a multi-host run, by the host label its jobs carry (empty for a local run)."""
        host_iops: dict[str, float] = {}
        if self.hosts:
            for s in stats:
                idx = host_index(s.name)
                label = self.hosts[idx].label if idx is not None and idx < len(self.hosts) else str(s.hostname)
                host_iops[label] = host_iops.get(label, 0.0) + s.iops
        return host_iops


def _member_share(before: dict[str, int], after: dict[str, int], members: dict[str, str]) -> dict[str, float]:
    """Each member's share of the I/Os the members completed in the point (empty: not counted, or none done)."""
    if not (before and after):
        return {}
    deltas = {path: after.get(name, 0) - before.get(name, 0) for path, name in members.items()}
    total = sum(deltas.values())
    return {path: d / total for path, d in deltas.items()} if total > 0 else {}


WORKDIR_PREFIX = "blockfit-calibrate-"


def _workdir() -> Path:
    """A private temp directory for job files and fio output: $TMPDIR, else /dev/shm or /run (read-only roots).
    It carries an owner marker; one left by a calibrate that was killed outright is removed here."""
    from blockfit.files import mark_owned, sweep_left_behind

    for base in (None, "/dev/shm", "/run"):
        try:
            work = Path(tempfile.mkdtemp(prefix=WORKDIR_PREFIX, dir=base))
        except OSError:
            continue
        mark_owned(work)   # first: a calibrate that starts beside this one sees it alive
        sweep_left_behind(work.parent, WORKDIR_PREFIX + "*", "calibrate: temp folder", work.parent)
        return work
    raise EnvironmentProblem("no writable temp directory for fio's job files (set TMPDIR)")


def probe_engine(target: Target, options: CalibrateOptions, workdir: Path, direct: bool) -> str:
    """io_uring if a tiny read works with it on this target and kernel, else libaio."""
    if options.engine:
        return options.engine
    errors = []
    for engine in ("io_uring", "libaio"):
        args = probe_args(str(target.path), engine, options.small_io, direct)
        try:
            run_fio(args, workdir, tag=f"probe-{engine}", launcher=options.launcher, fio=options.fio, timeout=60)
            return engine
        except FioFailed as exc:
            errors.append(f"{engine}: {exc}")
    raise EnvironmentProblem(f"fio cannot read {target.given} with io_uring or libaio ({'; '.join(errors)})")


def large_io_engine(engine: str, options: CalibrateOptions, facts: list[DeviceFacts], notes: list[str]) -> str:
    """libaio instead of io_uring for large I/Os the device splits, unless the user chose the engine.

    io_uring first issues a block-device read without blocking; a read split in two by the device's request
    limit and held by blk-throttle is charged twice (measured on a loop device capped at 60 MB/s: 1 MiB reads
    at 30 MB/s with io_uring at every depth, 60 MB/s with libaio, and /sys/block/loopN/stat counting only the
    bytes fio reported). libaio's blocking submission is charged once.
    """
    limits = [f.max_io_bytes for f in facts if f.max_io_bytes]
    if options.engine or engine != "io_uring" or not limits or options.large_io <= min(limits):
        return ""
    notes.append(f"large I/Os ({options.large_io // 1024} KiB) exceed the device's largest request "
                 f"({min(limits) // 1024} KiB) and are split: the large-I/O phase uses libaio, as io_uring's "
                 "split reads can be charged twice by a throttle")
    return "libaio"


def lay_out(target: Target, options: CalibrateOptions, workdir: Path, direct: bool) -> None:
    """Write our test file fully, so reads hit allocated blocks (holes would read as zeros without I/O)."""
    args = layout_args(str(target.path), target.size_bytes, direct)
    run_fio(args, workdir, tag="layout", launcher=options.launcher, fio=options.fio, timeout=3600)


def _facts(targets: list[Target]) -> list[DeviceFacts]:
    facts = []
    for t in targets:
        if t.kind == "remote" or not os.path.exists(t.path):
            facts.append(DeviceFacts(path=t.path, kind="remote" if t.kind == "remote" else t.kind))
            continue
        f = device_facts(t.path)
        f.filesystem = t.filesystem
        if t.kind == "file":
            f.size_bytes = t.size_bytes
        facts.append(f)
    return facts


def _warnings(measurement: Measurement, targets: list[Target], notes: list[str]) -> list[str]:
    small = [p for p in measurement.curve if p.phase == "small"]
    first = min(small, key=lambda p: p.outstanding) if small else None
    return (list(notes) + _page_cache_warnings(measurement) + _memory_speed_warnings(first)
            + _size_warnings(measurement, targets) + _bound_warnings(measurement, small, first)
            + _burst_warnings(measurement) + _unsteady_warnings(measurement))


def _page_cache_warnings(measurement: Measurement) -> list[str]:
    """Reads that went through a page cache: the target's (no O_DIRECT) or a loop device's backing file's."""
    out = []
    if not measurement.direct:
        out.append("page cache in play: the target's filesystem refused O_DIRECT, so fio read through the "
                   "page cache; figures describe memory as much as the device")
    for f in measurement.device_facts:
        if f.loop_direct_io is False:
            out.append(f"page cache in play: {f.device} is a loop device without direct I/O, so its reads "
                       "may come from the host's page cache")
    return out


def _memory_speed_warnings(first: MeasuredPoint | None) -> list[str]:
    """The shallowest small-I/O point answered at memory speed: a cache served it, not the device."""
    if first is not None and first.p50_ms * 1e6 < MEMORY_SPEED_NS:
        return [f"median latency at {first.outstanding} outstanding I/O is {first.p50_ms * 1000:.0f} µs, memory "
                "speed: unless the device is that fast, a cache (controller, host, or a sparse/unwritten "
                "backing) is serving the reads; use a target larger than any cache in the path"]
    return []


def _size_warnings(measurement: Measurement, targets: list[Target]) -> list[str]:
    """Targets small enough for a device, host or page cache to hold whole."""
    out = []
    total_mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for t in targets:
        if t.kind != "remote" and 0 < t.size_bytes < GIB:
            out.append(f"{t.given} is only {t.size_bytes / MIB:.0f} MiB: small enough for a device or host cache "
                       "to hold it entirely")
        elif not measurement.direct and t.size_bytes < 2 * total_mem:
            out.append(f"{t.given} ({t.size_bytes / GIB:.1f} GiB) is smaller than twice this machine's memory: "
                       "the page cache can hold it")
    return out


def _bound_warnings(measurement: Measurement, small: list[MeasuredPoint], first: MeasuredPoint | None) -> list[str]:
    if not small or measurement.bound_met:
        return []
    return [f"latency bound never met: even {first.outstanding if first else 1} outstanding I/O had "
            f"p{measurement.percentile:g} = {measurement.latency_ms:.2f} ms > {measurement.max_latency_ms:g} ms;"
            " max_iops is the IOPS at that depth"]


def _burst_warnings(measurement: Measurement) -> list[str]:
    """A curve flat at some depths that gains again deeper: a rate limiter releasing I/O in bursts."""
    out = []
    for phase in ("small", "large"):
        sweep = [p for p in measurement.curve if p.phase == phase and p.gain is not None]
        flat = [p.outstanding for p in sweep if p.flat]
        regained = [p.outstanding for p in sweep if not p.flat and flat and p.outstanding > min(flat)]
        if flat and regained:
            out.append(f"{phase} I/O: the curve was flat at {', '.join(map(str, flat))} outstanding and gained "
                       f"again at {', '.join(map(str, regained))}: a rate limiter releasing I/O in bursts; the "
                       "search went past the flat steps")
    return out


def _unsteady_warnings(measurement: Measurement) -> list[str]:
    unsteady = [p for p in measurement.curve if not p.steady]
    if not unsteady:
        return []
    return [f"{len(unsteady)} of {len(measurement.curve)} points did not reach steady state "
            f"(IOPS varied by more than the tolerance): " +
            ", ".join(f"{p.phase}@{p.outstanding}" for p in unsteady)]


@dataclass
class Session:
    """Checked targets, the chosen engine and a temp directory: what every data point needs."""

    runner: Runner
    resolved: list[Target]
    hosts: list[Host]
    version: str
    notes: list[str]
    started: float


@contextlib.contextmanager
def session(targets: list[str], options: CalibrateOptions, progress: ProgressFn | None = None) -> Iterator[Session]:
    """Check targets and hosts, lay out a test file if needed, pick the engine; clean everything up on exit."""
    options.validate()
    fio_binary(options.fio)
    version = fio_version(options.fio)
    hosts = [parse_host(h) for h in options.hosts]
    notes: list[str] = []
    resolved = resolve_targets(list(targets), size_bytes=options.size_bytes, write_pct=options.write_pct,
                               allow_write=options.allow_write, remote=bool(hosts), warnings=notes)
    if hosts:
        check_reachable(hosts)
    direct = all(t.direct_ok for t in resolved)
    workdir = _workdir()
    started = time.monotonic()
    try:
        for t in resolved:
            if t.created:
                if progress:
                    progress(0.0, options.duration_s, f"laying out {t.size_bytes / GIB:.1f} GiB test file")
                lay_out(t, options, workdir, direct)
        engine = options.engine or ("io_uring" if hosts else probe_engine(resolved[0], options, workdir, direct))
        runner = Runner(targets=resolved, options=options, hosts=hosts, engine=engine, direct=direct,
                        workdir=workdir, progress=progress,
                        large_engine=large_io_engine(engine, options, _facts(resolved), notes))
        yield Session(runner=runner, resolved=resolved, hosts=hosts, version=version, notes=notes, started=started)
    finally:
        for t in resolved:
            if t.created:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(t.path)
        shutil.rmtree(workdir, ignore_errors=True)


def measure_point(targets: list[str], options: CalibrateOptions, phase: str, outstanding: int,
                  ramp_s: float = 1.0, runtime_s: float = 3.0) -> MeasuredPoint:
    """One data point at a fixed total of outstanding I/Os (for checks, benches and multi-host tests)."""
    with session(targets, options) as s:
        return s.runner.measure(phase, outstanding, ramp_s, runtime_s)


def calibrate(targets: list[str], options: CalibrateOptions | None = None,
              progress: ProgressFn | None = None) -> Measurement:
    """Measure max IOPS at a latency bound, max MB/s and the latency at max IOPS on ``targets`` (see module doc)."""
    options = options or CalibrateOptions()
    points: list[MeasuredPoint] = []
    stopped_by: str | None = None
    with session(targets, options, progress) as s:
        plan = SearchPlan(max_latency_ms=options.max_latency_ms, percentile=options.percentile,
                          budget_s=options.duration_s, max_small_outstanding=options.max_small_outstanding,
                          max_large_outstanding=options.max_large_outstanding, members=len(s.resolved))
        search = Search(plan=plan, measure=s.runner.measure, points=points)
        try:
            if options.drain_s > 0:   # spend the burst credits; the search's windows then see the sustained caps
                if progress:
                    progress(0.0, options.duration_s, f"spending burst credits ({options.drain_s:,.0f} s)")
                s.runner.measure("small", options.max_small_outstanding, 0.0, options.drain_s)
            search.run()
        except KeyboardInterrupt:
            if not points:
                raise
            stopped_by = "interrupted"
        except FioFailed as exc:
            if not points:
                raise
            stopped_by = f"fio failed: {exc}"
        if progress:
            progress(options.duration_s, options.duration_s, "done")
        return _measurement(list(targets), s, options, points, s.notes + search.notes, stopped_by,
                            time.monotonic() - s.started)


def _measurement(given: list[str], s: Session, options: CalibrateOptions, points: list[MeasuredPoint],
                 notes: list[str], stopped_by: str | None, elapsed: float) -> Measurement:
    runner, resolved, hosts = s.runner, s.resolved, s.hosts
    summary = summarize(points)
    small, large = summary.max_iops_point, summary.max_mbps_point
    job_files = {}
    if small is not None:
        job_files["max_iops"] = runner.job_files.get(("small", small.outstanding), "")
    if large is not None:
        job_files["max_mbps"] = runner.job_files.get(("large", large.outstanding), "")
    m = Measurement(
        targets=given, hosts=[h.label for h in hosts],
        max_iops=small.iops if small else 0.0, max_mbps=large.mbps if large else 0.0,
        latency_ms=small.percentile_ms if small else 0.0, avg_latency_ms=small.avg_ms if small else 0.0,
        outstanding_at_max_iops=small.outstanding if small else 0,
        outstanding_at_max_mbps=large.outstanding if large else 0,
        saturation_iops=summary.saturation_iops, bound_met=summary.bound_met,
        max_latency_ms=options.max_latency_ms, percentile=options.percentile, small_io=options.small_io,
        large_io=options.large_io, write_pct=options.write_pct, curve=points,
        member_share_at_max_iops=small.member_share if small else {},
        member_share_at_max_mbps=large.member_share if large else {},
        host_iops_at_max_iops=small.host_iops if small else {},
        fio_version=s.version, engine=runner.engine, large_engine=runner.large_engine or None, direct=runner.direct,
        job_files=job_files,
        kernel=platform.release(),
        device_facts=_facts(resolved), duration_budget_s=options.duration_s, elapsed_s=round(elapsed, 2),
        partial=stopped_by is not None, stopped_by=stopped_by)
    m.warnings = _warnings(m, resolved, notes)
    if stopped_by:
        m.warnings.insert(0, f"partial result: {stopped_by}")
    return m
