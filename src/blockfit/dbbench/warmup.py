"""Warm-up by evidence: each layout runs warm-up windows until its state stops changing, or its budget ends.

Why not a fixed time: a fixed time gives the faster layout more warming (4x the transactions at 4x the IOPS),
so the slower one starts its measured runs colder, misses more per transaction and looks slower than it is.
Measured on two loop devices capped at 250 and 1,000 read IOPS: after an 8 s warm-up the slower
layout still read 1.70 device I/Os per transaction in its first run and 1.29 in its third; the faster was at
1.18 from the start, and the ratio came out 4.76 for caps 4x apart.

What "steady" means: the mean of the last ``steady_windows`` windows is within ``steady_pct`` of the mean of
the ``steady_windows`` before them, on throughput and on device I/Os per unit of work (transactions, queries,
rows): no change from one block of windows to the next. Blocks, not single windows: the slower layout's
windows (200 IOPS, 6 s) scatter by ±5 % on their own (1.17-1.28 device I/Os per transaction once warm), so a
rule on the spread of single windows ran to its budget (17 windows, 120 s), while a cache still filling moves
a block's mean by more than the tolerance (1.40, 1.33 then 1.28, 1.25: 8 %). The I/Os per unit are what a
warming cache changes; throughput is what the runs will measure. Two exceptions, each because the figure
then says nothing about the layout's state: windows with fewer than MIN_IOS device I/Os are not judged on
I/Os per unit (so few are counting noise, and a cache that holds everything has nothing left to warm), and
windows the host CPU held (evidence binding "cpu") are not judged on throughput (it follows what the other
tenants leave of the CPU: on this shared 2-core host, ±10 % from window to window, so such a warm-up only
ended at its budget). How long a window lasts: the first ``window_s``, each next one long enough for
``window_ios`` device I/Os at the rate the window before it ran (``sized``), as the measured runs are (see
profiles.py): a window's I/Os per unit scatter by how few pages it read, not by how short it was. At 250 IOPS,
6 s windows read 1,500 pages and scattered 1.58-1.85 device I/Os per transaction, enough for a block to look
steady while still 30 % above the runs that followed (1.23); 3,000 I/Os make it 12 s.
Equal work on every layout is another rule a bench could follow; it is not needed as a
rule: the steady state is reached by whatever work each layout needs, and the result records the work, so a
reader can compare.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Literal

from blockfit.schema.bench import BenchRun, MeasureName, Warmup, WarmupWindow
from blockfit.units import fmt_num

MIN_IOS = 100
Unit = Literal["transaction", "query", "row"]
UNITS: dict[MeasureName, Unit] = {"oltp-select": "transaction", "oltp-tpcb": "transaction", "dss": "query",
                                  "load": "row"}


def window(run: BenchRun, measure: MeasureName, fs_device: str | None) -> WarmupWindow:
    """A warm-up run as a window: its work, rate, and the filesystem device's I/Os per unit of work."""
    if measure in ("oltp-select", "oltp-tpcb"):
        work = run.figures.get("transactions", 0.0)
    elif measure == "dss":
        work = float(len(run.queries))
    else:
        work = float(sum(s.rows for s in run.steps))
    ios = None
    if run.evidence is not None and fs_device is not None:
        ios = next((d.ios for d in run.evidence.devices if d.device == fs_device), None)
    return WarmupWindow(seconds=run.seconds, work=work, throughput=work / run.seconds if run.seconds > 0 else 0.0,
                        device_ios=ios, ios_per_unit=ios / work if ios is not None and work > 0 else None,
                        binding=run.evidence.binding if run.evidence else None, failed=run.failed)


def change(before: list[float], after: list[float]) -> float:
    """|mean(after) / mean(before) − 1|; 0 when ``before`` averages 0."""
    mean = statistics.fmean(before)
    return abs(statistics.fmean(after) / mean - 1.0) if mean > 0 else 0.0


def steady(windows: list[WarmupWindow], count: int, pct: float) -> bool:
    """The last ``count`` windows' means are within ``pct`` percent of the ``count`` before them, on throughput and
    on device I/Os per unit (each unless it says nothing about the state; see the module docstring)."""
    both = windows[-2 * count:]
    if len(both) < 2 * count or any(w.failed for w in both):
        return False
    return _throughput_steady(both, count, pct) and _ios_per_unit_steady(both, count, pct)


