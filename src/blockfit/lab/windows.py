"""Measurement windows: how a lab measurement is cut into sub-windows, read back, and ended.

The guest snapshots the measured device's own counters (time, I/Os and sectors completed) at the end of each
sub-window and appends them to ``rate-NAME.txt``, one line each. A measurement's rate is the median of its
sub-window rates, so a stall of the shared host moves one sub-window, not the figure; the spread of those rates
(as robust as the median: from their median absolute deviation) says how steady it was. One sub-window has no
spread: it is reported as None, never as 0.

How long: at least the requested window (``--runtime``), then more sub-windows of the same length until the 95 %
interval of the median is within ±NARROW or a budget of BUDGET_FACTOR windows ends. The host decides
(``WindowWatch``, polled while the guest runs), so the rule and the figures come from one place: the guest ends
a measurement when ``stop-NAME`` appears in the work dir (or its budget of sub-windows is spent).

Why not fio's own totals: with deep queues of slow (throttled) I/Os they mix in the queue's fill and final drain
(io_bytes and total_ios disagree by 20 % and more), and fio's per-interval means are coarse when a window holds a
handful of 1 MiB I/Os.
"""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from blockfit.units import MB

Kind = Literal["iops", "mbps"]

SUB_WINDOW_S = 2.0  # shortest sub-window of a capped measurement
MIN_WINDOW_IOS = 40  # I/Os a sub-window is expected to hold: the counters move in whole I/Os (±2.5 % at 40)
MIN_SUB_WINDOWS = 3  # fewer cannot say how steady the window was
NARROW = 0.03  # end once the median's 95 % interval (±2 standard errors) is within ±3 %
BUDGET_FACTOR = 3  # at most three times the requested window


@dataclass(frozen=True)
class WindowPlan:
    """The guest's loop for one measurement: sub-windows of SECONDS, at least LEAST of them, at most MOST."""

    seconds: float
    least: int
    most: int

    def guest_args(self) -> str:
        return f"{self.seconds:.2f} {self.least} {self.most}"

    @property
    def budget_s(self) -> float:
        return self.seconds * self.most


# the emulator's own speed, uncapped: thousands of I/Os a second, one-second sub-windows hold plenty
REFERENCE_PLAN = WindowPlan(seconds=1.0, least=MIN_SUB_WINDOWS, most=6)


def window_plan(runtime_s: float, ios_per_s: float) -> WindowPlan:
    """Sub-windows for a measurement expected to run at IOS_PER_S: each at least SUB_WINDOW_S long and holding
    MIN_WINDOW_IOS I/Os; together at least RUNTIME_S and MIN_SUB_WINDOWS of them; at most BUDGET_FACTOR x RUNTIME_S
    (and always two more than the least, so a noisy window can narrow)."""
    seconds = max(SUB_WINDOW_S, MIN_WINDOW_IOS / ios_per_s if ios_per_s > 0 else SUB_WINDOW_S)
    least = max(MIN_SUB_WINDOWS, round(runtime_s / seconds))
    most = max(least + 2, math.floor(BUDGET_FACTOR * runtime_s / seconds))
    return WindowPlan(seconds=round(seconds, 2), least=least, most=most)


@dataclass(frozen=True)
class Rate:
    """A measurement's rate: the median of its sub-window rates, and how sure it is."""

    value: float
    spread: float | None  # relative standard error of the median (median_and_spread); None: one sub-window
    windows: int

    @property
    def narrow(self) -> bool:
        return self.spread is not None and self.windows >= MIN_SUB_WINDOWS and 2 * self.spread <= NARROW


def median_and_spread(values: list[float], ios: list[float] | None = None) -> Rate:
    """The median of the sub-window rates and its relative standard error, estimated robustly as the median is:
    1.25 x 1.4826 x MAD / sqrt(n) (a normal sample's sd, from the median absolute deviation), so a sub-window that a
    stall of the shared host held low moves neither the figure nor its spread; at least what counting whole I/Os
    (IOS per sub-window) leaves uncertain."""
    med = statistics.median(values)
    if len(values) < 2 or med <= 0:
        return Rate(value=med, spread=None, windows=len(values))
    mad = statistics.median(abs(v - med) for v in values)
    counting = 1 / (math.sqrt(12) * min(ios)) if ios and min(ios) > 0 else 0.0  # a count is ±1/2 of the rate's
    return Rate(value=med, spread=1.25 * max(1.4826 * mad / med, counting) / math.sqrt(len(values)),
                windows=len(values))


def read_snaps(path: Path) -> list[tuple[float, float, float]]:
    """The snapshots written so far: (seconds, I/Os, sectors) per complete line (a line being written is skipped)."""
    text = path.read_text()
    lines = text.split("\n")[:-1]  # the last piece has no newline yet, or is empty
    snaps = []
    for line in lines:
        fields = line.split()
        if len(fields) != 3:
            raise ValueError(f"{path.name}: not a counter snapshot: {line!r}")
        t, ios, sectors = (float(x) for x in fields)
        snaps.append((t, ios, sectors))
    return snaps


def window_rate(path: Path, kind: Kind) -> Rate:
    """The measurement's rate from its snapshots: IOPS, or MB/s (10^6 B/s; sectors are 512 bytes)."""
    snaps = read_snaps(path)
    if len(snaps) < 2 or any(b[0] <= a[0] for a, b in itertools.pairwise(snaps)):
        raise ValueError(f"{path.name}: empty measurement window")
    if kind == "iops":
        values = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in itertools.pairwise(snaps)]
    else:
        values = [(b[2] - a[2]) * 512 / (b[0] - a[0]) / MB for a, b in itertools.pairwise(snaps)]
    return median_and_spread(values, [b[1] - a[1] for a, b in itertools.pairwise(snaps)])


def kind_of(name: str) -> Kind:
    """The figure a measurement is for, by its name: ``…-iops`` (small I/Os) or ``…-mbps`` (large I/Os)."""
    return "iops" if name.endswith("-iops") else "mbps"


@dataclass
class WindowWatch:
    """Host side, polled while the guest runs: end each measurement whose interval is narrow (write stop-NAME)."""

    work_dir: Path
    stopped: set[str] = field(default_factory=set)

    def poll(self) -> None:
        for path in self.work_dir.glob("rate-*.txt"):
            name = path.name.removeprefix("rate-").removesuffix(".txt")
            if name in self.stopped:
                continue
            try:
                rate = window_rate(path, kind_of(name))
            except (OSError, ValueError):
                continue  # fewer than two snapshots yet
            if rate.narrow:
                (self.work_dir / f"stop-{name}").write_text(f"{rate.value:.6g} ±{rate.spread:.4f}\n")
                self.stopped.add(name)
