"""schema.plan: the requirements' derived figures and a candidate's ranking, from their fields."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from blockfit.schema.cost import Cost
from blockfit.schema.plan import NO_RANGE, OPEN_COUNT, Candidate, Plan, Requirements
from support.build import make_layout, make_plan


def _req(**kw: object) -> Requirements:
    return Requirements.model_validate({"cloud": "aws", "capacity_gb": 1000, "instance_shape": "m6i", **kw})


def _candidate(storage: float | None, compute: float | None) -> Candidate:
    cand = make_plan(make_layout()).candidates[0]
    pred = cand.prediction.model_copy(update={"cost": Cost(storage=storage, compute=compute, total=None)})
    return cand.model_copy(update={"prediction": pred})


@settings(max_examples=50, deadline=None)
@given(st.floats(0.1, 1e5), st.floats(0, 500), st.sampled_from(["none", "normal", "high"]))
def test_needed_capacity_grows_with_growth_and_copies(gb: float, growth: float, redundancy: str) -> None:
    req = _req(capacity_gb=gb, growth_pct=growth, redundancy=redundancy)
    copies = {"none": 1, "normal": 2, "high": 3}[redundancy]
    assert req.needed_gb == pytest.approx(gb * (1 + growth / 100) * copies)
    assert req.needed_gb >= gb


@pytest.mark.parametrize("pct", [-0.1, 100.1])
def test_the_read_share_is_a_percentage(pct: float) -> None:
    with pytest.raises(ValidationError):
        _req(read_pct=pct)
    assert _req(read_pct=25).read_share == 0.25


@pytest.mark.parametrize("field", ["paths", "queue_depth", "outstanding", "memory_gb", "vcpus_min"])
def test_counts_must_be_positive(field: str) -> None:
    with pytest.raises(ValidationError):
        _req(**{field: 0})


def test_the_count_is_in_the_clouds_selling_unit() -> None:
    assert _req(instance_vcpus=8).instance_count == 8
    oci = _req(instance_vcpus=8, instance_ocpus=4, ocpus_min=2, vcpus_min=4, vcpus_max=16)
    assert (oci.instance_count, oci.count_min, oci.count_max) == (4, 2, 16)
    opened = oci.model_copy(update={**OPEN_COUNT, **NO_RANGE})
    assert opened.instance_count is None and opened.count_min is None and opened.count_max is None


def test_ocpus_are_never_written_where_absent() -> None:
    assert "instance_ocpus" not in _req().model_dump(mode="json")
    assert _req(instance_ocpus=2).model_dump(mode="json")["instance_ocpus"] == 2


def test_an_unpriced_candidate_ranks_after_every_priced_one() -> None:
    priced, unpriced = _candidate(1e6, None), _candidate(None, 1.0)
    assert priced.price_known and not unpriced.price_known
    assert priced.ranked_cost == 1e6 and unpriced.ranked_cost == float("inf")
    assert _candidate(10.0, 5.0).ranked_cost == 15.0


def test_the_binding_limit_follows_the_target_asked() -> None:
    cand = make_plan(make_layout()).candidates[0]
    p = cand.prediction.model_copy(update={"iops_limited_by": "a", "mbps_limited_by": "b"})
    cand = cand.model_copy(update={"prediction": p})
    assert cand.limited_by(_req()) == "a"
    assert cand.limited_by(_req(target_mbps=100)) == "b"
    assert cand.limited_by(_req(target_mbps=100, target_iops=10)) == "a"


def test_a_plan_round_trips_and_knows_its_caps() -> None:
    plan = make_plan(make_layout())
    assert Plan.model_validate_json(plan.model_dump_json()) == plan
    cand = plan.candidates[0]
    assert cand.cap_known == (cand.prediction.instance_iops_cap is not None
                              and cand.prediction.instance_mbps_cap is not None)
    assert cand.layout_detail == cand.prediction.layout_detail and cand.max_iops == cand.prediction.max_iops
