"""history.sql: the export scripts write the markers and statistics the spool readers look for."""

from __future__ import annotations

import re

import pytest

from blockfit.history import awr, oracle_spool, sql, sqlserver


def test_each_export_has_a_script() -> None:
    assert set(sql.SCRIPTS) == {"oracle", "statspack", "sqlserver"}
    assert all(s.strip() for s in sql.SCRIPTS.values())


@pytest.mark.parametrize("name", ["oracle", "statspack"])
def test_the_oracle_scripts_write_the_spool_readers_lines(name: str) -> None:
    text = sql.SCRIPTS[name]
    assert "'BFIO-HEADER,1," in text and "'BFIO," in text
    kind = "awr" if name == "oracle" else "statspack"
    assert f"BFIO-HEADER,1,{kind}" in text
    for stat in sql.AWR_STATS:
        assert f"'{stat}'" in text


def test_the_statistics_are_the_ones_the_report_reader_sums() -> None:
    assert sql.AWR_STATS == awr.STATS
    for metric, stat in zip(sql.AWR_METRICS, sql.AWR_STATS, strict=True):
        assert metric.lower().replace(" per sec", "").replace("io ", "io ") == stat.lower()


def test_numbers_are_written_with_a_point_whatever_the_session_says() -> None:
    for name in ("oracle", "statspack"):
        assert "NLS_NUMERIC_CHARACTERS=''.,''" in sql.SCRIPTS[name]


def test_the_sqlserver_script_writes_its_readers_marker_and_columns() -> None:
    text = sql.SCRIPTS["sqlserver"]
    assert f"'{sqlserver.MARK}" in text
    select = text[text.index(sqlserver.MARK):]
    for col in ("num_of_reads", "num_of_bytes_read", "num_of_writes", "num_of_bytes_written", "physical_name"):
        assert col in select
    assert select.rindex("physical_name") > select.rindex("num_of_bytes_written")   # last: commas in it are safe


def test_the_spool_reader_field_count_matches_the_data_line() -> None:
    """BFIO,INST,SNAP_ID,BEGIN,END,STARTUP, four counters, four maxima: FIELDS + the marker."""
    doc = oracle_spool.__doc__ or ""
    line = re.search(r"^\s*BFIO,INST[^\n]*", doc, re.M)
    assert line is not None and len(line.group(0).strip().split(",")) == oracle_spool.FIELDS + 1
