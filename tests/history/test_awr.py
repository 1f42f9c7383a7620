"""history.awr: the public AWR reports read as one interval each, their numbers and times parsed, and cut or
foreign files refused in one line."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blockfit.errors import ValueProblem
from blockfit.history import awr
from support.awr_samples import AWR, STATSPACK, needs_samples, sample, snapshots_in_name


@needs_samples
@pytest.mark.parametrize("name", AWR)
def test_each_sample_is_one_interval_of_its_named_snapshots(name: str) -> None:
    path, text = sample(name)
    rep = awr.parse(path, text, expect=("awr", "awr-global"))
    assert (rep.begin_snap, rep.end_snap) == snapshots_in_name(name)
    assert rep.elapsed_s > 0 and set(awr.STATS) <= set(rep.stats)
    assert awr.is_html(text) == name.endswith(".html")
    (s,) = awr.to_series(rep).samples
    assert s.key == f"{rep.begin_snap}-{rep.end_snap}" and s.duration_s == rep.elapsed_s
    assert s.iops == pytest.approx((rep.stats[awr.STATS[0]] + rep.stats[awr.STATS[1]]) / rep.elapsed_s)
    assert s.read_mbps + s.write_mbps == pytest.approx(
        (rep.stats[awr.STATS[2]] + rep.stats[awr.STATS[3]]) / rep.elapsed_s / 1e6)


@needs_samples
def test_a_statspack_report_is_not_read_as_awr() -> None:
    path, text = sample(STATSPACK[0])
    with pytest.raises(ValueProblem, match="a Statspack report, read as an AWR report"):
        awr.read(path, text)


@needs_samples
@pytest.mark.parametrize("name", [AWR[0], AWR[2]])
def test_a_report_cut_short_is_refused(name: str) -> None:
    path, text = sample(name)
    cut = text[: text.rindex(awr.END_MARK)]
    with pytest.raises(ValueProblem, match="truncated"):
        awr.read(path, cut)


def test_a_file_that_is_no_report_is_refused() -> None:
    with pytest.raises(ValueProblem, match="not an AWR or Statspack report"):
        awr.read(Path("notes.txt"), "hello\n" + awr.END_MARK)


@given(st.integers(min_value=0, max_value=10**12), st.integers(min_value=0, max_value=99))
def test_a_number_with_thousands_separators_reads_back(whole: int, cents: int) -> None:
    assert awr.number(f"{whole:,}") == whole
    assert awr.number(f"{whole:,}.{cents:02d}") == pytest.approx(whole + cents / 100)


@pytest.mark.parametrize("text", ["####", "N/A", "", "  ", "1.2.3", "12a"])
def test_what_is_not_a_number_is_none(text: str) -> None:
    assert awr.number(text) is None


def test_oracle_times_are_read_as_utc_with_or_without_seconds() -> None:
    t = datetime(2023, 2, 4, 19, 0, 39, tzinfo=UTC).timestamp()
    assert awr.oracle_time("04-Feb-23 19:00:39") == t
    assert awr.oracle_time("04-Feb-23 19:00") == t - 39
    assert awr.oracle_time("04-Feb-2023 19:00:39") == t
    assert awr.oracle_time("2023-02-04 19:00") is None


def test_html_tables_give_each_tables_summary_and_cell_text() -> None:
    text = ('<html><body><table summary="a &amp; b"><tr><th>Statistic</th><th>Total</th></tr>'
            '<tr><td>x <b>y</b></td><td>1,234</td></tr></table><table><tr><td>z</td></tr></table></body></html>')
    assert awr.is_html(text)
    (s1, rows1), (s2, rows2) = awr.html_tables(text)
    assert s1 == "a & b" and rows1[0] == ["Statistic", "Total"] and rows1[1][1] == "1,234"
    assert "y" in rows1[1][0] and s2 == "" and rows2 == [["z"]]
