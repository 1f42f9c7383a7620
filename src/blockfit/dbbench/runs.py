"""One layout's live server and session, and one run of one measure on it with its evidence.

A run is the unit every phase uses: the warm-up's windows and the measured rounds are runs of different
lengths. Each samples the layout's devices and diffs the database's counters around the work, so every figure
a decision reads (throughput, device I/Os per unit of work, the binding resource) comes from the same place.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockfit.dbbench import cluster as pg
from blockfit.dbbench import dss, evidence, load, oltp
from blockfit.dbbench.memcg import MemoryCgroup
from blockfit.dbbench.profiles import Profile
from blockfit.errors import EnvironmentProblem
from blockfit.schema.bench import BenchRun, LayoutInfo, MeasureName, MeasureResult, MemoryEvidence


@dataclass
class LayoutSpec:
    path: Path
    label: str
    cap: evidence.KnownCap | None = None


@dataclass
class Layout:
    """A layout under test while the bench runs: its server, admin session and results so far."""

    spec: LayoutSpec
    info: LayoutInfo
    cluster: pg.Cluster
    cgroup: MemoryCgroup
    conn: Any = None
    dead: str | None = None
    results: dict[str, MeasureResult] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.spec.label


def connect(lay: Layout, wait_s: float = 120.0) -> None:
    """(Re)connect the admin session; after a crash the server may be in recovery for a while."""
    import psycopg

    close(lay)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            lay.conn = psycopg.connect(lay.cluster.conninfo, autocommit=True, connect_timeout=10)
            return
        except psycopg.OperationalError:
            if not lay.cluster.alive() or time.monotonic() > deadline:
                lay.conn = None
                lay.dead = f"server on {lay.label} gone: {lay.cluster.log_tail(3)}"
                return
            time.sleep(0.5)


def close(lay: Layout) -> None:
    if lay.conn is not None:
        with contextlib.suppress(Exception):
            lay.conn.close()


def _work(lay: Layout, run: BenchRun, measure: MeasureName, profile: Profile, workdir: Path, warmup: bool,
          seconds: float | None) -> None:
    """The measure's work for one run, its score and figures written into ``run``."""
    if measure in ("oltp-select", "oltp-tpcb"):
        seconds = seconds or (profile.warmup_seconds if warmup else profile.run_seconds)
        run.figures = oltp.run(lay.cluster, "select" if measure == "oltp-select" else "tpcb", profile.oltp_clients,
                               seconds, workdir)
        run.score = run.figures["tps"]
    elif measure == "dss":
        run.score, run.queries = dss.run(lay.conn, "group by" if warmup else None)
        run.figures = {"temp_written_bytes": float(sum(q.temp_written_bytes for q in run.queries))}
    else:
        run.score, run.steps = load.run(lay.conn, list(profile.load_steps[:1] if warmup else profile.load_steps))


def measure_once(lay: Layout, measure: MeasureName, profile: Profile, workdir: Path, index: int, started: float,
                 warmup: bool, seconds: float | None = None) -> BenchRun:
    """One run of one measure on one layout (a warm-up window when ``warmup``), with the devices sampled and the
    database counters diffed; OLTP runs last ``seconds`` (default: the profile's window or run)."""
    import psycopg

    if lay.dead or lay.conn is None:
        return BenchRun(index=index, started_s=time.monotonic() - started, seconds=0, score=0,
                        failed=lay.dead or "no connection")
    sampler = evidence.DeviceSampler(lay.info.devices).start()
    before = evidence.db_snapshot(lay.conn)
    oom0 = lay.cgroup.oom_kills()
    t0 = time.monotonic()
    run = BenchRun(index=index, started_s=t0 - started, seconds=0, score=0)
    try:
        _work(lay, run, measure, profile, workdir, warmup, seconds)
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
        connect(lay)
    after = evidence.db_snapshot(lay.conn) if lay.conn is not None else before
    memory = MemoryEvidence(limit_bytes=lay.cgroup.limit_bytes, peak_bytes=lay.cgroup.peak_bytes(), oom_kills=ooms,
                            cgroup_version=lay.cgroup.version)
    run.evidence = evidence.judge(capture, cpu, lay.spec.cap, evidence.db_delta(before, after), memory,
                                  lay.info.fs_device)
    return run
