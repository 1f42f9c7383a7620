"""history/series.py: a SampleTable (columns, a fraction of a Sample's memory) reads back every Sample it was given,
None and surrogates included; times and counters from files are checked in one line each."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.errors import ValueProblem
from blockfit.history.series import Sample, SampleTable, Series, check_rate, counter_delta, iso, parse_time

RATE = st.floats(0, 1e9, allow_nan=False)
SAMPLES = st.lists(st.builds(
    Sample, key=st.one_of(st.text(max_size=8), st.integers(0, 10**6), st.floats(0, 2e9)),
    member=st.sampled_from(["sda", "sdb", "inst1", "\udcff"]), start=st.none() | st.floats(0, 2e9),
    duration_s=st.floats(1, 86400), label=st.text(max_size=10), read_iops=st.none() | RATE,
    write_iops=st.none() | RATE, iops=RATE, read_mbps=RATE, write_mbps=RATE, peak_iops=st.none() | RATE,
    peak_mbps=st.none() | RATE), max_size=30)


@given(SAMPLES)
def test_a_table_reads_back_what_it_was_given(samples: list[Sample]) -> None:
    table = SampleTable()
    for s in samples:
        table.append(s)
    assert list(table) == samples and len(table) == len(samples)
    assert table[1:4] == samples[1:4]
    if samples:
        assert table[-1] == samples[-1]
    assert Series("f", "csv", "device", table).members == Series("f", "csv", "device", samples).members


def test_positional_keys_are_the_row_numbers_and_out_of_range_is_an_index_error() -> None:
    table = SampleTable(positional_keys=True)
    for key in ("a", "b", "c"):
        table.add(key, "sda", None, 1.0, "", None, None, 10.0, 1.0, 2.0)
    assert [s.key for s in table] == [0, 1, 2] and table[0].mbps == 3.0
    with pytest.raises(IndexError):
        table[3]


@given(st.integers(0, 4_000_000_000))
def test_iso_and_parse_time_are_inverse(ts: int) -> None:
    text = iso(ts)
    assert text is not None and text.endswith("Z")
    assert parse_time(text, "f", "row 1") == ts
    assert iso(None) is None


def test_a_time_without_zone_is_utc_and_a_bad_one_is_one_line() -> None:
    assert parse_time("2026-11-01T00:00:00", "f", "x") == parse_time("2026-11-01T01:00:00+01:00", "f", "x")
    with pytest.raises(ValueProblem, match=r"^f: row 2: 'yesterday' is not an ISO 8601 time$"):
        parse_time("yesterday", "f", "row 2")


def test_rates_and_counters_from_files_are_checked() -> None:
    assert check_rate("f", "row 1", "reads", 3.5) == 3.5
    for bad in (-1.0, math.inf, math.nan):
        with pytest.raises(ValueProblem, match="expected a finite figure of at least 0"):
            check_rate("f", "row 1", "reads", bad)
    assert counter_delta("f", "snap 2", "reads", 100, 250) == 150
    with pytest.raises(ValueProblem, match="went down from 250 to 100"):
        counter_delta("f", "snap 2", "reads", 250, 100)
