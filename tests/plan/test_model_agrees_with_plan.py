"""One truth (issue 37): `model` of the recommended layout, at its defaults, returns the plan's figures, binding
limits and cost exactly, on every cloud, because both predict at the host settings build makes (model/host.py).

Before: OCI's plan assumed node.session.queue_depth 128 and model the kernel's 32, so `model` of Part 3's
6x768G@balanced gave 135,295 IOPS against the plan's 150,000."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blockfit.catalog import Catalog, load_catalog
from blockfit.model import predict
from blockfit.model.instance import instance_at
from blockfit.plan import make_plan
from blockfit.plan.evaluate import Evaluator
from blockfit.plan.planner import meeting_candidates, ranked_points
from blockfit.plan.space import default_space
from blockfit.schema import Requirements, Workload
from blockfit.specs import parse_instance, parse_layout


def named_count(cat: Catalog, shape: str, count: float | None) -> dict[str, float | None]:
    """Requirements' fields of SHAPE:COUNT (the cloud's own unit): vCPUs, and OCPUs on OCI."""
    inst = instance_at(cat, shape, count)
    return {"instance_vcpus": inst.vcpus, "instance_ocpus": inst.ocpus}

# (instance, levels) pairs per cloud: fixed sizes and open counts, every volume family; levels named one at a time
# where a type's provisioning options make the search slow (gp3, Hyperdisk), so 200 plans a cloud take ~10 s
CASES = {"oci": [("VM.Standard.E3.Flex:12", None), ("VM.Standard.E4.Flex:16", None), ("VM.Standard.E5.Flex", None),
                 ("VM.Optimized3.Flex", None), ("VM.Standard.E4.Flex:8", "30vpu"),
                 ("VM.Standard.E3.Flex:24", "120vpu")],
         "aws": [("r7i.4xlarge", "gp3"), ("m5.12xlarge", "io2"), ("r6i.24xlarge", "gp2"), ("m6i.2xlarge", "io1"),
                 ("r7i.4xlarge", "st1"), ("m5.12xlarge", None)],
         "azure": [("Standard_E4s_v5", None), ("Standard_E16s_v5", None), ("Standard_E64s_v5", None),
                   ("Standard_E48s_v5", "premium-v2"), ("Standard_E4s_v5", "ultra")],
         "gcp": [("n2-standard-16", "pd-ssd"), ("n2-highmem-32", "pd-balanced"), ("n2", "pd-ssd"),
                 ("c3-standard-44", "hyperdisk-balanced"), ("c3-standard-88", "hyperdisk-extreme")]}
CATS = {c: load_catalog(c) for c in CASES}
RUNS = 200


def model_at_defaults(cloud: str, layout: str, instance: str):
    """What `blockfit model --cloud C --layout L --instance I` computes, in process."""
    cat = CATS[cloud]
    return predict(parse_layout(layout, cloud, cat), parse_instance(instance, cloud, cat), Workload(), cat)


@pytest.mark.slow   # 800 plans: ~45 s of CPU; the two tests below are the fast regression checks
@pytest.mark.parametrize("cloud", sorted(CATS))
def test_model_of_the_recommendation_returns_the_plans_figures(cloud: str) -> None:
    cat = CATS[cloud]
    seen = {"feasible": 0}

    @settings(max_examples=RUNS, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(case=st.sampled_from(CASES[cloud]), capacity=st.integers(50, 30_000),
           iops=st.none() | st.integers(500, 200_000), mbps=st.none() | st.integers(50, 3_000))
    def one(case: tuple[str, str | None], capacity: int, iops: int | None, mbps: int | None) -> None:
        shape, levels = case
        name, _, count = shape.partition(":")
        req = Requirements(cloud=cloud, capacity_gb=capacity, target_iops=iops, target_mbps=mbps,
                           instance_shape=name, **named_count(cat, name, float(count) if count else None),
                           levels=levels.split(",") if levels else None)
        # make_plan's recommendation without its notes and infeasibility search (the slow parts, not under test)
        space = default_space(cat, req)
        found = meeting_candidates(req, cat, space, ranked_points(Evaluator(cat, req, space), space, 4), 1, brief=True)
        if not found:
            return
        seen["feasible"] += 1
        first = found[0]
        pred = model_at_defaults(cloud, first.layout, first.instance)
        mine = first.prediction
        assert (pred.max_iops, pred.max_mbps) == (mine.max_iops, mine.max_mbps), (first.layout, first.instance)
        assert (pred.iops_limited_by, pred.mbps_limited_by) == (mine.iops_limited_by, mine.mbps_limited_by)
        assert (pred.cost.storage, pred.cost.compute, pred.cost.total) == \
            (mine.cost.storage, mine.cost.compute, mine.cost.total)
        assert (pred.paths, pred.session_depth) == (mine.paths, mine.session_depth)
        assert first.session_queue_depth == (pred.session_depth if pred.attachment == "iscsi" else None)

    one()
    assert seen["feasible"] >= RUNS // 4, seen   # the draw reaches enough feasible plans to mean something


def test_model_default_is_what_build_sets_and_the_kernel_default_is_a_note() -> None:
    """Issue 37's case: Part 3's recommendation at model's defaults, and the kernel's 32 beside it."""
    plan = make_plan(Requirements(cloud="oci", capacity_gb=4608, target_iops=150_000,
                                  instance_shape="VM.Standard.E3.Flex", instance_ocpus=12), CATS["oci"])
    first = plan.candidates[0]
    pred = model_at_defaults("oci", first.layout, first.instance)
    assert pred.max_iops == first.max_iops >= 150_000
    assert pred.session_depth == first.session_queue_depth == 128
    at_32 = predict(parse_layout(first.layout, "oci", CATS["oci"]),
                    parse_instance(first.instance, "oci", CATS["oci"]), Workload(host_queue_depth=32), CATS["oci"])
    assert at_32.max_iops < 150_000
    assert any("kernel default queue depth 32" in n and f"{at_32.max_iops:,.0f} IOPS" in n for n in pred.notes)
    assert any(f"{at_32.max_iops:,.0f} IOPS" in n for n in plan.notes)   # the plan says it too


def test_plan_queue_depth_is_the_models_and_never_offers_a_layout_that_misses() -> None:
    """--queue-depth means the same in plan as in model; at 32 the in-flight limit binds and the search's fast
    path (caps only) passes layouts that miss: plan offers only layouts whose prediction meets the targets."""
    req = Requirements(cloud="oci", capacity_gb=4608, target_iops=150_000, instance_shape="VM.Standard.E3.Flex",
                       instance_ocpus=12, queue_depth=32)
    plan = make_plan(req, CATS["oci"])
    assert plan.candidates and all(c.meets_targets for c in plan.candidates)
    first = plan.candidates[0]
    assert first.session_queue_depth == 32
    pred = predict(parse_layout(first.layout, "oci", CATS["oci"]), parse_instance(first.instance, "oci", CATS["oci"]),
                   Workload(host_queue_depth=32), CATS["oci"])
    assert pred.max_iops == first.max_iops >= 150_000
