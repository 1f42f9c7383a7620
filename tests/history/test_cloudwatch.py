"""history.cloudwatch: a get-metric-data export turned into per-volume rates (Sum / Period), the busiest minute
from Maximum, and exports that do not say their period or mix periods refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.errors import ValueProblem
from blockfit.history import cloudwatch

T0 = 1_750_000_000


def _export(period: int, sums: dict[str, list[float]], stat: str = "Sum", step: int | None = None,
            unit: str | None = None) -> dict[str, Any]:
    queries, results = [], []
    for i, (metric, vals) in enumerate(sums.items()):
        ms: dict[str, Any] = {"Metric": {"Namespace": "AWS/EBS", "MetricName": metric,
                                         "Dimensions": [{"Name": "VolumeId", "Value": "vol-1"}]},
                              "Period": period, "Stat": stat}
        if unit is not None:
            ms["Unit"] = unit
        queries.append({"Id": f"q{i}", "MetricStat": ms})
        ts = [f"2025-06-15T{(k * (step or period)) // 3600:02d}:{(k * (step or period)) // 60 % 60:02d}:00Z"
              for k in range(len(vals))]
        results.append({"Id": f"q{i}", "Timestamps": ts, "Values": vals})
    return {"MetricDataQueries": queries, "MetricDataResults": results}


def _read(doc: object) -> Any:
    return cloudwatch.read(Path("cw.json"), json.dumps(doc))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 10**7), min_size=4, max_size=4), st.sampled_from([60, 300, 3600]))
def test_rates_are_the_sums_over_the_period(v: list[int], period: int) -> None:
    sums = {m: [float(x)] * 3 for m, x in zip(cloudwatch.METRICS, v, strict=True)}
    series = _read(_export(period, sums))
    assert series.format == "cloudwatch" and series.members == ["vol-1"] and len(series.samples) == 3
    s = series.samples[0]
    assert s.read_iops == pytest.approx(v[0] / period) and s.write_iops == pytest.approx(v[1] / period)
    assert s.read_mbps == pytest.approx(v[2] / period / 1e6) and s.write_mbps == pytest.approx(v[3] / period / 1e6)
    assert s.duration_s == period


def test_an_export_without_its_queries_is_refused() -> None:
    with pytest.raises(ValueProblem, match="without their MetricDataQueries"):
        _read({"MetricDataResults": [], "MetricDataQueries": []})


def test_a_unit_that_contradicts_the_metric_is_refused() -> None:
    with pytest.raises(ValueProblem, match="counted in Count"):
        _read(_export(300, {"VolumeReadOps": [1.0]}, unit="Bytes"))


def test_an_unknown_statistic_is_refused() -> None:
    with pytest.raises(ValueProblem, match="expected Sum, Average or Maximum"):
        _read(_export(300, {m: [1.0] for m in cloudwatch.METRICS}, stat="p99"))


def test_points_closer_than_the_period_are_refused() -> None:
    with pytest.raises(ValueProblem, match="mixes periods"):
        _read(_export(300, {m: [1.0, 2.0] for m in cloudwatch.METRICS}, step=60))


@pytest.mark.parametrize("doc", [[], {"x": 1}, "text"])
def test_what_is_no_cloudwatch_export_is_refused(doc: object) -> None:
    with pytest.raises(ValueProblem, match="not a CloudWatch export"):
        _read(doc)


def test_text_that_is_no_json_is_one_line() -> None:
    with pytest.raises(ValueProblem, match="not valid JSON"):
        cloudwatch.read(Path("cw.json"), "{")