def _throughput_steady(both: list[WarmupWindow], count: int, pct: float) -> bool:
    """Throughput moved by at most ``pct`` percent, or the CPU held a window (then it says nothing)."""
    if any(w.binding == "cpu" for w in both):
        return True
    return change([w.throughput for w in both[:count]], [w.throughput for w in both[count:]]) <= pct / 100


def _ios_per_unit_steady(both: list[WarmupWindow], count: int, pct: float) -> bool:
    """Device I/Os per unit moved by at most ``pct`` percent, or a window counted too few I/Os to judge by."""
    counted = all(w.device_ios is not None and w.device_ios >= MIN_IOS and w.ios_per_unit is not None for w in both)
    return not counted or change([w.ios_per_unit or 0.0 for w in both[:count]],
                                 [w.ios_per_unit or 0.0 for w in both[count:]]) <= pct / 100


def rate(windows: list[WarmupWindow]) -> float | None:
    """Device I/Os per second over ``windows`` (None: no device counted, or too few I/Os to size anything by)."""
    counted = [w for w in windows if w.device_ios is not None and not w.failed]
    ios, seconds = sum(w.device_ios or 0 for w in counted), sum(w.seconds for w in counted)
    return ios / seconds if counted and ios >= MIN_IOS and seconds > 0 else None


def sized(target_ios: int | None, iops: float | None, floor_s: float, most_s: float) -> float:
    """Seconds a window or run lasts: long enough for ``target_ios`` device I/Os at ``iops``, never shorter than
    ``floor_s`` nor longer than ``most_s`` (``floor_s`` when the rate or the target is unknown)."""
    if not target_ios or not iops:
        return floor_s
    return max(floor_s, min(target_ios / iops, most_s))


def warm(run_window: Callable[[int, float], BenchRun], measure: MeasureName, fs_device: str | None,
         steady_windows: int, steady_pct: float, budget_s: float, window_s: float = 6.0,
         window_ios: int | None = None, most_s: float = 6.0) -> Warmup:
    """Run windows (``run_window(k, seconds)`` runs the k-th) until steady, a window fails, or the next window
    would not fit in ``budget_s``. The first window lasts ``window_s``; each next one long enough for
    ``window_ios`` device I/Os at the rate the window before it ran, at most ``most_s`` (``sized``)."""
    windows: list[WarmupWindow] = []
    outcome: Literal["steady", "budget", "failed"]
    t0, seconds = time.monotonic(), window_s
    while True:
        windows.append(window(run_window(len(windows) + 1, seconds), measure, fs_device))
        elapsed = time.monotonic() - t0
        seconds = sized(window_ios, rate(windows[-1:]), window_s, most_s)
        if windows[-1].failed:
            outcome = "failed"
        elif steady(windows, steady_windows, steady_pct):
            outcome = "steady"
        elif elapsed + max(seconds, windows[-1].seconds) > budget_s:  # the next window, as long as either
            outcome = "budget"
        else:
            continue
        break
    result = Warmup(unit=UNITS[measure], windows=windows, outcome=outcome, steady_windows=steady_windows,
                    steady_pct=steady_pct, budget_s=budget_s, seconds=elapsed,
                    work=sum(w.work for w in windows), text="")
    result.text = describe(result)
    return result


def describe(w: Warmup) -> str:
    """The warm-up in words: how it ended, how long and how much work, and the last windows' range."""
    n = len(w.windows)
    done = f"{n} window{'s' if n != 1 else ''}, {fmt_num(w.seconds)} s, {fmt_num(w.work)} {w.unit}s"
    last = w.windows[-2 * w.steady_windows:]
    rates = [x.throughput for x in last]
    per = [x.ios_per_unit for x in last if x.ios_per_unit is not None]
    figures = f"{fmt_num(min(rates))}-{fmt_num(max(rates))} {w.unit}s/s"
    if per and len(per) == len(last):
        figures += f", {min(per):.3g}-{max(per):.3g} device I/Os per {w.unit}"
    if w.outcome == "failed":
        return f"failed in window {n} ({done}): {w.windows[-1].failed}"
    if w.outcome == "steady":
        return (f"steady after {done}: the last {w.steady_windows} within {w.steady_pct:g} % of the {w.steady_windows} "
                f"before ({figures})")
    return (f"not steady when its {fmt_num(w.budget_s)} s budget ran out ({done}; the last {len(last)}: "
            f"{figures})")
