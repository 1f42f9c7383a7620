"""history.azure_monitor: `az monitor metrics list` output read as per-disk rates; the interval comes from the
file (ISO 8601), units must match the metric's name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.errors import ValueProblem
from blockfit.history import azure_monitor

DISK = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/data1"
NAMES = ["Composite Disk Read Operations/sec", "Composite Disk Write Operations/sec",
         "Composite Disk Read Bytes/sec", "Composite Disk Write Bytes/sec"]


def _metric(name: str, values: list[float], unit: str | None = None, step_min: int = 5,
            maximum: float | None = None) -> dict[str, Any]:
    unit = unit or ("BytesPerSecond" if "Bytes" in name else "CountPerSecond")
    data = [{"timeStamp": f"2025-06-15T08:{k * step_min:02d}:00Z", "average": v,
             **({"maximum": maximum} if maximum is not None else {})} for k, v in enumerate(values)]
    return {"id": f"{DISK}/providers/Microsoft.Insights/metrics/x", "name": {"value": name}, "unit": unit,
            "timeseries": [{"data": data}]}


def _read(doc: object) -> Any:
    return azure_monitor.read(Path("az.json"), json.dumps(doc))


@given(st.integers(0, 30), st.integers(0, 23), st.integers(0, 59), st.integers(0, 59))
def test_an_iso_duration_is_its_seconds(d: int, h: int, m: int, s: int) -> None:
    text = f"P{d}DT{h}H{m}M{s}S"
    assert azure_monitor.duration_s(text, Path("az.json")) == d * 86400 + h * 3600 + m * 60 + s


@pytest.mark.parametrize("text", ["", "P", "5M", "PT", "every 5 minutes"])
def test_what_is_no_duration_is_refused(text: str) -> None:
    with pytest.raises(ValueProblem, match="not an ISO 8601 duration"):
        azure_monitor.duration_s(text, Path("az.json"))


def test_per_second_averages_are_the_rates_and_the_maximum_the_peak() -> None:
    doc = {"interval": "PT5M", "value": [_metric(NAMES[0], [100.0, 200.0], maximum=900.0),
                                         _metric(NAMES[1], [50.0, 50.0], maximum=100.0),
                                         _metric(NAMES[2], [1e6, 2e6]), _metric(NAMES[3], [5e5, 5e5])]}
    series = _read(doc)
    assert series.format == "azure-monitor" and series.members == ["data1"]
    last = max(series.samples, key=lambda s: s.start or 0)
    assert (last.read_iops, last.write_iops) == (200.0, 50.0)
    assert last.read_mbps == pytest.approx(2.0) and last.write_mbps == pytest.approx(0.5)
    assert all(s.duration_s == 300 for s in series.samples)


def test_a_unit_that_contradicts_the_name_is_refused() -> None:
    doc = {"interval": "PT5M", "value": [_metric(NAMES[0], [1.0], unit="BytesPerSecond")]}
    with pytest.raises(ValueProblem, match="is in CountPerSecond"):
        _read(doc)


def test_points_spaced_other_than_the_interval_are_refused() -> None:
    doc = {"interval": "PT5M", "value": [_metric(n, [1.0, 1.0], step_min=1) for n in NAMES]}
    with pytest.raises(ValueProblem, match="mixes intervals"):
        _read(doc)


def test_an_export_without_its_interval_or_disk_metrics_is_refused() -> None:
    with pytest.raises(ValueProblem, match="no 'interval'"):
        _read({"value": []})
    with pytest.raises(ValueProblem, match="no disk read/write"):
        _read({"interval": "PT5M", "value": [_metric("Percentage CPU", [1.0], unit="Percent")]})
    with pytest.raises(ValueProblem, match="not Azure Monitor metrics JSON"):
        _read([1, 2])
