"""Issue 40: the fleet flags hosts that live on burst. Two AWS hosts of the generated fleet (job="aws") on
m6i.large, whose sustained MB/s is the instance's baseline and whose burst is the gp3 volume's: a steady day below
the baseline, and the same day with a 10-minute peak above it that the instance's 30-minute burst covers."""

from __future__ import annotations

import json
from pathlib import Path

from blockfit.schema.prediction import Prediction
from support.fleet import run_cli
from support.fleet_history import (
    AWS_PEAK,
    AWS_PEAK_MBPS,
    AWS_PEAK_STEPS,
    AWS_STEADY,
    PROMETHEUS_ONLY,
    STEP,
    Fleet,
)


def _args(fleet: Fleet, *extra: str) -> list[str]:
    return ["fleet", "--from", fleet.url, "--match", 'job="aws"', "--cloud", "aws", "--devices", "dm-3",
            "--range", "1d", "--step", "1m", "--until", str(fleet.end), "--percentile", "99", *extra]


@PROMETHEUS_ONLY
def test_fleet_flags_the_host_whose_short_peak_lives_on_burst(fleet: Fleet, tmp_path: Path) -> None:
    """Before: a fleet host had no burst figure at all (its plan had no series to replay), so a host that spends
    credits every day looked the same as a steady one."""
    report = tmp_path / "fleet.html"
    code, out, err = run_cli(*_args(fleet, "--json", "--report", str(report)))
    assert code == 0, err
    r = json.loads(out)
    hosts = {h["host"]: h for h in r["hosts"]}
    peak, steady = hosts[AWS_PEAK], hosts[AWS_STEADY]
    pred = Prediction.model_validate(peak["plan"]["candidates"][0]["prediction"])
    assert pred.burst is not None
    # the construction: the peak is above the recommendation's sustained MB/s and within its burst; the steady day
    # never leaves the sustained rate
    assert pred.max_mbps < AWS_PEAK_MBPS <= pred.burst.max_mbps
    assert max(fleet.aws[AWS_STEADY]) < pred.max_mbps
    full_s = max(b.full_s for b in pred.burst.buckets if b.spent_by == "time")
    step_pct = 100 * STEP / full_s

    flag = peak["burst"]
    assert flag["lives_on_burst"] and not flag["credits_ran_out"]
    assert flag["stretches"] >= 1
    # the budget the 10-minute peak used: its steps over the bucket's seconds (a step either side for rate()'s edges)
    assert abs(flag["budget_used_pct"] - AWS_PEAK_STEPS * step_pct) <= step_pct + 0.1
    assert flag["layout"] == peak["plan"]["candidates"][0]["layout"]
    # its current layout (from the blockfit_* labels) lives on burst too
    assert peak["now"]["burst"]["lives_on_burst"]

    for b in (steady["burst"], steady["now"]["burst"]):
        assert b is None or not b["lives_on_burst"]
    assert (r["summary"]["on_burst"], r["summary"]["on_burst_now"]) == (1, 1)
    page = report.read_text()
    assert "1 host lives on burst" in page and f"{flag['budget_used_pct']:.0f} %" in page

    code, out, err = run_cli(*_args(fleet))
    assert code == 0, err
    assert "1 host lives on burst" in out
    assert f"{flag['budget_used_pct']:.0f} %" in out

