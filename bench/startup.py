"""Benchmark: start-up of `blockfit --help` and `blockfit model ... --json`, this tree against another, side by side.

The other tree is a git revision (default `main`) checked out into a temporary worktree; both run with the
same interpreter and venv, each with its own `src` first on PYTHONPATH, bytecode compiled beforehand (as an
install has it). The runs alternate A B A B ... so a change in the machine's load falls on both; each figure
is the median of N runs: wall time (from start to exit) and CPU time (user + system of the child, which
load inflates less than wall). Ratios are this tree / the other.

    .venv/bin/python -m bench.startup [--against main] [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "--help": ["--help"],
    "model --json": ["model", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--json"],
}


def _env(src: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(src)}


def run_once(src: Path, args: list[str]) -> tuple[float, float]:
    """(wall s, cpu s) of one `python -m blockfit ARGS` with blockfit imported from SRC."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "blockfit", *args], env=_env(src), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="main", help="git revision to compare with (default: main)")
    parser.add_argument("--runs", type=int, default=10)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="blockfit-startup-") as tmp:
        other = Path(tmp) / "other"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(other), opts.against],
                       check=True)
        try:
            trees = {"this": ROOT / "src", opts.against: other / "src"}
            for src in trees.values():
                subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True)
            print(f"{'command':<14} {'tree':<10} {'wall s':>8} {'cpu s':>8}   (median of {opts.runs})")
            for name, args in COMMANDS.items():
                for src in trees.values():  # warm the page cache and the bytecode
                    run_once(src, args)
                samples: dict[str, list[tuple[float, float]]] = {label: [] for label in trees}
                for _ in range(opts.runs):
                    for label, src in trees.items():
                        samples[label].append(run_once(src, args))
                medians = {label: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s))
                           for label, s in samples.items()}
                for label, (wall, cpu) in medians.items():
                    print(f"{name:<14} {label:<10} {wall:8.3f} {cpu:8.3f}")
                (w_a, c_a), (w_b, c_b) = medians["this"], medians[opts.against]
                print(f"{name:<14} {'ratio':<10} {w_a / w_b:8.2f} {c_a / c_b:8.2f}   (this / {opts.against})")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(other)], check=False)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
