"""One host planned without a server: the exact plan reuse between hosts, the capacity each host is planned for,
the classification against its layout now."""

from __future__ import annotations

import random

import pytest

from blockfit.catalog import load_catalog
from blockfit.fleet.hosts import FleetOptions, PlanCache, plan_host
from blockfit.fleet.mapping import HostConfig
from blockfit.fleet.query import HostHistory
from blockfit.plan import make_plan
from blockfit.schema import Requirements
from blockfit.schema.fleet import FleetHost, FleetProblem

CAT = load_catalog("oci")


def test_cached_plan_is_the_plan_the_planner_makes() -> None:
    """Host B's targets between host A's and what A's plan delivers: the cache answers B with A's layout, and a
    fresh search for B finds the same layout, instance and cost."""
    rnd = random.Random(24)
    for _ in range(4):
        cap = rnd.choice([500, 1000, 2000])
        base = Requirements(cloud="oci", capacity_gb=cap, target_iops=rnd.uniform(500, 40000),
                            target_mbps=rnd.uniform(10, 600), instance_shape="VM.Standard.E4.Flex",
                            instance_ocpus=rnd.choice([4.0, 16.0]), read_pct=70)
        cache = PlanCache()
        first = make_plan(base, CAT, keep=1, brief=True)
        cache.put(base, first)
        best = first.candidates[0]
        f = rnd.uniform(0.05, 0.95)
        other = base.model_copy(update={"target_iops": base.target_iops + f * (best.max_iops - base.target_iops),
                                        "target_mbps": base.target_mbps + f * (best.max_mbps - base.target_mbps)})
        reused = cache.get(other)
        assert reused is not None and reused.requirements == other and cache.hits == 1
        fresh = make_plan(other, CAT, keep=1, brief=True).candidates[0]
        got = reused.candidates[0]
        assert (got.layout, got.instance, got.cost) == (fresh.layout, fresh.instance, fresh.cost)
        # below A's targets, or above what the plan delivers, or another host shape: no reuse
        assert cache.get(base.model_copy(update={"target_iops": base.target_iops * 0.9})) is None
        assert cache.get(other.model_copy(update={"target_iops": best.max_iops * 1.01})) is None
        assert cache.get(other.model_copy(update={"read_pct": 50})) is None
        assert cache.get(other.model_copy(update={"max_latency_ms": 5.0})) is None


def _host(name: str, iops: float, layout: str | None) -> FleetHost | FleetProblem:
    h = HostHistory(host=name, devices=["dm-3"], samples=100, expected=100, iops=iops, mbps=iops * 16384 / 1e6,
                    read_pct=70.0, resets=0, labels={}, device_rule="dm-3")
    template = Requirements(cloud="oci", capacity_gb=1, instance_shape="")
    opts = FleetOptions(template=template, percentile=99, headroom_pct=20)
    return plan_host(h, HostConfig(layout=layout, instance="VM.Standard.E4.Flex:8"), opts, CAT, "test", 60)


def test_classification_headroom_and_totals() -> None:
    under = _host("a", 30000, "1x500G@balanced")          # the layout delivers 25,000 IOPS: +20 % headroom on top
    over = _host("b", 2000, "8x1000G@higher")
    unknown = _host("c", 2000, None)
    assert isinstance(unknown, FleetProblem) and "no capacity" in unknown.message
    assert isinstance(under, FleetHost) and isinstance(over, FleetHost)
    assert under.status == "under" and under.targets.target_iops == pytest.approx(36000)
    now = under.now
    assert now is not None   # the larger of the two shortfalls, IOPS and MB/s
    assert under.shortfall_pct == pytest.approx(100 * (max(36000 / now.max_iops,
                                                           36000 * 16384 / 1e6 / now.max_mbps) - 1))
    assert over.status == "over" and over.savings and over.savings > 0.1 * over.now.cost.total  # type: ignore[union-attr]
    bad = _host("d", 2000, "2x1T@nosuchlevel")
    assert isinstance(bad, FleetProblem) and bad.message.startswith("d (--hosts): ") and "nosuchlevel" in bad.message


def test_capacity_comes_parsed_from_the_mapping_else_the_layout_else_the_fallback() -> None:
    """Capacities arrive as GB, parsed once where they were given (the mapping file, --capacity)."""
    h = HostHistory(host="a", devices=["dm-3"], samples=100, expected=100, iops=2000, mbps=30, read_pct=70.0,
                    resets=0, labels={}, device_rule="dm-3")
    opts = FleetOptions(template=Requirements(cloud="oci", capacity_gb=1, instance_shape=""), percentile=99,
                        headroom_pct=0, capacity_gb=700)
    inst = "VM.Standard.E4.Flex:8"
    for cfg, gb in ((HostConfig(instance=inst, capacity_gb=1234, layout="2x1000G@balanced"), 1234),
                    (HostConfig(instance=inst, layout="2x1000G@balanced"), 2000),
                    (HostConfig(instance=inst), 700)):
        got = plan_host(h, cfg, opts, CAT, "test", 60)
        assert isinstance(got, FleetHost) and got.plan is not None
        assert got.plan.requirements.capacity_gb == gb
