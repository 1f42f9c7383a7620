"""plan --from replays the history through each candidate's credit buckets (issue 40): a 12-minute peak just below
m6i.2xlarge's burst fits its 30 minutes, a 50-minute one does not and says why; gp2 credits that run out mid-history
show when, and what the layout delivers then, in the plan's JSON and report."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.inproc import run

from blockfit.catalog import load_catalog
from blockfit.model import predict
from blockfit.plan.replay import replay
from blockfit.schema import Workload
from blockfit.schema.history import DerivedTargets, HistoryPoint
from blockfit.specs import parse_instance, parse_layout

AWS = load_catalog("aws")
T0 = datetime(2026, 11, 23, tzinfo=UTC)


def day(path: Path, peak_at: int, peak_minutes: int, peak_iops: float, quiet_iops: float,
        peak_mbps: float = 200.0) -> Path:
    """A day of one-minute samples (75 % reads): quiet, one peak of peak_minutes from minute peak_at."""
    lines = ["timestamp,read IOPS,write IOPS,read MB/s,write MB/s"]
    for i in range(1440):
        iops, mbps = (peak_iops, peak_mbps) if peak_at <= i < peak_at + peak_minutes else (quiet_iops, 3.0)
        lines.append(f"{(T0 + timedelta(minutes=i)).strftime('%Y-%m-%dT%H:%M:%S')},{0.75 * iops},{0.25 * iops},"
                     f"{0.75 * mbps},{0.25 * mbps}")
    path.write_text("\n".join(lines) + "\n")
    return path


def plan_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], history: Path, *args: str,
              capacity: str = "500G") -> tuple[int, dict]:
    out = tmp_path / "plan.json"
    code, _, err = run(["plan", "--cloud", "aws", "--capacity", capacity, "--from", str(history), "--percentile",
                        "100", "--out", str(out), *args], capsys)
    assert out.exists(), err
    return code, json.loads(out.read_text())


def test_a_12_minute_peak_just_below_the_burst_fits_m6i_2xlarge(tmp_path, capsys):
    """AWS-EBSOPT: m6i.2xlarge sustains 12,000 IOPS and bursts to 40,000 'for 30 minutes at least once every 24
    hours'. A 12-minute peak at 39,000 IOPS spends 12 of the 30 minutes: feasible on that instance, 40 % used."""
    code, plan = plan_json(tmp_path, capsys, day(tmp_path / "d.csv", 600, 12, 39_000, 2_000),
                           "--instance", "m6i.2xlarge")
    assert code == 0 and plan["feasible"]
    best = plan["candidates"][0]
    assert best["instance"] == "m6i.2xlarge"
    assert best["prediction"]["max_iops"] == pytest.approx(12_000, rel=0.01)      # sustained: below the peak
    assert best["prediction"]["burst"]["max_iops"] >= 39_000
    rep = best["burst_replay"]
    assert rep["meets_targets"] and not rep["drops"]
    assert rep["worst"]["duration_s"] == pytest.approx(720) and rep["worst"]["budget_used_pct"] == pytest.approx(40)
    assert "the 12-minute peak at 39,000 IOPS used 40 % of m6i.2xlarge's 30-minute burst" in rep["summary"]


def test_a_50_minute_peak_at_the_burst_rate_does_not_and_says_why(tmp_path, capsys):
    """The same day with a 50-minute peak: the 30 minutes run out 30 minutes into it (10:30), and m6i.2xlarge falls
    to its sustained 12,000 IOPS while 39,000 are asked. Infeasible on that instance (exit 3), saying so."""
    code, plan = plan_json(tmp_path, capsys, day(tmp_path / "d.csv", 600, 50, 39_000, 2_000),
                           "--instance", "m6i.2xlarge")
    assert code == 3 and not plan["feasible"]
    inf = plan["infeasible"]
    assert "through the recorded history" in inf["reason"] and "m6i.2xlarge's burst runs out" in inf["reason"]
    drop = inf["best"]["burst_replay"]["drops"][0]
    assert drop["t"] == pytest.approx((600 + 30) * 60)
    assert drop["delivered_iops"] == pytest.approx(12_000, rel=0.01) and drop["asked_iops"] == pytest.approx(39_000)
    assert "2026-11-23T10:30:00Z" in inf["reason"]
    assert all(c["instance"] != "m6i.2xlarge" for c in inf["alternatives"])


def test_gp2_credits_run_out_mid_history_shown_in_json_and_report(tmp_path, capsys):
    """AWS-GP2-CREDITS: 1x100G@gp2 (300 IOPS baseline, 3,000 burst, 5.4 M credits) under a 2-hour peak at 2,800
    IOPS empties its bucket after 5.4 M / (2,800 - 300) = 2,160 s (10:36) and falls to 300 IOPS. The plan passes it
    over for a stripe whose credits last, and says where the single volume would have dropped."""
    history = day(tmp_path / "d.csv", 600, 120, 2_800, 200, peak_mbps=26.0)
    code, plan = plan_json(tmp_path, capsys, history, "--instance", "m6i.8xlarge", "--levels", "gp2",
                           capacity="100G")
    assert code == 0 and plan["feasible"]
    best = plan["candidates"][0]
    assert best["burst_replay"]["meets_targets"]
    dropped = next(c for c in plan["outlasted"] if c["layout"] == "1x100G@gp2")
    drop = dropped["burst_replay"]["drops"][0]
    assert drop["t"] == pytest.approx(600 * 60 + 5.4e6 / (2_800 - 300), abs=1)
    assert drop["delivered_iops"] == pytest.approx(300, rel=0.01) and drop["at"] == "2026-11-23T10:36:00Z"
    out = tmp_path / "report.html"
    code, _, err = run(["report", str(tmp_path / "plan.json"), "-o", str(out)], capsys)
    assert code == 0, err
    html = out.read_text()
    table = html[html.index("runs out of burst credits"):]
    assert "2026-11-23T10:36:00Z" in table[:2000] and ">300<" in table[:2000], table[:2000]


@settings(max_examples=20, deadline=None)
@given(minutes=st.integers(min_value=1, max_value=29), at=st.floats(min_value=12_001, max_value=40_000))
def test_an_aws_instance_peak_spends_its_time_whatever_the_rate(minutes, at):
    """blockfit's stated assumption (docs/burst.md): AWS publishes 30 minutes, no bucket size, so any rate above
    the baseline spends the budget by the second; a peak shorter than 30 minutes fits, using minutes / 30."""
    pred = predict(parse_layout("4x1T@gp3:16000:1000", "aws", AWS), parse_instance("m6i.2xlarge", "aws", AWS),
                   Workload(), AWS, with_curve=False)
    series = [HistoryPoint(t=60.0 * i, duration_s=60.0, label=str(i), read_iops=at if 10 <= i < 10 + minutes else 100,
                           write_iops=0, read_mbps=1, write_mbps=0) for i in range(120)]
    targets = DerivedTargets(sources=[], samples=120, interval_s=60, percentile=100, percentile_name="peak",
                             peak_factor=1.0, peak_factor_source="test", headroom_pct=0, iops=at, mbps=1,
                             read_pct=100, target_iops=at, target_mbps=1, series=series)
    rep = replay(pred, targets, "the gp3 volumes", at, 1)
    assert rep is not None and rep.meets_targets and rep.stretches == 1
    assert rep.worst is not None and rep.worst.budget_used_pct == pytest.approx(100 * minutes / 30, abs=0.1)
