"""schema.measurement: the calibrate result, read from the documented example and back."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from blockfit.schema.measurement import Measurement

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "calibrate.json"


def _example() -> Measurement:
    return Measurement.model_validate_json(EXAMPLE.read_text())


def test_the_documented_example_round_trips() -> None:
    m = _example()
    assert m.kind == "calibrate" and m.curve
    assert Measurement.model_validate_json(m.model_dump_json()) == m


def test_the_example_is_consistent_with_its_own_curve() -> None:
    """max_iops is met within the bound; saturation is the highest small-I/O rate at any depth."""
    m = _example()
    assert m.saturation_iops >= m.max_iops
    assert not m.bound_met or m.latency_ms <= m.max_latency_ms


def test_a_measurement_refuses_another_kind_and_a_missing_field() -> None:
    data = _example().model_dump()
    with pytest.raises(ValidationError):
        Measurement.model_validate({**data, "kind": "lab"})
    del data["fio_version"]
    with pytest.raises(ValidationError):
        Measurement.model_validate(data)


def test_defaults_are_empty_and_not_shared() -> None:
    data = _example().model_dump()
    for key in ("hosts", "warnings", "curve", "job_files"):
        data.pop(key)
    a, b = Measurement.model_validate(data), Measurement.model_validate(data)
    a.warnings.append("w")
    a.job_files["x"] = "y"
    assert b.warnings == [] and b.job_files == {} and a.partial is False and a.stopped_by is None
