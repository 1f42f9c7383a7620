"""The search controller against a model of a device (closed-loop queue: IOPS saturate, latency grows)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from blockfit.measure.search import Search, SearchPlan, summarize
from blockfit.schema.measurement import MeasuredPoint


def model_device(cap: float, service_ms: float, tail: float):  # type: ignore[no-untyped-def]
    """IOPS(d) = min(cap, d / service time); latency by Little's law, percentile = tail × mean."""

    def iops_at(d: int) -> float:
        return min(cap, d / (service_ms / 1000))

    def measure(phase: str, outstanding: int, ramp_s: float, runtime_s: float) -> MeasuredPoint:
        iops = iops_at(outstanding) if phase == "small" else iops_at(outstanding) / 8
        mean_ms = outstanding / iops * 1000
        return MeasuredPoint(phase=phase, outstanding=outstanding, io_size=8192 if phase == "small" else 2**20,  # type: ignore[arg-type]
                             iops=iops, mbps=iops * (8192 if phase == "small" else 2**20) / 1e6, p50_ms=mean_ms,
                             p95_ms=mean_ms * tail, p99_ms=mean_ms * tail * 1.2, percentile_ms=mean_ms * tail,
                             avg_ms=mean_ms, steady=True, iops_cv=0.01, seconds=runtime_s, ios=int(iops))

    return measure, iops_at


@settings(max_examples=60, deadline=None)
@given(cap=st.floats(500, 200_000), service_ms=st.floats(0.05, 10.0), tail=st.floats(1.0, 3.0),
       bound=st.floats(0.5, 50.0))
def test_max_iops_respects_the_bound_and_is_near_the_best_depth(cap: float, service_ms: float, tail: float,
                                                                 bound: float) -> None:
    # below saturation latency is flat at service_ms × tail: a bound exactly there makes "within bound" a
    # coin toss of float rounding at every depth, which no search (and no measurement) can resolve
    assume(abs(bound - service_ms * tail) > 1e-6 * bound)
    measure, iops_at = model_device(cap, service_ms, tail)
    plan = SearchPlan(max_latency_ms=bound, budget_s=60.0)
    search = Search(plan=plan, measure=measure)
    search.run()
    s = summarize(search.points)
    assert s.max_iops_point is not None and s.max_mbps_point is not None
    # brute force over every depth the search could have used
    good = [iops_at(d) for d in range(1, plan.max_small_outstanding + 1)
            if d / iops_at(d) * 1000 * tail <= bound]
    if not good:
        assert not s.bound_met
        assert s.max_iops_point.outstanding == 1
        return
    assert s.bound_met
    assert s.max_iops_point.percentile_ms <= bound
    assert s.max_iops_point.iops >= 0.85 * max(good)
    assert s.max_iops_point.iops <= max(good) + 1e-6


def test_points_measured_before_an_interruption_are_kept() -> None:
    measure, _ = model_device(5000, 1.0, 1.5)
    calls = 0

    def flaky(phase: str, outstanding: int, ramp_s: float, runtime_s: float) -> MeasuredPoint:
        nonlocal calls
        calls += 1
        if calls == 4:
            raise KeyboardInterrupt
        return measure(phase, outstanding, ramp_s, runtime_s)

    points: list[MeasuredPoint] = []
    search = Search(plan=SearchPlan(max_latency_ms=20), measure=flaky, points=points)
    try:
        search.run()
    except KeyboardInterrupt:
        pass
    assert [p.outstanding for p in points] == [1, 2, 4]


def test_unsteady_point_is_measured_again_for_longer() -> None:
    measure, _ = model_device(5000, 1.0, 1.5)
    runtimes: list[float] = []

    def noisy(phase: str, outstanding: int, ramp_s: float, runtime_s: float) -> MeasuredPoint:
        runtimes.append(runtime_s)
        p = measure(phase, outstanding, ramp_s, runtime_s)
        p.iops_cv = 0.5 if len(runtimes) == 1 else 0.01
        return p

    plan = SearchPlan(max_latency_ms=20, budget_s=60)
    search = Search(plan=plan, measure=noisy)
    search.run()
    assert runtimes[1] == 2 * runtimes[0]
    assert search.points[0].steady


