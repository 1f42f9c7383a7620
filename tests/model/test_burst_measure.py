"""Measurements that know about burst (issue 40): calibrate given the layout it measures says whether its windows
fell inside the burst, and --sustained spends the credits first."""

import json
from pathlib import Path

import pytest
from tests.support.inproc import run

from blockfit.catalog import load_catalog
from blockfit.measure.calibrate import CalibrateOptions, calibrate
from blockfit.model import predict
from blockfit.model.burst import burst_seconds, measured_words
from blockfit.specs import parse_instance, parse_layout

AWS = load_catalog("aws")


def pred(layout: str, instance: str):
    return predict(parse_layout(layout, "aws", AWS), parse_instance(instance, "aws", AWS), catalog=AWS,
                   with_curve=False)


def test_a_short_run_on_a_bursting_instance_is_said_to_be_inside_the_burst():
    """AWS-EBSOPT: m6a.xlarge bursts 30 minutes from full; a 60-second fio run on full credits measures the burst
    (issue 40: 15,900 IOPS measured against 6,000 predicted)."""
    p = pred("1x400G@gp3:16000:1000", "m6a.xlarge")
    assert burst_seconds(p) == pytest.approx(1800, rel=0.01)
    inside = measured_words(p, 60)
    assert "fell inside the burst" in inside and "16,000 IOPS" in inside and "sustained 6,000" in inside
    past = measured_words(p, 3 * 3600)
    assert "first 30 min of this 3.0 h measurement" in past
    drained = measured_words(p, 60, drained_s=1800)
    assert "measured the sustained caps" in drained


def test_what_does_not_burst_is_said_to_be_sustained():
    p = pred("1x400G@gp3:16000:1000", "m6i.32xlarge")
    assert burst_seconds(p) is None and "does not burst" in measured_words(p, 60)


def test_sustained_needs_the_layout_it_measures(tmp_path: Path, capsys):
    code, _, err = run(["calibrate", str(tmp_path), "--sustained"], capsys)
    assert code == 2 and "--cloud, --layout and --instance" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(["calibrate", str(tmp_path), "--cloud", "aws", "--layout", "1x400G@gp3"], capsys)
    assert code == 2 and "--instance" in err
    assert not list(tmp_path.iterdir())   # refused before any work: no test file laid out


@pytest.mark.slow
def test_calibrate_with_the_layout_warns_its_windows_were_burst(tmp_path: Path, capsys):
    code, out, err = run(["calibrate", str(tmp_path), "--duration", "5s", "--size", "16M", "--cloud", "aws",
                          "--layout", "1x400G@gp3:16000:1000", "--instance", "m6a.xlarge", "--json"], capsys)
    assert code == 0, err
    assert any("fell inside the burst" in w for w in json.loads(out)["warnings"])


@pytest.mark.slow
def test_draining_runs_a_saturating_phase_before_the_search(tmp_path: Path):
    said: list[str] = []
    m = calibrate([str(tmp_path)], CalibrateOptions(duration_s=5, size_bytes=16 << 20, drain_s=2),
                  progress=lambda _e, _b, what: said.append(what))
    assert said[said.index(next(w for w in said if w.startswith("spending burst credits"))) + 1:]
    assert any(w.startswith("spending burst credits (2 s)") for w in said)
    assert m.curve and not m.partial
