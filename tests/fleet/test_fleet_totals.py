"""The fleet's totals (fleet/totals.py): counts by status, the month's cost now and recommended summed over the
hosts that have both, the hosts to look at first, and the order hosts are listed in."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.fleet.hosts import FleetOptions, plan_host
from blockfit.fleet.mapping import HostConfig
from blockfit.fleet.query import HostHistory
from blockfit.fleet.totals import sort_key, summarize
from blockfit.schema import Requirements
from blockfit.schema.fleet import FleetHost, FleetProblem

CAT = load_catalog("oci")
OPTS = FleetOptions(template=Requirements(cloud="oci", capacity_gb=1, instance_shape=""), percentile=99,
                    headroom_pct=20, capacity_gb=1000)


def _host(name: str, iops: float, layout: str | None) -> FleetHost:
    h = HostHistory(host=name, devices=["dm-3"], samples=100, expected=100, iops=iops, mbps=iops * 16384 / 1e6,
                    read_pct=70.0, resets=0, labels={}, device_rule="dm-3")
    got = plan_host(h, HostConfig(layout=layout, instance="VM.Standard.E4.Flex:8"), OPTS, CAT, "test", 60)
    assert isinstance(got, FleetHost), got
    return got


def test_counts_costs_and_the_hosts_to_look_at_first() -> None:
    under, over, unknown = _host("a", 30000, "1x500G@balanced"), _host("b", 2000, "8x1000G@higher"), \
        _host("c", 2000, None)
    bad = FleetProblem(host="d", cause="input", message="d: no instance")
    s = summarize([under, over, unknown], [bad, FleetProblem(host="d", cause="server", message="d: again")])
    assert (s.hosts, s.planned, s.under, s.over, s.unknown, s.problems, s.priced) == (4, 3, 1, 1, 1, 2, 2)
    priced = [under, over]
    for part in ("storage", "compute", "total"):
        assert getattr(s.cost_now, part) == pytest.approx(sum(getattr(h.now.cost, part) for h in priced
                                                              if h.now is not None), abs=0.005)
        assert getattr(s.cost_recommended, part) == pytest.approx(
            sum(getattr(h.recommended_cost, part) for h in priced if h.recommended_cost is not None), abs=0.005)
    assert s.savings == pytest.approx(s.cost_now.total - s.cost_recommended.total, abs=0.01)  # type: ignore[operator]
    assert [a.host for a in s.largest_savings] == ["b"] and [a.host for a in s.largest_shortfalls] == ["a"]
    assert sorted([unknown, over, under], key=sort_key) == [under, over, unknown]   # shortfall first, unknown last


def test_an_empty_fleet_sums_to_nothing() -> None:
    s = summarize([], [])
    assert (s.hosts, s.priced, s.cost_now.total, s.savings) == (0, 0, 0.0, 0.0)
