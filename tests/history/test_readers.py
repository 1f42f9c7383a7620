"""history.readers: a history's format told from its content, CSV timestamps read as ISO 8601 or POSIX
seconds, and a declared format checked."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.errors import ValueProblem
from blockfit.history.readers import FORMATS, POSIX_RANGE, csv_time, detect, history_format, read_history
from support.awr_samples import AWR, STATSPACK, needs_samples, sample

P = Path("h")


@needs_samples
@pytest.mark.parametrize("name", AWR + STATSPACK)
def test_each_public_report_is_told_by_its_content(name: str) -> None:
    path, text = sample(name)
    assert detect(path, text) == ("statspack" if name in STATSPACK else "awr")


@pytest.mark.parametrize(("text", "fmt"), [
    (json.dumps({"sysstat": {"hosts": []}}), "iostat"),
    (json.dumps({"MetricDataResults": []}), "cloudwatch"),
    (json.dumps({"interval": "PT5M", "value": []}), "azure-monitor"),
    (json.dumps([{"query-text": "x", "data": []}]), "oci-monitoring"),
    ('{"type": "header", "format": "blockfit-pg-recording"}\n', "pg-recording"),
    ('{"type": "header", "interval_s": 1}\n', "diagnose"),
    ("BFIO-HEADER,1,statspack,DB,1,1\n", "statspack-spool"),
    ("BFIO-HEADER,1,awr,DB,1,1\n", "oracle-spool"),
    ("BFIO-SQLSERVER,2025-01-01T00:00:00,...\n", "sqlserver"),
    ("timestamp,read IOPS\n", "csv"),
])
def test_each_format_is_told_by_its_content(text: str, fmt: str) -> None:
    assert detect(P, text) == fmt and fmt in FORMATS


@pytest.mark.parametrize("text", ["[1, 2]", '{"x": 1}', "{"])
def test_json_of_no_known_export_is_refused(text: str) -> None:
    with pytest.raises(ValueProblem):
        detect(P, text)


@given(st.floats(POSIX_RANGE[0], POSIX_RANGE[1]))
def test_posix_seconds_in_range_are_kept(t: float) -> None:
    assert csv_time(P, "row 2", repr(t)) == t


@pytest.mark.parametrize("text", ["1700000000000", "12", "-1", "yesterday"])
def test_milliseconds_small_numbers_and_words_are_refused(text: str) -> None:
    with pytest.raises(ValueProblem, match="row 2"):
        csv_time(P, "row 2", text)


def test_an_iso_time_is_utc_unless_it_says_otherwise() -> None:
    assert csv_time(P, "r", "2026-12-01T00:00:00") == csv_time(P, "r", "2026-12-01T01:00:00+01:00")


def test_a_declared_format_must_be_known() -> None:
    assert history_format(None) is None and history_format("auto") is None and history_format("csv") == "csv"
    with pytest.raises(ValueProblem, match="expected one of"):
        history_format("nmon")


def test_a_csv_history_is_read_as_rates(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("timestamp,read IOPS,write IOPS,read MB/s,write MB/s\n"
                    "2026-12-01T00:00:00Z,100,50,1,2\n2026-12-01T00:01:00Z,200,50,1,2\n"
                    "2026-12-01T00:02:00Z,300,50,1,2\n")
    series = read_history(path)
    assert series.format == "csv" and len(series.samples) >= 2
    assert {s.read_iops for s in series.samples} <= {100.0, 200.0, 300.0}


def test_nul_bytes_are_no_history(tmp_path: Path) -> None:
    path = tmp_path / "h.bin"
    path.write_bytes(b"\x00\x01binary")
    with pytest.raises(ValueProblem, match="not a text file"):
        read_history(path)


# the keys the cloud readers look for, so that drawn documents reach deep into each reader
_KEYS = ["name", "value", "localizedValue", "timeseries", "data", "timeStamp", "average", "maximum", "total", "unit",
         "Label", "Datapoints", "Timestamp", "Sum", "Average", "Maximum", "Values", "Timestamps", "Id", "MetricStat",
         "Metric", "MetricName", "Period", "Stat", "Unit", "aggregated-datapoints", "aggregatedDatapoints",
         "timestamp", "query-text", "queryText", "dimensions", "resourceId", "interval", "timespan"]
_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 10**6) | st.floats(allow_nan=False, width=32)
                     | st.sampled_from(["", "x", "PT1M", "2026-01-01T00:00:00Z", "VolumeReadOps",
                                        "Disk Read Operations/Sec", "Count"]),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner,
                                                                                 max_size=4),
                     max_leaves=14)
_EXPORTS = st.one_of(
    st.builds(lambda v: {"interval": "PT1M", "value": v}, _JSON),
    st.builds(lambda r, q: {"MetricDataResults": r, "MetricDataQueries": q}, _JSON, _JSON),
    st.builds(lambda d: {"Label": "VolumeReadOps", "Datapoints": d}, _JSON),
    st.builds(lambda d: {"query-text": "VolumeReadOps[1m].sum()", "data": d}, _JSON),
    st.builds(lambda d: [{"name": "VolumeReadOps", "aggregated-datapoints": d}], _JSON))


@settings(max_examples=300, deadline=None)
@given(doc=_EXPORTS)
def test_a_cloud_export_nested_unlike_the_providers_is_one_error_naming_the_file(doc: object) -> None:
    """A string where an object belongs, deep in an Azure, CloudWatch or OCI export, once ended in a Python
    traceback (AttributeError: 'str' object has no attribute 'get'); it is a ValueProblem naming the file."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "export.json"
        path.write_text(json.dumps(doc))
        try:
            read_history(path)
        except ValueProblem as exc:
            assert str(exc).startswith(str(path)), exc


def test_an_azure_timeseries_entry_that_is_a_string_is_told() -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "azure.json"
        path.write_text(json.dumps({"interval": "PT1M", "value": [{"name": {"value": "Disk Read Operations/Sec"},
                                                                  "unit": "CountPerSecond", "timeseries": ["x"]}]}))
        with pytest.raises(ValueProblem, match="unexpected type"):
            read_history(path)
