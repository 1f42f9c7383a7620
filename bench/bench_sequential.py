"""Benchmark: stopping once the ratio is narrow enough versus a fixed number of rounds, same A/B, in one run.

The A/B: PostgreSQL select-only (pgbench -S, quick profile) on ext4 over two loop devices capped at 300 and 900
read IOPS by cgroup-v1 blkio (made and removed here; caps applied after loading, as the lab does). Each
mode runs the whole bench (initdb, load, warm-up, measured runs) with --repeat R:
- sequential: from the fourth round on, stops once the ratio's 97.5 % interval is within ±10 % (the quick
  profile's precision target), or at R rounds or the profile's time budget;
- fixed: always R rounds, no budget, one look at the end.
Printed: both verdicts, runs used, wall time of each whole bench and of its measured runs alone, and the
ratios sequential / fixed. Target: the same verdict in at most half the time.

    sudo .venv/bin/python -m bench.bench_sequential [--repeat 10]
"""

from __future__ import annotations

import argparse
import time

from blockfit.dbbench.profiles import PROFILES
from blockfit.dbbench.runner import BenchRequest, LayoutSpec, run_bench
from blockfit.schema.bench import BenchResult
from blockfit.testbed.fsbed import ext4_bed

CAPS = [300, 900]


def _measured_seconds(r: BenchResult) -> float:
    return sum(run.seconds for lay in r.layouts for m in lay.measures for run in m.runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    results: dict[str, tuple[BenchResult, float]] = {}
    with ext4_bed(2) as bed:
        bed.enter()  # the servers this process starts inherit the blkio group, so the caps bind them
        hook = bed.cap_hook(CAPS)
        for mode in ("sequential", "fixed"):
            bed.apply_caps([0, 0])  # lifted for loading; the hook applies them before measuring
            layouts = [LayoutSpec(bed.mounts[0], f"{CAPS[0]}-iops"), LayoutSpec(bed.mounts[1], f"{CAPS[1]}-iops")]
            request = BenchRequest(layouts=layouts, measures=["oltp-select"], profile=PROFILES["quick"],
                                   repeat=args.repeat, before_measure=hook, sequential=mode == "sequential")
            t0 = time.monotonic()
            r = run_bench(request, lambda phase, done, total, m=mode: print(f"  {m}: {phase}", flush=True))
            results[mode] = (r, time.monotonic() - t0)
    (seq, seq_s), (fix, fix_s) = results["sequential"], results["fixed"]
    for name, (r, wall) in results.items():
        c = r.comparisons[0]
        print(f"{name:>10}: {c.text}; runs/layout {c.runs_used}, looks {c.looks}, whole bench {wall:.0f} s, "
              f"measured runs {_measured_seconds(r):.0f} s")
    same = seq.comparisons[0].verdict == fix.comparisons[0].verdict
    print(f"same verdict: {'yes' if same else 'NO'}; time sequential/fixed: whole bench {seq_s / fix_s:.2f}, "
          f"measured runs {_measured_seconds(seq) / _measured_seconds(fix):.2f} (target ≤ 0.50)")


if __name__ == "__main__":
    main()
