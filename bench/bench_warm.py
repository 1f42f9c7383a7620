"""Benchmark: `blockfit bench`'s default profile today (fixed warm-up, stop once the direction is settled) against
warm-up by evidence and a ratio measured to ±10 %, on the same A/B, side by side in one run.

The A/B is issue 28's: PostgreSQL select-only (quick profile) on ext4 over two loop devices capped by cgroup-v1
blkio at 250 and 1,000 read IOPS from the start, as on a real server (the caps are in force while loading and
warming too; `--hook` applies them only before the measured runs, as the lab does). `--aa` compares the first
device with itself instead (caps 600). "today" is the bench of another revision (default: the last one before
warm-up by evidence), run from a git worktree made and removed here; "new" is this checkout's. The two
alternate, `--times` each, on the same devices.

Printed per bench: wall time, the ratio with its interval, the interval's half-width, pairs, each layout's first
and last measured run; then per side the medians and the ratio of wall times new / today.

    sudo .venv/bin/python -m bench.bench_warm [--times 5] [--aa] [--hook] [--baseline REV] [--only-new] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from blockfit.testbed.fsbed import Bed, ext4_bed

REPO = Path(__file__).resolve().parents[1]
BASELINE = "b24de5d"  # main before issue 28
CAPS, AA_CAP = [250, 1000], 600


@contextlib.contextmanager
def worktree(rev: str) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="blockfit-bench-warm-", dir="/var/tmp"))
    path.chmod(0o755)
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(path / "src-tree"), rev],
                   check=True)
    try:
        yield path / "src-tree" / "src"
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(path / "src-tree")], check=False)
        subprocess.run(["rm", "-rf", str(path)], check=False)


def bench(bed: Bed, src: Path, args: argparse.Namespace) -> tuple[dict, float]:
    """One whole bench with the blockfit under ``src``, inside the blkio group; (its result, wall seconds)."""
    a, b = (bed.mounts[0], bed.mounts[0]) if args.aa else (bed.mounts[0], bed.mounts[1])
    caps = [AA_CAP] if args.aa else CAPS
    argv = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(src)!r}); from blockfit.cli import main; "
            "main()", "bench", "--dir", f"{a}=A", "--dir", f"{b}=B", "--workload", "oltp-select", "--json"]
    if args.hook:
        bed.apply_caps([0] * len(caps))
        argv += ["--before-measure", bed.cap_hook(caps)]
    else:
        bed.apply_caps(caps)
    t0 = time.monotonic()
    out = subprocess.run(bed.cgroup.wrap(argv), env=bed.env(), capture_output=True, text=True, check=False)
    wall = time.monotonic() - t0
    if out.returncode != 0:
        raise SystemExit(f"bench failed (exit {out.returncode}): {out.stderr[-400:]}")
    return json.loads(out.stdout), wall


def _at_cap(lay: dict) -> str:
    runs = lay["measures"][0]["runs"]
    return f"{sum(x['evidence']['binding'] == 'iops_cap' for x in runs)}/{len(runs)}"


def line(name: str, r: dict, wall: float, expected: float) -> dict[str, float]:
    c = r["comparisons"][0]
    half = 100 * max(c["ci_high"] / c["ratio"] - 1, c["ratio"] / c["ci_low"] - 1)
    first_last = {lay["label"]: 100 * (lay["measures"][0]["runs"][-1]["score"] / lay["measures"][0]["runs"][0]["score"]
                                       - 1) for lay in r["layouts"]}
    print(f"{name:>5}: {wall:5.0f} s  {c['ratio']:.2f} [{c['ci_low']:.2f}, {c['ci_high']:.2f}] ±{half:.0f} %, "
          f"{c['runs_used']} pairs, {c['verdict']}; first to last run "
          + ", ".join(f"{k} {v:+.1f} %" for k, v in first_last.items()) + "; held by the IOPS cap: "
          + ", ".join(f"{lay['label']} {_at_cap(lay)}" for lay in r["layouts"]), flush=True)
    return {"wall": wall, "ratio": c["ratio"], "half": half, "contains": float(c["ci_low"] <= expected <= c["ci_high"]),
            "flat": float(all(abs(v) <= 5 for v in first_last.values()))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--times", type=int, default=1)
    ap.add_argument("--aa", action="store_true", help="the first device against itself")
    ap.add_argument("--hook", action="store_true", help="caps applied by --before-measure, not from the start")
    ap.add_argument("--baseline", default=BASELINE, help="the revision 'today' runs (default %(default)s)")
    ap.add_argument("--only-new", action="store_true", help="skip today's bench")
    ap.add_argument("--keep", type=Path, help="write each bench's result JSON into this directory")
    args = ap.parse_args()
    sides: dict[str, list[dict[str, float]]] = {"today": [], "new": []}
    tag = "-aa" if args.aa else ""
    with worktree(args.baseline) as old_src, ext4_bed(1 if args.aa else 2) as bed:
        for _ in range(args.times):
            for name, src in (("today", old_src), ("new", REPO / "src")):
                if name == "today" and args.only_new:
                    continue
                r, wall = bench(bed, src, args)
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    n = len(sides[name]) + 1
                    (args.keep / f"{name}{tag}-{n}.json").write_text(json.dumps(r, indent=1))
                sides[name].append(line(name + tag, r, wall, 1.0 if args.aa else CAPS[1] / CAPS[0]))
    for name, rows in sides.items():
        if rows:
            med = {k: statistics.median(row[k] for row in rows) for k in ("wall", "ratio", "half")}
            print(f"{name:>5}: median wall {med['wall']:.0f} s, ratio {med['ratio']:.2f}, ±{med['half']:.0f} %; "
                  f"interval holds {'1' if args.aa else '4'}: {sum(r['contains'] for r in rows):.0f}/{len(rows)}; "
                  f"first/last within 5 %: {sum(r['flat'] for r in rows):.0f}/{len(rows)}")
    if sides["today"] and sides["new"]:
        new, old = (statistics.median(r["wall"] for r in sides[k]) for k in ("new", "today"))
        print(f"wall time new / today: {new / old:.2f}")


if __name__ == "__main__":
    main()