def test_stripe_sweeps_to_two_outstanding_per_member() -> None:
    measure, _ = model_device(1000, 0.01, 1.0)  # saturated at depth 1: a single device would stop at 4
    search = Search(plan=SearchPlan(max_latency_ms=1000, members=8), measure=measure)
    search.small()
    assert max(p.outstanding for p in search.points) >= 16


def _limiter(plateau_until: int, phase_cap: float):  # type: ignore[no-untyped-def]
    """A rate limiter that releases in bursts: half its cap up to ``plateau_until`` outstanding, then the cap."""
    measure, _ = model_device(5000, 1.0, 1.5)

    def limited(phase: str, outstanding: int, ramp_s: float, runtime_s: float) -> MeasuredPoint:
        p = measure(phase, outstanding, ramp_s, runtime_s)
        rate = phase_cap / 2 if outstanding <= plateau_until else phase_cap
        if phase == "large":
            p.mbps, p.iops = rate, rate * 1e6 / p.io_size
        else:
            p.iops, p.mbps = rate, rate * p.io_size / 1e6
        p.percentile_ms = p.p95_ms = p.p50_ms = outstanding / p.iops * 1000
        return p

    return limited


def test_sweeps_go_past_a_false_plateau_and_record_the_flat_steps() -> None:
    """1, 2 and 4 outstanding I/Os all at half the cap (two flat doublings), 8 at the cap: both sweeps find it."""
    search = Search(plan=SearchPlan(max_latency_ms=1000, budget_s=60), measure=_limiter(4, 60.0))
    search.run()
    s = summarize(search.points)
    assert s.max_mbps_point is not None and s.max_mbps_point.mbps == 60.0
    assert s.max_iops_point is not None and s.max_iops_point.iops == 60.0
    for phase in ("small", "large"):
        sweep = [p for p in search.points if p.phase == phase and not p.confirmed]
        assert [p.flat for p in sweep][:4] == [False, True, True, False]
        assert sweep[3].outstanding == 8 and sweep[3].gain == 1.0


def test_a_single_flat_doubling_never_ends_a_sweep_below_the_floor() -> None:
    measure, _ = model_device(1000, 0.01, 1.0)  # saturated at depth 1: every doubling is flat
    search = Search(plan=SearchPlan(max_latency_ms=1000), measure=measure)
    search.large()
    assert [p.outstanding for p in search.points] == [1, 2, 4, 8]


def test_reported_figure_is_the_plateau_median_not_the_best_window() -> None:
    measure, _ = model_device(5000, 1.0, 1.5)

    def pt(depth: int, mbps: float) -> MeasuredPoint:
        p = measure("large", depth, 1, 1)
        p.mbps = mbps
        return p

    # windows of one 60 MB/s plateau, one inflated by noise; 30 is off the plateau
    s = summarize([pt(1, 30.0), pt(2, 59.5), pt(4, 60.2), pt(8, 61.4)])
    assert s.max_mbps_point is not None and s.max_mbps_point.mbps == 60.2
    assert [p.mbps for p in s.mbps_plateau] == [59.5, 60.2, 61.4]
    assert summarize([pt(1, 59.0), pt(2, 61.0)]).max_mbps_point.mbps == 59.0  # type: ignore[union-attr]
    # an outlier window measured again at its depth: the depth counts as the lower of its two windows
    s = summarize([pt(1, 30.0), pt(2, 63.3), pt(2, 60.1), pt(4, 60.4), pt(8, 59.8)])
    assert s.max_mbps_point is not None and s.max_mbps_point.mbps == 60.1


def test_a_figure_resting_on_one_window_is_measured_again() -> None:
    measure, _ = model_device(5000, 1.0, 1.5)
    search = Search(plan=SearchPlan(max_latency_ms=1000, budget_s=60), measure=measure)
    search.run()
    again = [p for p in search.points if p.confirmed]
    assert {p.phase for p in again} <= {"small", "large"}
    s = summarize(search.points)
    for top in (s.iops_plateau, s.mbps_plateau):
        assert len(top) >= 2
