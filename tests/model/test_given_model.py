"""model/given.py: a layout decided elsewhere as a plan of one candidate, the document `build` reads."""

from __future__ import annotations

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.model.given import given_requirements, one_candidate_plan
from blockfit.schema import Plan, Workload
from blockfit.specs import parse_instance, parse_layout

CAT = load_catalog("oci")


def _prediction():
    layout = parse_layout("9x500G@balanced", "oci", CAT)
    return predict(layout, parse_instance("VM.Standard.E3.Flex:12", "oci", CAT), Workload(), CAT, with_curve=False)


def test_a_layout_that_meets_is_the_plans_one_candidate_and_reads_back():
    pred = _prediction()
    req = given_requirements("oci", 4500, pred.instance_detail, "lvm")
    plan = one_candidate_plan(pred, req, "given", ["a note"])
    assert plan.feasible and plan.infeasible is None and len(plan.candidates) == 1
    cand = plan.candidates[0]
    assert cand.prediction == pred and cand.meets_targets and cand.stripe_reason == "given"
    assert (req.capacity_gb, req.instance_shape, req.manager) == (4500, "VM.Standard.E3.Flex", "lvm")
    assert Plan.model_validate_json(plan.model_dump_json()) == plan


def test_a_layout_that_misses_is_infeasible_naming_each_target_missed():
    pred = _prediction()
    req = given_requirements("oci", 4500, pred.instance_detail, "lvm")
    plan = one_candidate_plan(pred, req, "given", [], meets=False, missed=["200,000 IOPS", "2,000 MB/s"])
    assert not plan.feasible and plan.candidates == []
    assert plan.infeasible is not None and plan.infeasible.best is not None
    assert plan.infeasible.missed == ["200,000 IOPS", "2,000 MB/s"]
    assert plan.infeasible.reason.endswith("misses 200,000 IOPS and 2,000 MB/s")
    assert str(pred.layout) in plan.infeasible.reason
