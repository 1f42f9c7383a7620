"""The calibrate search: one global controller over the total number of outstanding I/Os.

Small I/O: double the total outstanding I/Os (1, 2, 4, ...) until IOPS stop growing (saturation), then bisect
between the deepest depth that met the latency bound and the first that broke it, to find the highest IOPS
whose latency percentile stays under the bound. Large I/O: the same doubling sweep, for the highest MB/s.
Every point has a warm-up (fio ramp_time) and a steady-state check; an unsteady point is measured once more,
for longer, when the budget allows.

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
    min_gain: float = 0.05  # a doubling that adds less than this is "no gain"
    bisect_steps: int = 3
    steady_cv: float = 0.3
    min_point_s: float = 1.5
    members: int = 1  # stripe members: the sweeps go at least to 2 outstanding I/Os per member before stopping

    @property
    def point_s(self) -> float:
        return max(self.min_point_s, min(10.0, self.budget_s / EXPECTED_POINTS))

    @property
    def ramp_s(self) -> float:
        return round(max(0.4, 0.25 * self.point_s), 2)

    @property
    def runtime_s(self) -> float:
        return round(self.point_s - self.ramp_s, 2)


@dataclass
class Clock:
    """The run's time budget."""

    budget_s: float
    start: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def remaining(self) -> float:
        return self.budget_s - self.elapsed()


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
        start = time.monotonic()
        p = self.measure(phase, outstanding, self.plan.ramp_s, runtime_s)
        self._runs += 1
        self._overhead += max(0.0, time.monotonic() - start - self.plan.ramp_s - runtime_s)
        return p

    def point(self, phase: str, outstanding: int, until_s: float) -> MeasuredPoint:
        p = self._measure(phase, outstanding, self.plan.runtime_s)
        p.within_bound = p.percentile_ms <= self.plan.max_latency_ms if phase == "small" else None
        p.steady = p.iops_cv <= self.plan.steady_cv
        if not p.steady and self._fits(until_s, 2.0):
            again = self._measure(phase, outstanding, 2 * self.plan.runtime_s)
            again.within_bound = again.percentile_ms <= self.plan.max_latency_ms if phase == "small" else None
            again.steady = again.iops_cv <= self.plan.steady_cv
            p = again
        self.points.append(p)
        return p

    # -- phases ---------------------------------------------------------------------------------------------
    def run(self) -> None:
        self.small()
        self.large()
        self.confirm()

    def confirm(self) -> None:
        """Spend what is left of the budget re-measuring the two chosen points for longer (less noise).

        The longer measurement replaces the short one, so picking the best of several noisy points does not
        inflate the result.
        """
        assert self.clock is not None
        summary = summarize(self.points)
        chosen = [p for p in (summary.max_iops_point, summary.max_mbps_point) if p is not None]
        for i, p in enumerate(chosen):
            overhead = self._overhead / self._runs if self._runs else 0.4
            share = self.clock.remaining() / (len(chosen) - i) - self.plan.ramp_s - overhead
            if share < 2 * self.plan.runtime_s:
                continue
            runtime = round(min(share, 10 * self.plan.runtime_s), 2)
            again = self._measure(p.phase, p.outstanding, runtime)
            again.within_bound = again.percentile_ms <= self.plan.max_latency_ms if p.phase == "small" else None
            again.steady = again.iops_cv <= self.plan.steady_cv
            again.confirmed = True
            self.points[self.points.index(p)] = again

    def small(self) -> None:
        """Doubling sweep to saturation, then bisection of the latency knee."""
        until = self.plan.budget_s * SMALL_SHARE
        bound = self.plan.max_latency_ms
        best, stalls, depth = 0.0, 0, 1
        while depth <= self.plan.max_small_outstanding:
            p = self.point("small", depth, until)
            gain = p.iops / best - 1 if best > 0 else float("inf")
            # below one outstanding I/O per stripe member a flat curve says nothing about saturation
            stalls = stalls + 1 if gain < self.plan.min_gain and depth > self.plan.members else 0
            best = max(best, p.iops)
            early = depth < 2 * self.plan.members
            if not early and (stalls >= 2 or (stalls and not p.within_bound) or p.percentile_ms > 10 * bound):
                break
            depth *= 2
            if not self._fits(until):
                self.notes.append(f"budget ran out before small-I/O saturation (stopped at {depth // 2} outstanding)")
                break
        self._bisect(until)

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
        """Doubling sweep of large I/Os until MB/s stop growing."""
        until = self.plan.budget_s
        # start at one I/O per stripe member: the large phase wants the plateau, not the low end of the curve
        best, stalls, depth = 0.0, 0, 1 << (max(1, self.plan.members) - 1).bit_length()
        while depth <= self.plan.max_large_outstanding:
            p = self.point("large", depth, until)
            gain = p.mbps / best - 1 if best > 0 else float("inf")
            stalls = stalls + 1 if gain < self.plan.min_gain and depth > self.plan.members else 0
            best = max(best, p.mbps)
            if stalls >= 2 and depth >= 2 * self.plan.members:
                break
            depth *= 2
            if not self._fits(until):
                self.notes.append(f"budget ran out before large-I/O saturation (stopped at {depth // 2} outstanding)")
                break


@dataclass
class Summary:
    max_iops_point: MeasuredPoint | None
    max_mbps_point: MeasuredPoint | None
    saturation_iops: float
    bound_met: bool


def _prefer_confirmed(points: list[MeasuredPoint], value: Callable[[MeasuredPoint], float],
                      noise: float = 0.03) -> MeasuredPoint:
    """The best point, except that a longer (confirmed) measurement wins over short ones within the noise."""
    best = max(points, key=value)
    confirmed = [p for p in points if p.confirmed]
    if confirmed:
        long_best = max(confirmed, key=value)
        if value(best) <= value(long_best) * (1 + noise):
            return long_best
    return best


def summarize(points: list[MeasuredPoint]) -> Summary:
    """Pick CALIBRATE_IO's triplet from the curve: best small point within the bound, best large point."""
    small = [p for p in points if p.phase == "small"]
    large = [p for p in points if p.phase == "large"]
    within = [p for p in small if p.within_bound]
    if within:
        best_small: MeasuredPoint | None = _prefer_confirmed(within, lambda p: p.iops)
    else:
        best_small = min(small, key=lambda p: (p.outstanding, -p.iops)) if small else None
    best_large = _prefer_confirmed(large, lambda p: p.mbps) if large else None
    return Summary(max_iops_point=best_small, max_mbps_point=best_large,
                   saturation_iops=max((p.iops for p in small), default=0.0), bound_met=bool(within))
