"""model.queueing: the MVA of a stripe: one lone I/O takes the base latency, throughput never exceeds the
members' (or the link's) rate, and Little's law holds at every depth."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.model.queueing import Point, at_latency, busy_members, growth_factor, mva, network_for, throughput

nets = st.builds(network_for, st.floats(1e-4, 0.02), st.floats(100, 50_000), st.integers(1, 16),
                 st.none() | st.floats(1_000, 1e6))


@settings(max_examples=40, deadline=None)
@given(nets, st.integers(1, 256))
def test_littles_law_and_the_rate_ceiling_hold_at_every_depth(net, n: int) -> None:   # type: ignore[no-untyped-def]
    points = mva(net, n)
    assert [p.outstanding for p in points] == list(range(1, n + 1))
    ceiling = net.members * net.member_rate * (1 + 1e-9)
    for p in points:
        assert p.throughput <= ceiling and (net.link_rate is None or p.throughput <= net.link_rate * (1 + 1e-9))
        assert p.latency_s == pytest.approx(p.outstanding / p.throughput, rel=1e-6)
    assert all(b.throughput >= a.throughput * (1 - 1e-9) for a, b in zip(points, points[1:], strict=False))


@given(st.floats(1e-3, 0.02), st.floats(1000, 50_000), st.integers(1, 16))
def test_one_lone_io_takes_the_base_latency(base: float, rate: float, members: int) -> None:
    """A member faster than one I/O (1 / rate <= base): the base latency is the whole of a lone I/O's time."""
    net = network_for(base, rate, members, None)
    (p,) = mva(net, 1)
    assert not net.paced and p.latency_s == pytest.approx(base, rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(nets, st.integers(1, 300))
def test_throughput_at_a_depth_is_the_curves_last_point(net, n: int) -> None:   # type: ignore[no-untyped-def]
    assert throughput(net, n, None) == pytest.approx(mva(net, n)[-1].throughput, rel=1e-9)
    assert throughput(net, n, 1) <= throughput(net, n, None) * (1 + 1e-9)


@given(st.integers(0, 1000), st.integers(1, 64), st.integers(1, 8))
def test_busy_members_lie_between_none_and_all(n: int, members: int, touched: int) -> None:
    b = busy_members(n, members, touched)
    assert 0 <= b <= members + 1e-9
    assert busy_members(n, 1) == 1.0


def test_the_growth_curve_is_linear_between_points_and_flat_beyond() -> None:
    g = ((1.0, 1.0), (8.0, 1.5), (32.0, 3.0))
    assert growth_factor(g, 0.5) == 1.0 and growth_factor(g, 100) == 3.0
    assert growth_factor(g, 4.5) == pytest.approx(1.25) and growth_factor(g, 20) == pytest.approx(2.25)


def test_the_point_at_a_latency_bound_is_the_fastest_within_it() -> None:
    pts = [Point(1, 100, 0.001), Point(2, 180, 0.0011), Point(4, 200, 0.02)]
    assert at_latency(pts, 0.005) == pts[1] and at_latency(pts, 0.0005) is None
