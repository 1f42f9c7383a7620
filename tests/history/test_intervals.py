"""History intervals are read from the data: timestamps, sadf's stated intervals; irregular or contradictory
intervals are refused in one line; the burst rule holds on 60-second history in every format that carries time."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from tests.support.inproc import run

from blockfit.errors import InputError, ValueProblem
from blockfit.history import intervals
from blockfit.history.readers import read_history

T0 = datetime(2026, 11, 23, tzinfo=UTC)
HEADER = "timestamp,read IOPS,write IOPS,read MB/s,write MB/s"


def minute_rates(peak_minutes: int, peak_iops: float = 12_000, quiet_iops: float = 500) -> list[float]:
    """A day of one-minute demand: quiet, one peak of PEAK_MINUTES from 10:00."""
    return [peak_iops if 600 <= i < 600 + peak_minutes else quiet_iops for i in range(1440)]


def csv_posix(path: Path, rates: list[float]) -> Path:
    rows = [f"{(T0 + timedelta(minutes=i)).timestamp():.0f},{0.75 * r},{0.25 * r},{0.6},{0.2}"
            for i, r in enumerate(rates)]
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    return path


def csv_iso(path: Path, rates: list[float]) -> Path:
    rows = [f"{(T0 + timedelta(minutes=i)).strftime('%Y-%m-%dT%H:%M:%SZ')},{0.75 * r},{0.25 * r},{0.6},{0.2}"
            for i, r in enumerate(rates)]
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    return path


def iostat_t(path: Path, rates: list[float]) -> Path:
    """`iostat -t -x -d -o JSON 60 1441`: the since-boot report first, then one report a minute."""
    def report(i: int, r: float) -> dict[str, object]:
        t = T0 + timedelta(minutes=i)
        return {"timestamp": t.strftime("%m/%d/%y %H:%M:%S"),
                "disk": [{"disk_device": "sdb", "r/s": 0.75 * r, "w/s": 0.25 * r, "rkB/s": 600.0, "wkB/s": 200.0}]}
    stats = [report(-1, 99_999)] + [report(i, r) for i, r in enumerate(rates)]
    path.write_text(json.dumps({"sysstat": {"hosts": [{"nodename": "db", "statistics": stats}]}}))
    return path


def sadf(path: Path, rates: list[float], interval: Callable[[int], float] = lambda i: 60) -> Path:
    """`sadf -j FILE -- -d` of a sar file sampled every minute: each record states its interval."""
    stats = [{"timestamp": {"date": (T0 + timedelta(minutes=i)).strftime("%Y-%m-%d"),
                            "time": (T0 + timedelta(minutes=i)).strftime("%H:%M:%S"), "utc": 1,
                            "interval": interval(i)},
              "disk": [{"disk-device": "sdb", "tps": r, "rkB": 600.0, "wkB": 200.0}]} for i, r in enumerate(rates)]
    path.write_text(json.dumps({"sysstat": {"hosts": [{"nodename": "db", "statistics": stats}]}}))
    return path


WRITERS = {"csv-posix": csv_posix, "csv-iso": csv_iso, "iostat": iostat_t, "sadf": sadf}


@pytest.mark.parametrize("fmt", WRITERS)
def test_sixty_second_history_is_read_as_sixty_second_intervals(tmp_path: Path, fmt: str) -> None:
    """A CSV stamped in POSIX seconds was read as 1440 intervals of 1 s: a 50-minute peak looked like 50 s."""
    series = read_history(WRITERS[fmt](tmp_path / "h", minute_rates(50)))
    durations = {s.duration_s for s in series.samples}
    assert durations == {60.0}, durations
    assert len(series.samples) == 1440


@pytest.mark.parametrize("fmt", WRITERS)
@pytest.mark.parametrize("minutes, feasible", [(50, False), (12, True)])
def test_the_burst_rule_holds_on_sixty_second_history(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       fmt: str, minutes: int, feasible: bool) -> None:
    """m6i.large sustains 3,600 IOPS and bursts to 40,000 for 30 minutes a day: a 50-minute peak at 12,000 IOPS
    outlasts the burst on that instance; a 12-minute one fits in it."""
    history = WRITERS[fmt](tmp_path / "h", minute_rates(minutes))
    out = tmp_path / "plan.json"
    code, _, err = run(["plan", "--cloud", "aws", "--capacity", "500G", "--instance", "m6i.large", "--from",
                        str(history), "--percentile", "100", "--out", str(out)], capsys)
    plan = json.loads(out.read_text())
    assert plan["requirements"]["history"]["sources"][0]["interval_s"] == 60
    if feasible:
        assert code == 0 and plan["feasible"], err
        best = plan["candidates"][0]
        assert best["instance"] == "m6i.large" and best["prediction"]["max_iops"] < 12_000
        assert best["burst_replay"]["worst"]["duration_s"] == pytest.approx(12 * 60)
    else:
        assert code == 3 and not plan["feasible"]
        assert "m6i.large's burst runs out" in plan["infeasible"]["reason"]
        # an infeasible plan says the targets it derived, and from what (it printed only why)
        assert "Targets from 1 history: the peak of 1440 intervals of 60 s = 12,000 IOPS" in err
        assert plan["infeasible"]["best"]["burst_replay"]["drops"][0]["t"] == pytest.approx((600 + 30) * 60)


def refused(path: Path, needle: str) -> str:
    with pytest.raises(InputError, match=needle) as err:
        read_history(path)
    text = str(err.value)
    assert str(path) in text and "\n" not in text
    return text


def test_csv_rows_that_repeat_or_go_back_in_time_are_contradictory(tmp_path: Path) -> None:
    rates = minute_rates(0)[:10]
    lines = csv_iso(tmp_path / "h.csv", rates).read_text().splitlines()
    lines[5] = lines[4]
    (tmp_path / "same.csv").write_text("\n".join(lines) + "\n")
    text = refused(tmp_path / "same.csv", "contradictory timestamps")
    assert "data row 5 (2026-11-23T00:03:00Z) is at the same time as data row 4" in text
    lines[5], lines[6] = lines[6], lines[5]
    (tmp_path / "back.csv").write_text("\n".join(lines) + "\n")
    refused(tmp_path / "back.csv", "is before data row")


def test_irregular_csv_steps_are_refused_and_a_gap_is_counted(tmp_path: Path) -> None:
    rows = [f"{T0.timestamp() + t:.0f},1,1,0.1,0.1" for t in (0, 60, 120, 210, 270, 330)]   # 90 s once
    (tmp_path / "odd.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    refused(tmp_path / "odd.csv", r"data row 3 \(2026-11-23T00:02:00Z\) and data row 4 .* are 90 s apart where most "
                                  "samples are 60 s apart: irregular intervals")
    rows = [f"{T0.timestamp() + t:.0f},1,1,0.1,0.1" for t in (0, 60, 120, 480, 540, 600)]   # 5 minutes missing
    (tmp_path / "gap.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    series = read_history(tmp_path / "gap.csv")
    assert {s.duration_s for s in series.samples} == {60.0}
    assert any("1 gap(s) in the timestamps (5 interval(s) of 60 s missing)" in n for n in series.notes)


@pytest.mark.parametrize("stamp, needle", [
    ("12/01/2026 00:00", "neither ISO 8601"),
    ("1700000000000", "milliseconds"),
    ("t1", "neither ISO 8601"),
])
def test_a_csv_timestamp_that_is_not_a_time_is_refused(tmp_path: Path, stamp: str, needle: str) -> None:
    (tmp_path / "h.csv").write_text(f"{HEADER}\n{stamp},1,1,0.1,0.1\n2026-11-23T00:01:00Z,1,1,0.1,0.1\n")
    refused(tmp_path / "h.csv", needle)


def test_one_row_has_no_interval(tmp_path: Path) -> None:
    (tmp_path / "h.csv").write_text(f"{HEADER}\n2026-11-23T00:00:00Z,1,1,0.1,0.1\n")
    refused(tmp_path / "h.csv", "the sampling interval cannot be read from the data")


def test_iostat_without_timestamps_is_refused_not_read_as_seconds(tmp_path: Path) -> None:
    doc = json.loads(iostat_t(tmp_path / "t.json", minute_rates(0)[:5]).read_text())
    for rep in doc["sysstat"]["hosts"][0]["statistics"]:
        del rep["timestamp"]
    (tmp_path / "io.json").write_text(json.dumps(doc))
    refused(tmp_path / "io.json", "report 1: no timestamp: .* run iostat with -t")


def test_sadf_records_of_mixed_or_contradictory_intervals_are_refused(tmp_path: Path) -> None:
    rates = minute_rates(0)[:10]
    refused(sadf(tmp_path / "mixed.json", rates, lambda i: 600 if i == 4 else 60),
            "record 5 states an interval of 600 s where the others state 60 s: irregular intervals")
    refused(sadf(tmp_path / "contra.json", rates, lambda i: 10),
            "the records state 10-second intervals but their times are 60 s apart: contradictory intervals")


@given(step=st.sampled_from([1.0, 10.0, 60.0, 300.0, 3600.0]),
       gaps=st.lists(st.integers(min_value=1, max_value=20), min_size=1, max_size=40),
       jitter=st.floats(min_value=-0.04, max_value=0.04))
@example(step=1.0, gaps=[1, 2, 1, 1], jitter=0.0)  # whole-second iostat stamps: one step of 2 s
def test_spacing_finds_the_step_and_counts_whole_gaps(step: float, gaps: list[int], jitter: float) -> None:
    gaps = gaps + [1] * (len(gaps) + 1)   # most steps are one interval, so the median is the step
    times = [0.0]
    for k in gaps:
        times.append(times[-1] + k * step * (1 + jitter))   # a collector whose clock runs a few % fast or slow
    found = intervals.spacing(times, "h", lambda i: f"row {i + 1}")
    assert found.step_s == pytest.approx(step, rel=0.05)
    assert found.gaps == sum(1 for k in gaps if k > 1)
    assert found.missing == sum(k - 1 for k in gaps if k > 1)


@given(off=st.floats(min_value=0.06, max_value=0.85))
def test_spacing_refuses_a_step_between_one_and_two_intervals(off: float) -> None:
    times = [0.0, 60.0, 120.0, 180.0, 180.0 + 60 * (1 + off), 300.0 + 60 * (1 + off)]
    with pytest.raises(ValueProblem, match="irregular intervals"):
        intervals.spacing(times, "h", lambda i: f"row {i + 1}")
