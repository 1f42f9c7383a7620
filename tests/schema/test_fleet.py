"""schema.fleet: per-host results and the fleet summary; the recommended cost comes from the plan's first
candidate, and the prediction kept for the replay never reaches the JSON."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from blockfit.schema.cost import Cost
from blockfit.schema.fleet import FleetHost, FleetProblem, FleetResult, HostNow
from blockfit.schema.history import DerivedTargets
from support.build import make_layout, make_plan


def targets() -> DerivedTargets:
    return DerivedTargets(sources=[], samples=10, interval_s=60, percentile=99, percentile_name="p99", peak_factor=1,
                          peak_factor_source="the user's", headroom_pct=0, iops=100, mbps=1, read_pct=50,
                          target_iops=100, target_mbps=1)


def _now() -> HostNow:
    return HostNow(layout="2x100G@gp3", instance="m6i.large", max_iops=6000, max_mbps=250,
                   iops_limited_by="volume_iops", mbps_limited_by="volume_mbps",
                   cost=Cost(storage=16.0, compute=70.0, total=86.0))


def test_the_recommended_cost_is_the_first_candidates() -> None:
    plan = make_plan(make_layout())
    host = FleetHost(host="db1", status="within", targets=targets(), plan=plan)
    assert host.recommended_cost == plan.candidates[0].cost
    assert FleetHost(host="db2", status="unknown", targets=targets()).recommended_cost is None
    empty = plan.model_copy(update={"candidates": []})
    assert FleetHost(host="db3", status="unknown", targets=targets(), plan=empty).recommended_cost is None


def test_the_kept_prediction_is_not_part_of_the_result() -> None:
    now = _now()
    assert now.prediction is None
    pred = make_plan(make_layout()).candidates[0].prediction
    now._prediction = pred
    assert now.prediction is pred
    assert "prediction" not in now.model_dump() and "_prediction" not in now.model_dump_json()


@pytest.mark.parametrize("bad", [{"status": "fine"}, {"targets": None}])
def test_a_host_refuses_bad_values(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        FleetHost.model_validate({"host": "db1", "status": "within", "targets": targets(), **bad})


def test_a_problem_has_one_of_two_causes() -> None:
    assert FleetProblem(host="db1", message="m", cause="server").cause == "server"
    with pytest.raises(ValidationError):
        FleetProblem(host="db1", message="m", cause="network")  # type: ignore[arg-type]


def test_the_fleet_result_kind_is_fleet() -> None:
    assert FleetResult.model_fields["kind"].default == "fleet"
