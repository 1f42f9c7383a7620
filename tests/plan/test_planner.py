"""plan.planner: candidates cheapest first, each meeting every target, each the model's own prediction of it."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.plan.advice import workload
from blockfit.plan.planner import make_plan
from blockfit.schema import Plan, Requirements

AWS = load_catalog("aws")


@pytest.fixture(scope="module")
def plan() -> Plan:
    """A small search: io2 only, at most two volumes (~0.3 s)."""
    return make_plan(Requirements(cloud="aws", capacity_gb=500, target_iops=6000, target_mbps=200,
                                  instance_shape="m6i.2xlarge", levels=["io2"], max_volumes=2), AWS)


def test_candidates_meet_every_target_cheapest_first(plan: Plan) -> None:
    assert plan.feasible and plan.candidates
    costs = [c.ranked_cost for c in plan.candidates]
    assert costs == sorted(costs)
    for c in plan.candidates:
        assert c.meets_targets and c.max_iops >= 6000 and c.max_mbps >= 200
        assert c.layout_detail.total_gb >= 500 and c.layout_detail.members <= 2


def test_each_candidate_is_what_model_predicts_for_it(plan: Plan) -> None:
    for c in plan.candidates[:2]:
        again = predict(c.layout_detail, c.instance_detail, workload(plan.requirements), AWS, with_curve=False)
        assert (again.max_iops, again.max_mbps) == pytest.approx((c.max_iops, c.max_mbps))


def test_a_target_past_the_instance_is_infeasible_with_the_best_it_reaches() -> None:
    out = make_plan(Requirements(cloud="aws", capacity_gb=500, target_iops=2e6, instance_shape="m6i.large",
                                 levels=["gp3"], max_volumes=2), AWS)
    assert not out.feasible and out.candidates == [] and out.infeasible is not None
    assert out.infeasible.best is not None and out.infeasible.best.max_iops < 2e6
