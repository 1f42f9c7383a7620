"""The calibrate search: one global controller over the total number of outstanding I/Os.

Small I/O: double the total outstanding I/Os (1, 2, 4, ...) until IOPS stop growing (saturation), then bisect
between the deepest depth that met the latency bound and the first that broke it, to find the highest IOPS
whose latency percentile stays under the bound. Large I/O: the same doubling sweep, for the highest MB/s.

Plateaus: a rate limiter (blk-throttle, a cloud's token bucket) can hold a doubling flat although a deeper
queue gains again, so one flat doubling never ends a sweep: a sweep ends after ``patience`` flat doublings in a
row, and never before ``min_sweep`` outstanding I/Os (2 per stripe member if more): the floor is measured even
when that overruns the time budget (a loaded machine), since a sweep stopped short of it proves nothing. Each
point records its gain over the best earlier point of its sweep (``gain``) and whether it was flat, so the curve
shows the flat steps.

Accuracy without long confirmation runs: the reported figure is the median of the plateau (every window within
``min_gain`` of the best, which a doubling would not count as a gain), not the best single window, which noise
inflates; a figure that rests on one window is measured once more. The first point of a phase has the full
warm-up; later points follow a run at a neighbouring depth on a device already busy, so their warm-up only has
to fill the queue (``step_ramp_s``).
An unsteady point (IOPS samples varying by more than ``steady_cv``) is measured again for twice as long.

The controller only sees ``measure(phase, outstanding, ramp_s, runtime_s) -> MeasuredPoint``, so it runs
the same against fio, several hosts, or a model of a device (tests). Points are appended to the caller's
list as they are measured, so an interruption leaves the partial curve in the caller's hands.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from blockfit.schema.measurement import MeasuredPoint

MeasureFn = Callable[[str, int, float, float], MeasuredPoint]

SMALL_SHARE = 0.65  # of the budget, for the small-I/O phase (the large phase gets whatever is left)
EXPECTED_POINTS = 12  # typical number of points in a run: sizes each point from the budget


@dataclass
class SearchPlan:
    max_latency_ms: float
    percentile: float = 95.0
    budget_s: float = 60.0
    max_small_outstanding: int = 256
    max_large_outstanding: int = 64
    min_gain: float = 0.05  # a doubling that adds less than this over the best so far is flat
    patience: int = 2  # flat doublings in a row that end a sweep
    min_sweep: int = 8  # a sweep reaches at least this many outstanding I/Os (x members) before it may end
    bisect_steps: int = 3
    steady_cv: float = 0.3
    min_point_s: float = 1.5
    step_ramp_s: float = 0.25  # warm-up of a point that follows another of the same phase
    members: int = 1  # stripe members

    @property
    def point_s(self) -> float:
        return max(self.min_point_s, min(10.0, self.budget_s / EXPECTED_POINTS))

    @property
    def ramp_s(self) -> float:
        return round(max(0.4, 0.25 * self.point_s), 2)

    @property
    def runtime_s(self) -> float:
        return round(self.point_s - self.ramp_s, 2)

    @property
    def sweep_floor(self) -> int:
        return max(self.min_sweep, 2 * self.members)


@dataclass
class Clock:
    """The run's time budget."""

    budget_s: float
    start: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def remaining(self) -> float:
        return self.budget_s - self.elapsed()


def _value(phase: str) -> Callable[[MeasuredPoint], float]:
    return (lambda p: p.iops) if phase == "small" else (lambda p: p.mbps)


