"""Benchmark: `blockfit calibrate` versus an exhaustive fio depth sweep, and blockfit's fio job versus bare fio.

Target: one loop device capped by cgroup-v1 blkio (3,000 IOPS, 60 MB/s; made and removed here). Both sides run
in the same cgroup, one after the other, in one run, and only ratios are printed as results.

1. calibrate (--duration BUDGET) versus an exhaustive sweep: every total outstanding depth 1..64 of 8 KiB random
   reads and 1..16 of 512 KiB random reads, each point with the same warm-up and measured time as a calibrate
   point, then the same rule (highest IOPS whose p99 stays under the bound). Ratios: calibrate's max IOPS at
   the bound / the sweep's, and wall time calibrate / sweep. The bound (p99 <= 5 ms) is chosen to bind on this
   target: blkio throttling releases I/Os in ~100 ms slices, so p99 jumps past 5 ms at a few outstanding I/Os.
2. blockfit's fio job (rendered job file, run through fio_run: json+, bins, separate stderr, own session) versus
   the same workload run bare (``fio --name=... --rw=randread ... --output-format=json``, no extra options),
   interleaved, three times each, on the capped device and on an uncapped loop device (where per-I/O
   overhead, if any, would show). Ratio of median IOPS.

    .venv/bin/python -m bench.calibrate_vs_sweep [--budget 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from blockfit.measure.calibrate import CalibrateOptions, calibrate
from blockfit.measure.fio_job import JobSpec, render_job
from blockfit.measure.fio_run import run_fio
from blockfit.measure.histogram import LatencyHistogram
from blockfit.measure.results import job_stats
from blockfit.measure.search import SearchPlan
from blockfit.testbed.loopdev import loop_device, throttled_loops

GiB = 1024**3
BOUND_MS, PCT = 5.0, 99.0


def sweep_point(dev: str, launcher: list[str], workdir: Path, phase: str, depth: int, ramp: float,
                runtime: float) -> tuple[float, float, float]:
    """(IOPS, MB/s, p99 ms) of one depth, with the same job file calibrate would run."""
    spec = JobSpec(phase=phase, files=[dev], io_size=8192 if phase == "small" else 512 * 1024, outstanding=depth,
                   ramp_s=ramp, runtime_s=runtime)
    job = workdir / f"sweep-{phase}-{depth}.fio"
    job.write_text(render_job(spec))
    stats = job_stats(run_fio(["--readonly", str(job)], workdir, tag=job.stem, launcher=launcher).data)
    hist = LatencyHistogram.merged(s.histogram for s in stats)
    return sum(s.iops for s in stats), sum(s.bw_bytes for s in stats) / 1e6, hist.percentile_ns(PCT) / 1e6


def part1(budget: float) -> None:
    plan = SearchPlan(max_latency_ms=BOUND_MS, percentile=PCT, budget_s=budget)
    with throttled_loops(1, 4 * GiB, read_iops=3000, read_bps=60_000_000, name="calibrate-bench") as tl:
        dev, launcher = tl.paths[0], tl.cgroup.launcher()
        t0 = time.monotonic()
        m = calibrate([dev], CalibrateOptions(duration_s=budget, max_latency_ms=BOUND_MS, percentile=PCT,
                                              large_io=512 * 1024, launcher=launcher))
        t_cal = time.monotonic() - t0
        with tempfile.TemporaryDirectory(prefix="blockfit-calibrate-bench-") as tmp:
            t0 = time.monotonic()
            small = [(d, *sweep_point(dev, launcher, Path(tmp), "small", d, plan.ramp_s, plan.runtime_s))
                     for d in range(1, 65)]
            t_small = time.monotonic() - t0
            large = [(d, *sweep_point(dev, launcher, Path(tmp), "large", d, plan.ramp_s, plan.runtime_s))
                     for d in range(1, 17)]
            t_sweep = time.monotonic() - t0
    good = [(iops, d) for d, iops, _, p in small if p <= BOUND_MS]
    sweep_iops, sweep_depth = max(good) if good else (0.0, 0)
    sweep_mbps = max(mbps for _, _, mbps, _ in large)
    print(f"part 1: calibrate --duration {budget:g}s versus an exhaustive sweep (small depths 1-64, large 1-16, "
          f"{plan.ramp_s:g}s warm-up + {plan.runtime_s:g}s per point), bound p{PCT:g} <= {BOUND_MS:g} ms")
    print(f"  calibrate: max IOPS at bound {m.max_iops:,.0f} (depth {m.outstanding_at_max_iops}), "
          f"max MB/s {m.max_mbps:.1f}, {len(m.curve)} points")
    print(f"  sweep:     max IOPS at bound {sweep_iops:,.0f} (depth {sweep_depth}), max MB/s {sweep_mbps:.1f}, "
          f"{len(small) + len(large)} points; depths over the bound: "
          f"{[d for d, _, _, p in small if p > BOUND_MS][:12]}...")
    print(f"  ratio max-IOPS-at-latency calibrate/sweep = {m.max_iops / sweep_iops:.3f}")
    print(f"  ratio max MB/s calibrate/sweep            = {m.max_mbps / sweep_mbps:.3f}")
    print(f"  ratio wall time calibrate/sweep           = {t_cal / t_sweep:.3f}  "
          f"(versus the small-I/O half of the sweep alone: {t_cal / t_small:.3f})")


def bare_fio(dev: str, launcher: list[str], depth: int) -> float:
    cmd = [*launcher, "fio", "--name=bare", f"--filename={dev}", "--rw=randread", "--bs=8k", "--direct=1",
           "--ioengine=io_uring", f"--iodepth={depth}", "--time_based", "--ramp_time=1", "--runtime=3",
           "--readonly", "--output-format=json"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return float(json.loads(out[out.index("{"):])["jobs"][0]["read"]["iops"])


def blockfit_fio(dev: str, launcher: list[str], depth: int, workdir: Path) -> float:
    spec = JobSpec(phase="small", files=[dev], io_size=8192, outstanding=depth, ramp_s=1, runtime_s=3)
    job = workdir / "job.fio"
    job.write_text(render_job(spec))
    return sum(s.iops for s in job_stats(run_fio(["--readonly", str(job)], workdir, launcher=launcher).data))


def _spread(ours: list[float], bare: list[float]) -> str:
    """Run-to-run spread (max-min over median) of each side: the noise floor the ratio sits in."""
    def spread(xs: list[float]) -> float:
        return (max(xs) - min(xs)) / statistics.median(xs)

    return f"(run-to-run spread: blockfit {spread(ours):.1%}, bare {spread(bare):.1%})"


def part2() -> None:
    print("part 2: blockfit's fio job versus the same workload run bare (8 KiB randread, 8 outstanding, 3 s, "
          "interleaved x5)")
    with tempfile.TemporaryDirectory(prefix="blockfit-calibrate-bench-") as tmp:
        with throttled_loops(1, 4 * GiB, read_iops=3000, name="calibrate-bench") as tl:
            ours, bare = [], []
            for _ in range(5):
                ours.append(blockfit_fio(tl.paths[0], tl.cgroup.launcher(), 8, Path(tmp)))
                bare.append(bare_fio(tl.paths[0], tl.cgroup.launcher(), 8))
            print(f"  capped loop (3,000 IOPS):  ratio blockfit/bare median IOPS = "
                  f"{statistics.median(ours) / statistics.median(bare):.3f}  {_spread(ours, bare)}")
        with loop_device(4 * GiB, name="calibrate-bench") as dev:
            ours, bare = [], []
            for _ in range(5):
                ours.append(blockfit_fio(dev.path, [], 8, Path(tmp)))
                bare.append(bare_fio(dev.path, [], 8))
            print(f"  uncapped loop (CPU-bound): ratio blockfit/bare median IOPS = "
                  f"{statistics.median(ours) / statistics.median(bare):.3f}  {_spread(ours, bare)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=float, default=30.0, help="calibrate --duration, seconds")
    parser.add_argument("--part", choices=["1", "2", "both"], default="both")
    args = parser.parse_args()
    if args.part in ("1", "both"):
        part1(args.budget)
    if args.part in ("2", "both"):
        part2()


if __name__ == "__main__":
    main()
