"""schema.lab: a lab run's figures, scaled, and the lab bench's ratios."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from blockfit.schema.lab import LabBenchRatio, LabCaps, LabFigures, LabLimits, LabResult


def _figures(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "layout": "2x100G@gp3", "members": 2, "predicted_iops": 6000, "measured_iops": 5900, "predicted_mbps": 250,
        "measured_mbps": 245, "limited_by": LabLimits(iops="member_iops", mbps="member_mbps"),
        "predicted_limited_by": LabLimits(iops="member_iops", mbps="member_mbps"), "iops_ratio": 5900 / 6000,
        "mbps_ratio": 245 / 250, "caps": LabCaps(member_iops=3000, member_bps=125_000_000)}
    return {**base, **kw}


def _result(**kw: object) -> LabResult:
    base = _figures(scale=0.1, cloud="aws", instance="m6i.large", manager="lvm", fs="xfs", small_io=8192,
                    large_io=1 << 20, iodepth=32, runtime_s=10, single=None, kernel="6.1", guest_seconds=30)
    return LabResult.model_validate({**base, **kw})


def test_a_lab_result_round_trips_with_its_single_volume_figures() -> None:
    res = _result(single=LabFigures.model_validate(_figures(layout="1x100G@gp3", members=1)))
    back = LabResult.model_validate_json(res.model_dump_json())
    assert back == res and back.kind == "lab" and back.direction == "read" and back.redundancy == "none"


def test_ocpus_are_left_out_of_the_json_when_absent() -> None:
    assert "ocpus" not in _result().model_dump(mode="json")
    assert _result(ocpus=2.0).model_dump(mode="json")["ocpus"] == 2.0


@pytest.mark.parametrize("bad", [{"direction": "both"}, {"caps": None}, {"members": "two"}, {"kind": "bench"}])
def test_a_lab_result_refuses_bad_values(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        _result(**bad)


def test_a_lab_bench_ratio_must_lean_on_iops_or_mbps() -> None:
    base: dict[str, object] = {"measure": "dss", "basis": "mbps", "predicted_ratio": 2.0, "measured_ratio": None,
                               "verdict": "faster", "text": "t", "io_bound_runs": "0 of 3"}
    assert LabBenchRatio.model_validate(base).measured_ratio is None
    with pytest.raises(ValidationError):
        LabBenchRatio.model_validate({**base, "basis": "latency"})
