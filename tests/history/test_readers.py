"""history.readers: a history's format told from its content, CSV timestamps read as ISO 8601 or POSIX
seconds, and a declared format checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
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
