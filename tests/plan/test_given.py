"""plan.given: a layout the user names becomes a one-candidate plan, with the model's own prediction of it."""

from __future__ import annotations

import pytest

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.plan.given import plan_for_layout
from blockfit.plan.stripe import recommend_stripe
from blockfit.schema import Plan, Workload
from blockfit.specs import parse_instance, parse_layout

AWS = load_catalog("aws")


def _plan(spec: str, stripe: int | None) -> Plan:
    return plan_for_layout(parse_layout(spec, "aws", AWS), parse_instance("m6i.4xlarge", "aws", AWS), AWS, stripe)


def test_a_given_stripe_is_kept_and_said() -> None:
    plan = _plan("4x500G@gp3", 256 * 1024)
    (cand,) = plan.candidates
    assert cand.layout_detail.stripe_size == 256 * 1024 and "--stripe-size" in cand.stripe_reason
    assert plan.feasible and cand.meets_targets and plan.cloud == "aws"


def test_without_one_the_plan_recommends_its_own() -> None:
    (cand,) = _plan("4x500G@gp3", None).candidates
    wl = Workload()
    assert (cand.layout_detail.stripe_size, cand.stripe_reason) == recommend_stripe(4, "lvm", wl.small_io,
                                                                                    wl.large_io)


def test_one_volume_has_no_stripe() -> None:
    (cand,) = _plan("1x500G@gp3", None).candidates
    assert cand.layout_detail.stripe_size is None


@pytest.mark.parametrize("spec", ["2x1T@gp3", "3x500G@io2:8000"])
def test_the_candidate_is_what_model_predicts_for_it(spec: str) -> None:
    plan = _plan(spec, None)
    cand = plan.candidates[0]
    again = predict(cand.layout_detail, cand.instance_detail, Workload(), catalog=AWS)
    assert (cand.max_iops, cand.max_mbps) == (again.max_iops, again.max_mbps)
    assert plan.requirements.capacity_gb == pytest.approx(cand.layout_detail.usable_gb)
    assert Plan.model_validate_json(plan.model_dump_json()) == plan
