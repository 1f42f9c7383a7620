"""Benchmark: the diskstats counters fast path against the by-index parse it replaced and the full parse.

Issue 39 moved every /proc/diskstats reader into devices/diskstats.py; the fast path (`counters`) must keep
the speed of the inline by-index loop that `history/pg_recording.py` had (one recording holds a million lines:
one per device per sample), and the full parse (`parse_line`, every field checked into a DiskStat) shows what
the fast path saves. All three read the same lines (real ones of the 14, 18 and 20 field layouts with counters
varied) in one process, in alternating rounds so a change in the machine's load falls on all; each figure is
the median CPU time (`time.process_time`) per million lines. Ratios are against the inline loop.

    .venv/bin/python -m bench.diskstats [--lines 200000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from blockfit.devices import diskstats

LINES = (
    "8 0 sda 25354637 34367663 1003346126 18492372 28444756 11134226 505697032 63877960 0 9653880 82621804",
    "259       0 nvme0n1 350368 10216 94989840 133099 1327012 165678 367383712 342754 0 167516 497168 "
    "13669 0 1758032920 52066",
    "254       0 vda 468220 13934 21149580 105710 309403 123761 15425762 39238 0 34596 150075 10592 20 "
    "9904512 4137 37022 988",
)


def inline(lines: list[str]) -> dict[str, tuple[int, int, int, int]]:
    """The loop pg_recording had before issue 39 (its error messages left out: no line here is bad)."""
    out = {}
    for raw in lines:
        f = str(raw).split()
        if len(f) not in (14, 18, 20):
            raise ValueError(len(f))
        out[f[2]] = (int(f[3]), int(f[7]), int(f[5]), int(f[9]))
    return out


def fast(lines: list[str]) -> dict[str, diskstats.Counters]:
    """As pg_recording calls it now (its lines come from JSON, so each is made a str)."""
    return diskstats.counters(map(str, lines))


def full(lines: list[str]) -> dict[str, diskstats.DiskStat]:
    return {s.name: s for s in (diskstats.parse_line(line) for line in lines)}


def make_lines(n: int) -> list[str]:
    out = []
    for k in range(n):
        parts = LINES[k % 3].split()
        out.append(" ".join(parts[:3] + [str(int(v) + k) for v in parts[3:]]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    lines = make_lines(args.lines)
    readers: dict[str, Callable[[list[str]], object]] = {"inline (before)": inline, "counters (fast path)": fast,
                                                        "parse_line (full)": full}
    times: dict[str, list[float]] = {name: [] for name in readers}
    for _ in range(args.rounds):
        for name, read in readers.items():
            t0 = time.process_time()
            read(lines)
            times[name].append((time.process_time() - t0) / len(lines) * 1e6)
    base = statistics.median(times["inline (before)"])
    print(f"{args.lines} lines x {args.rounds} rounds; CPU seconds per million lines (median), ratio to inline")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"  {name:<22} {med:7.2f} s   x{med / base:.2f}")


if __name__ == "__main__":
    main()
