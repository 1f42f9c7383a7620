"""history.oci_monitoring: summarize-metrics-data output with its query, read as per-volume rates; the
interval and statistic come from the query, never assumed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from blockfit.errors import ValueProblem
from blockfit.history import oci_monitoring


def _part(metric: str, values: list[float], interval: str = "5m", stat: str = "sum",
          unit: str | None = None) -> dict[str, Any]:
    meta = {"unit": unit} if unit else {}
    dps = [{"timestamp": f"2025-06-15T08:{5 * (k + 1):02d}:00Z", "value": v} for k, v in enumerate(values)]
    return {"query-text": f"{metric}[{interval}]{{resourceId = \"vol1\"}}.{stat}()",
            "data": [{"name": metric, "dimensions": {"resourceId": "vol1"}, "metadata": meta,
                      "aggregated-datapoints": dps}]}


def _read(doc: object) -> Any:
    return oci_monitoring.read(Path("oci.json"), json.dumps(doc))


def test_sums_over_the_interval_are_the_rates() -> None:
    vals = {"VolumeReadOps": 30000.0, "VolumeWriteOps": 6000.0, "VolumeReadThroughput": 3e8,
            "VolumeWriteThroughput": 6e7}
    series = _read([_part(m, [v, v]) for m, v in vals.items()])
    assert series.format == "oci-monitoring" and series.members == ["vol1"] and len(series.samples) == 2
    s = series.samples[0]
    assert (s.read_iops, s.write_iops) == (100.0, 20.0)
    assert s.read_mbps == pytest.approx(1.0) and s.write_mbps == pytest.approx(0.2)
    assert s.duration_s == 300 and s.start is not None


def test_max_per_minute_alone_is_the_rate_over_60_s() -> None:
    series = _read([_part(m, [600.0], stat="max") for m in oci_monitoring.METRICS])
    assert series.samples[0].read_iops == 10.0


def test_data_without_its_query_is_refused_with_the_hint() -> None:
    with pytest.raises(ValueProblem, match="query-text"):
        _read([{"aggregated-datapoints": []}])
    with pytest.raises(ValueProblem, match="no query-text"):
        _read({"data": []})


def test_mixed_intervals_a_wrong_unit_and_a_missing_metric_are_refused() -> None:
    with pytest.raises(ValueProblem, match="mixes intervals"):
        _read([_part("VolumeReadOps", [1.0]), _part("VolumeWriteOps", [1.0], interval="1h")])
    with pytest.raises(ValueProblem, match="counts operations"):
        _read([_part("VolumeReadOps", [1.0], unit="bytes")])
    with pytest.raises(ValueProblem, match="no VolumeWriteOps"):
        _read([_part(m, [1.0]) for m in oci_monitoring.METRICS if m != "VolumeWriteOps"])


@pytest.mark.parametrize("query", ["VolumeReadOps.sum()", "VolumeReadOps[5m].p99()", "CpuUtilization[5m].sum()"])
def test_a_query_that_does_not_say_interval_and_statistic_is_refused(query: str) -> None:
    with pytest.raises(ValueProblem, match="query"):
        _read({"query-text": query, "data": []})