@dataclass
class Search:
    plan: SearchPlan
    measure: MeasureFn
    points: list[MeasuredPoint] = field(default_factory=list)
    clock: Clock | None = None
    notes: list[str] = field(default_factory=list)
    _runs: int = 0
    _overhead: float = 0.0  # wall seconds spent beyond ramp + runtime (fio start-up, parsing), summed

    def __post_init__(self) -> None:
        if self.clock is None:
            self.clock = Clock(self.plan.budget_s)

    # -- one point, with the steady-state check -------------------------------------------------------------
    def _fits(self, until_s: float, factor: float = 1.0) -> bool:
        """Whether one more point (``factor`` times as long) ends by ``until_s``, judging by past points' cost."""
        assert self.clock is not None
        overhead = self._overhead / self._runs if self._runs else 0.4
        return self.clock.elapsed() + self.plan.point_s * factor + overhead <= until_s

    def _measure(self, phase: str, outstanding: int, runtime_s: float) -> MeasuredPoint:
        warm = any(p.phase == phase for p in self.points)
        ramp = min(self.plan.step_ramp_s, self.plan.ramp_s) if warm else self.plan.ramp_s
        start = time.monotonic()
        p = self.measure(phase, outstanding, ramp, runtime_s)
        self._runs += 1
        self._overhead += max(0.0, time.monotonic() - start - ramp - runtime_s)
        p.within_bound = p.percentile_ms <= self.plan.max_latency_ms if phase == "small" else None
        p.steady = p.iops_cv <= self.plan.steady_cv
        return p

    def point(self, phase: str, outstanding: int, until_s: float) -> MeasuredPoint:
        p = self._measure(phase, outstanding, self.plan.runtime_s)
        if not p.steady and self._fits(until_s, 2.0):
            p = self._measure(phase, outstanding, 2 * self.plan.runtime_s)
        self.points.append(p)
        return p

    # -- phases ---------------------------------------------------------------------------------------------
    def run(self) -> None:
        self.small()
        self.large()
        self.confirm()

    def _sweep_step(self, p: MeasuredPoint, best: float, flat_run: int) -> int:
        """Record the point's gain over the best earlier point of its sweep; return the run of flat doublings."""
        value = _value(p.phase)(p)
        p.gain = round(value / best - 1, 4) if best > 0 else None
        # below one outstanding I/O per stripe member a flat curve says nothing about saturation
        p.flat = p.gain is not None and p.gain < self.plan.min_gain and p.outstanding > self.plan.members
        return flat_run + 1 if p.flat else 0

    def _large_start(self) -> int:
        # one I/O per stripe member: the large phase wants the plateau, not the low end of the curve
        return 1 << (max(1, self.plan.members) - 1).bit_length()

    def _small_until(self) -> float:
        """End of the small phase: its share of the budget, less what the large sweep needs to reach its floor."""
        overhead = self._overhead / self._runs if self._runs else 0.4
        floor_points = (self.plan.sweep_floor // self._large_start()).bit_length()
        return min(self.plan.budget_s * SMALL_SHARE, self.plan.budget_s - floor_points * (self.plan.point_s + overhead))

    def small(self) -> None:
        """Doubling sweep to saturation (past flat steps), then bisection of the latency knee."""
        bound = self.plan.max_latency_ms
        best, flat_run, depth = 0.0, 0, 1
        while depth <= self.plan.max_small_outstanding:
            until = self._small_until()
            p = self.point("small", depth, until)
            flat_run = self._sweep_step(p, best, flat_run)
            best = max(best, p.iops)
            if p.percentile_ms > 10 * bound and depth >= 2 * self.plan.members:
                break
            if depth >= self.plan.sweep_floor and (flat_run >= self.plan.patience or (p.flat and not p.within_bound)):
                break
            depth *= 2
            if depth > self.plan.sweep_floor and not self._fits(self._small_until()):
                self.notes.append(f"budget ran out before small-I/O saturation (stopped at {depth // 2} outstanding)")
                break
        self._bisect(self._small_until())

    def _bisect(self, until: float) -> None:
        small = [p for p in self.points if p.phase == "small"]
        bad = sorted(p.outstanding for p in small if not p.within_bound)
        if not bad:
            return
        first_bad = bad[0]
        good = [p.outstanding for p in small if p.within_bound and p.outstanding < first_bad]
        if not good:
            return
        lo, hi = max(good), first_bad
        for _ in range(self.plan.bisect_steps):
            if hi - lo <= max(1, lo // 8) or not self._fits(until + self.plan.point_s):
                break
            mid = (lo + hi) // 2
            if self.point("small", mid, until + self.plan.point_s).within_bound:
                lo = mid
            else:
                hi = mid

    def large(self) -> None:
        """Doubling sweep of large I/Os until MB/s stop growing (past flat steps)."""
        until = self.plan.budget_s
        best, flat_run, depth = 0.0, 0, self._large_start()
        while depth <= self.plan.max_large_outstanding:
            p = self.point("large", depth, until)
            flat_run = self._sweep_step(p, best, flat_run)
            best = max(best, p.mbps)
            if flat_run >= self.plan.patience and depth >= self.plan.sweep_floor:
                break
            depth *= 2
            if depth > self.plan.sweep_floor and not self._fits(until):
                self.notes.append(f"budget ran out before large-I/O saturation (stopped at {depth // 2} outstanding)")
                break

    def confirm(self) -> None:
        """Measure once more a figure that rests on a single window, so the median has two to stand on."""
        summary = summarize(self.points, self.plan.min_gain)
        for plateau in (summary.iops_plateau, summary.mbps_plateau):
            if len(plateau) != 1 or not self._fits(self.plan.budget_s):
                continue
            p = plateau[0]
            again = self._measure(p.phase, p.outstanding, self.plan.runtime_s)
            again.confirmed = True
            self.points.append(again)


@dataclass
class Summary:
    max_iops_point: MeasuredPoint | None
    max_mbps_point: MeasuredPoint | None
    saturation_iops: float
    bound_met: bool
    iops_plateau: list[MeasuredPoint] = field(default_factory=list)
    mbps_plateau: list[MeasuredPoint] = field(default_factory=list)


def plateau(points: list[MeasuredPoint], value: Callable[[MeasuredPoint], float],
            band: float) -> tuple[MeasuredPoint, list[MeasuredPoint]]:
    """The windows within ``band`` of the best, and the one with their median value (the lower one of two).

    The best single window is biased up by noise (the maximum of several noisy estimates); the median of the
    windows on the plateau is not, and one bad window cannot move it. Windows at the same depth count once, as
    their lower median: an outlier that alone made the plateau is measured again, and the second window tempers it.
    """
    by_depth: dict[int, list[MeasuredPoint]] = {}
    for p in points:
        by_depth.setdefault(p.outstanding, []).append(p)
    # a depth measured twice (a single-window figure measured again) stands for the lower median of its windows
    reps = [sorted(group, key=value)[(len(group) - 1) // 2] for group in by_depth.values()]
    best = max(value(p) for p in reps)
    top = sorted((p for p in reps if value(p) >= best * (1 - band)), key=value)
    return top[(len(top) - 1) // 2], top


def summarize(points: list[MeasuredPoint], band: float = SearchPlan.min_gain) -> Summary:
    """Pick CALIBRATE_IO's triplet from the curve: the plateau medians of small points within the bound and
    of large points."""
    small = [p for p in points if p.phase == "small"]
    large = [p for p in points if p.phase == "large"]
    within = [p for p in small if p.within_bound]
    best_small: MeasuredPoint | None = None
    iops_top: list[MeasuredPoint] = []
    if within:
        best_small, iops_top = plateau(within, lambda p: p.iops, band)
    elif small:
        best_small = min(small, key=lambda p: (p.outstanding, -p.iops))
    best_large: MeasuredPoint | None = None
    mbps_top: list[MeasuredPoint] = []
    if large:
        best_large, mbps_top = plateau(large, lambda p: p.mbps, band)
    return Summary(max_iops_point=best_small, max_mbps_point=best_large,
                   saturation_iops=max((p.iops for p in small), default=0.0), bound_met=bool(within),
                   iops_plateau=iops_top, mbps_plateau=mbps_top)
